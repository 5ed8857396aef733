"""Reading PRED.jsonl: every malformed file is named by its line, and says the file must be JSON Lines."""

from __future__ import annotations

import json

import pytest

from builder.errors import EvaluationInputError
from builder.evaluate.predictions import read

ONE = {"id": "cpu/test/0/0", "ir": "void f() {}"}


def _error(tmp_path, data: bytes) -> str:
    path = tmp_path / "pred.jsonl"
    path.write_bytes(data)
    with pytest.raises(EvaluationInputError) as info:
        read(path)
    return str(info.value)


def test_invalid_utf8_is_named_by_its_line(tmp_path):
    good = json.dumps(ONE).encode()
    err = _error(tmp_path, good + b"\n" + good + b"\n" + b'{"id": "x", "ir": "caf\xe9"}\n')
    assert err.startswith("pred.jsonl line 3: not valid UTF-8 (byte 23 of the line)"), err
    assert "must be JSON Lines" in err


@pytest.mark.parametrize("indent", [None, 2])
def test_a_json_array_is_named_by_its_line_and_told_to_be_json_lines(tmp_path, indent):
    err = _error(tmp_path, json.dumps([ONE, ONE], indent=indent).encode())
    assert err.startswith("pred.jsonl line 1: "), err
    assert "must be JSON Lines" in err
    if indent:
        assert "not valid JSON" in err and "the whole file is an array spread over several lines" in err
    else:
        assert "expected a JSON object with 'id' and 'ir' or 'python', got an array" in err


def test_lines_end_at_newline_only(tmp_path):
    path = tmp_path / "pred.jsonl"
    first = {"id": "a", "ir": "// a\u2028b"}  # U+2028 is a line break to str.splitlines, not to JSON Lines
    path.write_text(json.dumps(first, ensure_ascii=False) + "\r\n\n" + json.dumps(ONE) + "\n", encoding="utf-8")
    got = read(path)
    assert [(p.line, p.id, p.ir) for p in got] == [(1, "a", first["ir"]), (3, ONE["id"], ONE["ir"])]
