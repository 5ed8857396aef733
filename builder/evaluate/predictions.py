"""Read PRED.jsonl: one ``{"id": ROW_ID, "ir": PREDICTED_FUNCTION}`` a line; repeated ids are more samples."""

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
    ir: str


def _field(obj: dict, key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise EvaluationInputError(f"{where}: field {key!r} must be a string, got {value!r:.80}")
    return value


def read(path: Path) -> list[Prediction]:
    """Every prediction in file order; blank lines are skipped, anything else malformed stops with its line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EvaluationInputError(f"cannot read predictions {str(path)!r}: {exc}") from exc
    out: list[Prediction] = []
    samples: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name} line {n}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvaluationInputError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
        if not isinstance(obj, dict):
            raise EvaluationInputError(f"{where}: expected a JSON object with 'id' and 'ir', got {type(obj).__name__}")
        row_id, ir = _field(obj, "id", where), _field(obj, "ir", where)
        out.append(Prediction(n, row_id, samples.get(row_id, 0), ir))
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
