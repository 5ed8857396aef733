"""What a job's sandbox mounts over its read-only root, and in which order (``isolation.command``).

The shared temporary directories are hidden behind empty tmpfs mounts: ``/tmp``, the evaluator's temporary
directory (``tempfile.gettempdir()``, which holds every job's directory) and multiprocessing's (which holds the
fork server's socket: a process that could connect to it could make the fork server run code outside any
sandbox). Python may live there too: a venv made under ``/tmp``, ``pip install --target /tmp/...`` on
``PYTHONPATH``, an interpreter unpacked there. The child needs it after joining (Warp loads ``warp.so`` and its
CPU compiler from its package directory when it initialises; modules import lazily), so each such path is bound
back read-only: the interpreter's prefixes, every ``sys.path`` entry, ``LD_LIBRARY_PATH``, and the packages of
Warp and the builder (an import hook can place them off ``sys.path``). A path that is itself a hidden directory
(``/tmp`` is on ``sys.path`` when Python runs from there) is never bound back: that would show it whole.

bubblewrap mounts in argument order and a mount hides what an earlier one put below it, so parents go first.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from multiprocessing import util
from pathlib import Path

TMPFS, READ_ONLY, WRITABLE = "--tmpfs", "--ro-bind", "--bind"


def hidden() -> tuple[Path, ...]:
    """The directories a job sees empty (never ``/``, where a temporary directory could be set by mistake)."""
    dirs = (Path("/tmp"), Path(tempfile.gettempdir()), Path(util.get_temp_dir()))
    return tuple(dict.fromkeys(Path(os.path.abspath(d)) for d in dirs if os.path.abspath(d) != "/"))


def python_paths() -> list[str]:
    """Every place the child's interpreter may load code from (some may not exist)."""
    paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *sys.path]
    paths += os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep)
    for package in ("warp", "builder"):  # found, not imported: the evaluator need not have imported Warp
        spec = importlib.util.find_spec(package)
        paths += list(spec.submodule_search_locations or []) if spec else []
    return [p for p in paths if p]


def shown_again(hidden_dirs: tuple[Path, ...]) -> list[Path]:
    """The Python paths a hidden directory would hide (as spelled, and where their links lead), read-only."""
    out: dict[Path, None] = {}
    for path in python_paths():
        if not os.path.exists(path):
            continue
        for form in (Path(os.path.abspath(path)), Path(os.path.realpath(path))):
            if form not in hidden_dirs and any(form.is_relative_to(h) for h in hidden_dirs):
                out[form] = None
    return list(out)


def ordered(job_dir: Path, writable: tuple[Path, ...] = (), readable: tuple[Path, ...] = ()) -> list[tuple[str, Path]]:
    """(bwrap option, path) for every mount after the root, parents before what lies inside them; the job
    directory and ``writable`` are writable, ``readable`` and the Python paths read-only."""
    dirs = hidden()
    mounts = [(TMPFS, d) for d in dirs] + [(READ_ONLY, p) for p in shown_again(dirs)]
    mounts += [(WRITABLE, Path(p)) for p in (job_dir, *writable)] + [(READ_ONLY, Path(p)) for p in readable]
    return sorted(mounts, key=lambda m: len(m[1].parts))  # stable: at one depth, the order above
