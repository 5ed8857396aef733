"""Held-out loss: whole rows only (a row that does not fit is counted, never cut), per byte and per token of ir,
the same figures as the model's own loss computed row by row; grouped by source package."""

from __future__ import annotations

import math

import pytest

from builder.train import batches, checkpoint, heldout, model, prompt
from builder.train.options import ModelOptions, TrainOptions
from builder.train.stream import open_split

pytestmark = pytest.mark.slow  # builds the tiny folder (once a session) and streams it

TINY = ModelOptions(layers=1, hidden=32, heads=2, vocab_size=400)


def _checkpoint(tiny, bpe, run, max_length: int, max_prompt: int):
    """A randomly initialised model saved as a run's checkpoint, with the given context."""
    opts = TrainOptions(data=str(tiny), out=str(run), max_length=max_length, max_prompt=max_prompt, model=TINY)
    net = model.build(TINY, bpe, max_length, seed=0)
    checkpoint.save(run, 1, net, bpe, {}, {}, opts.to_dict())
    return net


def _direct(net, bpe, row: dict, max_prompt: int) -> tuple[float, float]:
    """(nats over the ir tokens, nats of the eos) from the model's own loss, one row, no batching."""
    import torch

    ids, n_prompt = prompt.example(bpe, row, max_prompt, 10**9)
    batch = batches.collate([(ids, n_prompt)], bpe.token_to_id(prompt.PAD))
    with torch.no_grad():
        whole = net(**batch).loss.item() * (len(ids) - n_prompt)  # mean over the completion's tokens
    batch["labels"][0, -1] = batches.IGNORE
    with torch.no_grad():
        ir = net(**batch).loss.item() * (len(ids) - n_prompt - 1)
    return ir, whole - ir


def test_whole_rows_match_the_models_own_loss(tiny, bpe, tmp_path):
    net = _checkpoint(tiny, bpe, tmp_path / "run", max_length=8192, max_prompt=4096)
    rows = list(open_split(str(tiny), "cpu", "test"))
    got = heldout.score(tmp_path / "run", str(tiny), "cpu", "test", batch_tokens=3000)  # rows of unequal width
    direct = [_direct(net, bpe, row, 4096) for row in rows]
    nbytes = sum(len(r["ir"].encode()) for r in rows)
    ntokens = sum(len(bpe.encode(r["ir"]).ids) for r in rows)
    assert (got["rows"], got["scored"], got["left_out"], got["prompts_cut"]) == (3, 3, 0, 0)
    assert (got["ir_bytes"], got["ir_tokens"]) == (nbytes, ntokens)
    assert got["nats_per_byte"] == pytest.approx(sum(d[0] for d in direct) / nbytes, rel=1e-4)
    assert got["nats_per_token"] == pytest.approx(sum(d[0] for d in direct) / ntokens, rel=1e-4)
    assert got["eos_nats"] == pytest.approx(sum(d[1] for d in direct) / 3, rel=1e-3)
    assert got["by_source"] == {"cpu": {k: v for k, v in got.items() if k != "by_source"}}


def test_rows_that_do_not_fit_are_counted_not_cut(tiny, bpe, tmp_path):
    _checkpoint(tiny, bpe, tmp_path / "run", max_length=64, max_prompt=32)
    got = heldout.score(tmp_path / "run", str(tiny), "cpu", "test")
    rows = list(open_split(str(tiny), "cpu", "test"))
    assert (got["scored"], got["left_out"]) == (0, 3)
    assert got["left_out_bytes"] == sum(len(r["ir"].encode()) for r in rows)
    assert got["nats_per_byte"] is None and got["nats_per_token"] is None


def test_a_cut_prompt_is_counted(tiny, bpe, tmp_path):
    _checkpoint(tiny, bpe, tmp_path / "run", max_length=8192, max_prompt=16)
    got = heldout.score(tmp_path / "run", str(tiny), "cpu", "test", limit=2)
    assert (got["scored"], got["prompts_cut"]) == (2, 2) and math.isfinite(got["nats_per_byte"])


@pytest.mark.parametrize(
    "row_id, source",
    [
        ("real/test/warp.examples.core.example_fluid:advect/cpu", "warp.examples"),
        ("real/test/warp._src.fem.utils:gather/cpu", "warp._src"),
        ("real/test/warp.tests.test_array:kernel_1d/cuda-forward", "warp.tests"),
        ("real/test/newton._src.solvers.xpbd.kernels:solve_springs/cpu", "newton"),
        ("real/test/nvalchemiops.dynamics.utils.shared_kernels:k/cpu", "nvalchemiops"),
        ("cpu/test/0/1", "cpu"),
    ],
)
def test_source_of(row_id, source):
    assert heldout.source_of(row_id) == source
