"""What a generated row must hold, drawn again from its (seed, split, index): what ``checks.determinism`` compares
every row with.

Each program is drawn and emitted once for all the configs that hold it (``regenerate``, handed to the check by
``validate``); each row's source gives the columns of its row from that draw (``RowSource.regenerated``: a unit's
are ``expected`` here). The costly evidence, compiling and running, is not redone here.
"""

from __future__ import annotations

from builder.configs import UNITS, spec
from builder.grammar.sample import sample

EMITTED = tuple(UNITS)  # every unit a drawn program has a row of, in some config


def regenerate(seed: int, split: str, index: int, cycle: tuple[str, ...]) -> tuple | str:
    """(program, normalized sha256, units) of row (seed, split, index), or why it could not be drawn."""
    # loads Warp: only when a folder is checked
    from builder.sources.drawn.program_row import emit_program, row_label
    from builder.sources.drawn.records import emitted_configs

    try:
        drawn = sample(seed, split, index, cycle)
        label = row_label(seed, split, index)
        mine = emitted_configs(drawn.program, EMITTED)
        emitted = emit_program(drawn.program, label, f"wcir_{split}_{index}", mine)
    except Exception as exc:  # noqa: BLE001 - a row that cannot be regenerated is a failure, not a crash
        return type(exc).__name__
    return drawn.program, drawn.normalized_sha256, emitted


def expected(config: str, row: dict, regenerated: tuple | str) -> dict | str:
    """The columns ``row`` of ``config`` (a unit's) must hold, from ``regenerate``'s draw, or why they cannot be
    had."""
    if isinstance(regenerated, str):
        return regenerated
    program, nsha, emitted = regenerated
    from builder.warp_backend import codegen

    unit = emitted.get(_unit_of(config, row))
    if unit is None:
        return "no such row for this program"
    return {
        "python_source": program.source,
        "ir": unit.ir,
        "module_source": unit.tu,
        "module_options": codegen.options_json(unit.options),
        "entry_point": unit.entry,
        "normalized_sha256": nsha,
    }


def _unit_of(config: str, row: dict) -> str:
    """The unit a generated row holds: its config's one unit, else the one of its pass (gpu-verified)."""
    own = spec(config)
    if own.single_unit:
        return own.single_unit.name
    return next(u for u in own.units if UNITS[u].pass_ == row["pass"])
