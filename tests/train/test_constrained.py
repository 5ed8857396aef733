"""The data-constrained probe's own logic: budgets of whole modules, the one choice made on validation, the table."""

from __future__ import annotations

import pyarrow as pa
import pytest

from builder.errors import ConfigError
from builder.train import constrained


def _train(sizes: dict[str, int]) -> pa.Table:
    rows = [
        {"id": f"real/train/{m}:k{i}/cpu", "source_path": f"{m}.py:{i}", "target": "cpu"}
        for m, n in sizes.items()
        for i in range(n)
    ]
    return pa.Table.from_pylist(rows)


@pytest.mark.parametrize("seed", range(5))
def test_a_budget_is_whole_modules_up_to_its_size_and_a_pure_function_of_its_seed(seed):
    train = _train({f"m{i}": 1 + i % 7 for i in range(40)})
    for rows in (5, 20, 80):
        drawn = constrained.draw_budget(train, rows, seed)
        mods = {p.rsplit(":", 1)[0] for p in drawn.column("source_path").to_pylist()}
        whole = sum(1 for p in train.column("source_path").to_pylist() if p.rsplit(":", 1)[0] in mods)
        assert drawn.num_rows == whole <= rows and drawn.num_rows >= rows - 6
        assert drawn.equals(constrained.draw_budget(train, rows, seed))
    assert constrained.draw_budget(train, 20, seed) != constrained.draw_budget(train, 20, seed + 100)


def _report(arm, budget, seed, share, validation, test=0.9):
    groups = {g: {"nats_per_byte": test} for g in ("in-project", "held-out")}
    return {
        "arm": arm,
        "budget": budget,
        "share": share,
        "seed": seed,
        "passes": 16.0,
        "validation": {"nats_per_byte": validation},
        "test": {"nats_per_byte": test, "by_group": groups},
        "seconds": {"train": 1.0, "score": 1.0},
    }


def test_the_table_keeps_the_share_best_on_validation_and_gives_the_spread():
    reports = [
        _report("budget", 20, 0, None, 1.0, 0.95),
        _report("budget", 20, 1, None, 1.0, 0.97),
        _report("budget+generated", 20, 0, 0.5, 0.9, 0.5),
        _report("budget+generated", 20, 0, 0.25, 0.8, 0.99),  # better on validation: kept, whatever its test says
        _report("budget+generated", 20, 1, 0.25, 0.82, 0.98),
    ]
    summary = constrained.table(reports)
    lines = {(ln["arm"], ln["share"]): ln for ln in summary["lines"]}
    assert set(lines) == {("budget", None), ("budget+generated", 0.25)}
    assert lines[("budget", None)]["cells"]["real test: in-project"] == {"mean": 0.96, "sd": 0.0141}
    assert lines[("budget+generated", 0.25)]["seeds"] == [0, 1]
    assert "written share 0.25, chosen on validation" in constrained.markdown(summary)


def test_bad_budgets_and_arms_fail_clearly(tmp_path):
    with pytest.raises(ConfigError, match="budgets must be positive integers"):
        constrained.Budgets(budgets=(0,))
    with pytest.raises(ConfigError, match="unknown arm 'all'"):
        constrained.run_arm("all", None, "", "", 20, tmp_path)
