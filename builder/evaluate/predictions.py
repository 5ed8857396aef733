"""Read PRED.jsonl: one ``{"id": ROW_ID, "ir": PREDICTED_FUNCTION}`` or ``{"id": ROW_ID, "python": SOURCE}`` a line
(the row's C++/CUDA function Warp writes, or a Warp Python module holding the row's kernel); repeated ids are more
samples."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from builder.errors import EvaluationInputError


@dataclass(frozen=True)
class Prediction:
    line: int  # 1-based line in the file
    id: str
    sample: int  # 0-based, in file order among this id's lines
    ir: str  # the predicted function, or for a Python prediction the predicted Warp Python source
    kind: str = "ir"  # "ir" or "python"

    @property
    def python(self) -> bool:
        return self.kind == "python"


def _field(obj: dict, key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise EvaluationInputError(f"{where}: field {key!r} must be a string, got {value!r:.80}")
    return value


JSON_LINES = (
    'predictions must be JSON Lines: one {"id": ..., "ir": ...} or {"id": ..., "python": ...} object a line, in UTF-8'
)
_JSON_KIND = {"list": "an array", "dict": "an object", "str": "a string", "int": "a number", "float": "a number"}


def _lines(path: Path, data: bytes):
    """``(line number, text)`` of each line; lines end at ``\\n`` only, as JSON Lines says (a string may hold
    U+2028), and a line that is not UTF-8 is named by its number, not by a byte offset in the file."""
    for n, raw in enumerate(data.split(b"\n"), start=1):
        try:
            yield n, raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise EvaluationInputError(
                f"{path.name} line {n}: not valid UTF-8 (byte {exc.start + 1} of the line); {JSON_LINES}"
            ) from None


def _one_document(data: bytes) -> str | None:
    """The kind of JSON value the whole file is, when it is one (a pretty-printed array), else None."""
    try:
        return _JSON_KIND.get(type(json.loads(data)).__name__, "a value")
    except ValueError:
        return None


def read(path: Path) -> list[Prediction]:
    """Every prediction in file order; blank lines are skipped, anything else malformed stops with its line."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise EvaluationInputError(f"cannot read predictions {str(path)!r}: {exc}") from exc
    out: list[Prediction] = []
    samples: dict[str, int] = {}
    for n, line in _lines(path, data):
        if not line.strip():
            continue
        where = f"{path.name} line {n}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            whole = _one_document(data)
            why = f"the whole file is {whole} spread over several lines; " if whole else ""
            raise EvaluationInputError(
                f"{where}: not valid JSON ({exc.msg} at column {exc.colno}); {why}{JSON_LINES}"
            ) from None
        if not isinstance(obj, dict):
            kind = _JSON_KIND.get(type(obj).__name__, json.dumps(obj))
            raise EvaluationInputError(
                f"{where}: expected a JSON object with 'id' and 'ir' or 'python', got {kind}; {JSON_LINES}"
            )
        row_id = _field(obj, "id", where)
        if ("ir" in obj) == ("python" in obj):
            raise EvaluationInputError(f"{where}: give exactly one of 'ir' and 'python'; {JSON_LINES}")
        kind = "python" if "python" in obj else "ir"
        text = _field(obj, kind, where)
        out.append(Prediction(n, row_id, samples.get(row_id, 0), text, kind))
        samples[row_id] = samples.get(row_id, 0) + 1
    if not out:
        raise EvaluationInputError(f"{path.name}: no predictions")
    return out


def check_ids(predictions: list[Prediction], known: set[str], split: str) -> None:
    unknown = [p for p in predictions if p.id not in known]
    if unknown:
        first = unknown[0]
        raise EvaluationInputError(
            f"line {first.line}: unknown id {first.id!r} (not a row of split {split!r}); "
            f"{len(unknown)} prediction(s) name unknown ids"
        )
