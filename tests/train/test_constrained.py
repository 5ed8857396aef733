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


def test_the_long_form_budget_is_every_cpu_train_row_with_the_columns_training_reads(tmp_path):
    import pyarrow.parquet as pq

    from builder.train.stream import COLUMNS

    rows = [
        {"id": f"real/train/m:k{i}/{t}", "python_source": "s", "target": t, "pass": "forward", "ir": "x" * i}
        | {"source_path": f"m.py:{i}"}
        for i in range(7)
        for t in ("cpu", "cuda")
    ]
    (tmp_path / "real" / "real").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "real" / "real" / "train-00000-of-00001.parquet")
    out = constrained.whole(str(tmp_path / "real"), str(tmp_path / "probe"))
    assert out.name == "budget-7"
    written = pq.read_table(out / "real" / "train-00000-of-00001.parquet")
    assert written.column_names == COLUMNS and set(written.column("target").to_pylist()) == {"cpu"}


def test_the_long_form_keeps_every_checkpoint_and_the_time_limit():
    from builder.train.options import TrainOptions

    opts = TrainOptions(data="d", out="o", max_steps=100, save_every=100, keep=1)
    assert constrained._long(opts, 0, 5.0) is opts
    long = constrained._long(opts, 25, 5.0)
    assert (long.save_every, long.keep, long.max_minutes, long.max_steps) == (25, 0, 5.0, 100)


def test_one_more_budget_is_drawn_as_prepare_draws_and_recorded(tmp_path):
    import json

    import pyarrow.parquet as pq

    real = tmp_path / "real"
    (real / "real").mkdir(parents=True)
    for split, sizes in (
        ("train", {f"m{i}": 1 + i % 5 for i in range(30)}),
        ("validation", {"v": 3}),
        ("test", {"t": 2}),
    ):
        table = _train(sizes)
        table = table.append_column("split_group", pa.array(["in-project"] * table.num_rows))
        pq.write_table(table, real / "real" / f"{split}-00000-of-00001.parquet")
    probe = tmp_path / "probe"
    with pytest.raises(ConfigError, match="not a prepared probe folder"):
        constrained.add_budget(str(real), str(probe), 12)
    probe.mkdir()
    (probe / "prepared.json").write_text(json.dumps({"budgets": {"20": {"rows": 20, "modules": []}}}))
    drawn = constrained.add_budget(str(real), str(probe), 12)
    written = pq.read_table(probe / "budget-12" / "real" / "train-00000-of-00001.parquet")
    train = pq.read_table(real / "real" / "train-00000-of-00001.parquet")
    # the budget prepare would have drawn at this size: the same draw seed
    assert written.equals(constrained.draw_budget(train, 12, constrained.Budgets().draw_seed))
    assert drawn["rows"] == written.num_rows and set(json.loads((probe / "prepared.json").read_text())["budgets"]) == {
        "20",
        "12",
    }
    assert pq.read_table(probe / "budget-12" / "real" / "test-00000-of-00001.parquet").num_rows == 2
    with pytest.raises(ConfigError, match="a budget is drawn once"):
        constrained.add_budget(str(real), str(probe), 12)
    assert sorted(p.name for p in probe.iterdir()) == ["budget-12", "prepared.json"]  # nothing left aside
