"""The one shape of a check: ``Check.run(context) -> Result``, handed a ``Context`` (the folder read once, the
configs in view, ``validate``'s settings), and how row checks are counted.

A result is pass, fail, info (a statistic, never a failure) or skip. ``validate`` hands a config's checks
(``RowSource.checks``, ``ConfigCheck``) a context narrowed to that config, and the folder's checks
(``RowSource.folder_checks``, ``builder.checks.FOLDER_CHECKS``) one holding every config whose columns are all there.
A ``RowCheck`` is a predicate over single rows, counted the way datatrove counts its filters: ``reason(row)``
returns None for a row that passes, else why it fails; the check fails if any row does and names the first few.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar

import pyarrow as pa

if TYPE_CHECKING:
    from builder.built_folder import BuiltFolder

MAX_OFFENDERS = 5
# ``builder.sources.source_of``: a config's row source, for a check that needs what only the source knows (the
# sources sit above the checks, which they hand out, so it is handed in: ``Fidelity``, ``Determinism``)
SourceOf = Callable[[str], Any]
STATUSES = ("pass", "fail", "info", "skip")


@dataclass
class Result:
    name: str
    config: str  # "" for a check over the whole folder
    status: str
    message: str
    count: int = 0
    offenders: list[str] = field(default_factory=list)
    data: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")


def mismatch_result(name: str, checked: int, mismatches: list[tuple[str, str]], against: str, passed: str) -> Result:
    """A whole-folder check's result from ``(row id, what differs)`` pairs: fail naming the first few, else pass."""
    if mismatches:
        details = "; ".join(f"{row_id}: {diff}" for row_id, diff in mismatches[:3])
        ids = [row_id for row_id, _ in mismatches]
        message = f"{len(mismatches)}/{checked} rows differ from {against} ({details})"
        return Result(name, "", "fail", message, len(mismatches), ids[:MAX_OFFENDERS])
    return Result(name, "", "pass", passed, checked)


@dataclass(frozen=True)
class Context:
    """What every check is handed."""

    tables: dict[str, dict[str, pa.Table]]  # {config: {split: table}}: the config in view, or every complete one
    folder: BuiltFolder | None = None  # the folder validated (its path, manifest, build options); None: tables alone
    sample: int = 0  # rows a sampling check (a public-pipeline or g++ run) takes; 0 skips it
    seed: int = 0  # the seed the sample is drawn with
    # ``counter(label, total)``: a context manager with ``add()`` that shows a long step's progress; None: silent
    counter: Callable[[str, int], AbstractContextManager] | None = None

    @property
    def config(self) -> str:
        """The one config in view (a ``ConfigCheck``'s context)."""
        (config,) = self.tables
        return config

    def narrowed(self, config: str) -> Context:
        return replace(self, tables={config: self.tables[config]})


class Check(ABC):
    """One validation step."""

    name: ClassVar[str]

    def applies(self, context: Context) -> bool:
        """Whether the folder holds what this check is about (``validate`` reports nothing for it otherwise)."""
        return True

    @abstractmethod
    def run(self, context: Context) -> Result: ...


class ConfigCheck(Check):
    """A check of one config's splits (``{split: pyarrow.Table}``): ``validate`` runs it on each config its row
    source names it for, with the context narrowed to that config."""

    def run(self, context: Context) -> Result:
        return self.check(context.config, context.tables[context.config])

    @abstractmethod
    def check(self, config: str, tables: dict[str, pa.Table]) -> Result: ...


class RowCheck(ConfigCheck):
    """A predicate over single rows: ``reason`` returns None to pass a row, else why it fails."""

    columns: ClassVar[tuple[str, ...]]
    passed: ClassVar[str]  # the message when every row passes
    failed: ClassVar[str]  # the message when some fail; ``{n}`` is how many

    @abstractmethod
    def reason(self, config: str, split: str, row: dict) -> str | None: ...

    def check(self, config: str, tables: dict[str, pa.Table]) -> Result:
        reasons: Counter = Counter()
        offenders: list[str] = []
        columns = ("id", *self.columns)
        for split, table in tables.items():
            for values in zip(*(table.column(c).to_pylist() for c in columns)):
                row = dict(zip(columns, values))
                why = self.reason(config, split, row)
                if why is not None:
                    reasons[why] += 1
                    if len(offenders) < MAX_OFFENDERS:
                        offenders.append(row["id"])
        n = sum(reasons.values())
        if not n:
            return Result(self.name, config, "pass", self.passed)
        return Result(self.name, config, "fail", self.failed.format(n=n), n, offenders, {"reasons": dict(reasons)})


def first_ids(table: pa.Table, mask) -> list[str]:
    return table.filter(mask).column("id").slice(0, MAX_OFFENDERS).to_pylist()


def concat(tables: dict[str, pa.Table], columns: list[str]) -> pa.Table:
    return pa.concat_tables([t.select(columns) for t in tables.values()])
