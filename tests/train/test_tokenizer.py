"""The BPE tokenizer: trained on the train split only, deterministic, lossless, and a name is the same tokens
wherever it stands (the Python, the kernel's symbol, its argument struct)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from builder.train import prompt, tokenizer
from builder.train.stream import open_split

pytestmark = pytest.mark.slow  # builds the tiny folder (once a session) and streams it

WARPISH = st.sampled_from(["wp::", "var_", "_wp_args->", "project_joints", "HTTPServer", "x0", "é", "日本", "\n", "  "])


def _rows(tiny, split: str) -> list[dict]:
    return list(open_split(str(tiny), "cpu", split))


def _kernel_name(row: dict) -> str:
    return re.findall(r"@wp\.kernel[^\n]*\ndef (\w+)\(", row["python_source"])[-1]


def _token_spans(tok, text: str, needle: str) -> list[list[int]]:
    """The ids of the tokens that cover exactly each occurrence of needle in text ([] where tokens straddle it)."""
    enc = tok.encode(text)
    spans = []
    for found in re.finditer(re.escape(needle), text):
        first = [i for i, (a, _) in enumerate(enc.offsets) if a == found.start()]
        last = [i for i, (_, b) in enumerate(enc.offsets) if b == found.end()]
        spans.append(enc.ids[first[0] : last[-1] + 1] if first and last else [])
    return spans


def test_same_rows_same_tokenizer(tiny, bpe):
    again = tokenizer.train_on_split(str(tiny), "cpu", vocab_size=400)
    assert again.to_str() == bpe.to_str()
    assert bpe.get_vocab_size() == 400
    assert all(bpe.token_to_id(t) is not None for t in prompt.SPECIAL)


def test_every_row_round_trips(tiny, bpe):
    for row in _rows(tiny, "train") + _rows(tiny, "test"):
        for column in ("python_source", "ir"):
            assert bpe.decode(bpe.encode(row[column]).ids) == row[column]


@given(st.text() | st.lists(WARPISH | st.text(max_size=3)).map("".join))
def test_any_text_round_trips(bpe, text):
    assert bpe.decode(bpe.encode(text).ids) == text


def test_pieces_split_at_underscores_case_and_digits():
    pieces = [p for p, _ in tokenizer.pre_tokenizer().pre_tokenize_str("wp_args_HTTPServer float32 é1")]
    assert pieces == ["wp", "_", "args", "_", "HTTP", "Server", "Ġ", "float", "32Ġ", "Ã©", "1"]  # bytes as GPT-2 maps


@pytest.mark.parametrize("rename", [None, "zqx_frobnicate_widget"])
def test_a_kernel_name_is_the_same_tokens_in_python_and_ir(tiny, bpe, rename):
    """On a real row (and on the same row with a name the tokenizer never saw), every occurrence of the kernel's
    name (the def, the C++ symbol ``NAME_cpu_kernel_forward``, the struct ``wp_args_NAME``) is the same ids."""
    row = next(r for r in _rows(tiny, "train") if "_" in _kernel_name(r))
    name = _kernel_name(row)
    if rename:
        row = {k: row[k].replace(name, rename) for k in ("python_source", "ir")}
        name = rename
    ids = bpe.encode(name).ids
    assert f"{name}_cpu_kernel_forward(" in row["ir"] and f"wp_args_{name} " in row["ir"]
    in_python, in_ir = _token_spans(bpe, row["python_source"], name), _token_spans(bpe, row["ir"], name)
    assert len(in_python) >= 1 and len(in_ir) >= 3  # the symbol, the struct twice
    assert all(span == ids for span in in_python + in_ir)
    pieces = []  # project _ joints: each piece's own tokens, and the underscore's between them
    for k, piece in enumerate(name.split("_")):
        pieces += (bpe.encode("_").ids if k else []) + bpe.encode(piece).ids
    assert ids == pieces


def test_tokens_per_row_summary(tiny, bpe):
    stats = tokenizer.tokens_per_row(bpe, open_split(str(tiny), "cpu", "train"))
    assert set(stats) == {"python_source", "ir"}
    ir = stats["ir"]
    assert ir["rows"] == 40 and 0 < ir["median"] <= ir["p95"] <= ir["max"]
