"""The compiler's own view of a prediction: what its preprocessor makes of the text.

A prediction has no business with the preprocessor, so its text must come out of ``g++ -E`` unchanged (modulo
whitespace and comments): anything the preprocessor would act on (a directive however spelled, ``_Pragma``, a
predefined macro such as ``__FILE__``, a line splice) changes it. CUDA predictions are preprocessed by the host
g++ as well: NVRTC's preprocessor follows the same C++ rules, and a prediction may not use a macro either
compiler defines. Digraphs and trigraphs are rejected in the raw text before that, because the preprocessor
keeps them as they are spelled.
"""

from __future__ import annotations

import re
import shutil
import subprocess

from builder.errors import ConfigError

# strict C++17: no GNU macros such as ``linux`` or ``unix``, and trigraphs left alone (they are rejected below)
COMMAND = ("-E", "-P", "-std=c++17", "-undef", "-x", "c++", "-")
TIMEOUT_S = 30
_DIGRAPH = re.compile(r"<%|%>|<:(?!:[^:>])|:>|%:")
_TRIGRAPH = re.compile(r"\?\?[=/'()!<>-]")


def compiler() -> str:
    found = shutil.which("g++")
    if found is None:
        raise ConfigError("evaluate needs g++ on PATH: its preprocessor checks every prediction")
    return found


def spelling(bare: str, raw: str) -> str:
    """``digraph`` or ``trigraph`` if the text uses one (``bare``: comments and literals blanked), else ""."""
    if _DIGRAPH.search(bare):
        return "digraph"
    return "trigraph" if _TRIGRAPH.search(raw) else ""


def preprocessed(code: str) -> str:
    """``code`` as g++'s preprocessor outputs it; raises ``ValueError`` with its first error line."""
    done = subprocess.run(
        [compiler(), *COMMAND], input=code, capture_output=True, text=True, timeout=TIMEOUT_S, errors="replace"
    )
    if done.returncode != 0:
        first = next((x for x in done.stderr.splitlines() if "error" in x), "preprocessor failed")
        raise ValueError(first[:300])
    return done.stdout
