"""predict's completion cap: by default the longest reference among the rows predicted, and its eos."""

from __future__ import annotations

import pytest

from builder.train import predict
from builder.train.stream import open_split

pytestmark = pytest.mark.slow  # builds the tiny folder (once a session) and streams it


def test_default_cap_is_the_longest_reference(tiny, bpe):
    rows = list(open_split(str(tiny), "cpu", "test"))
    longest = max(len(bpe.encode(r["ir"]).ids) for r in rows)
    assert predict.new_tokens(bpe, rows, predict.DecodeOptions()) == longest + 1
    assert predict.new_tokens(bpe, rows, predict.DecodeOptions(max_new_tokens=7)) == 7
