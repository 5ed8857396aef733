"""Every ``warp-cuda-ir`` command line in the README and docs parses with the real CLI (flags that exist, values
of the right type), and the README's test command is the one CI runs."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from builder.cli import parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _command_lines() -> list[tuple[str, str]]:
    out = []
    for doc in DOCS:
        for block in re.findall(r"```bash\n(.*?)```", doc.read_text(), re.S):
            for line in block.splitlines():
                for part in line.split("#", 1)[0].split("&&"):
                    words = shlex.split(part)
                    if "warp-cuda-ir" in words:
                        out.append((doc.name, shlex.join(words[words.index("warp-cuda-ir") + 1 :])))
    return out


@pytest.mark.parametrize("doc, argv", _command_lines())
def test_documented_command_parses(doc, argv):
    args = parser().parse_args(shlex.split(argv))
    assert callable(args.run)


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    command = "HF_HUB_OFFLINE=1 python -m pytest -q"
    install = "pip install -q -e '.[test,train,real]'"
    assert f"pip install -q 'torch==2.13.0' && {install} && {command}" in readme
    assert ci.rstrip().splitlines()[-1] == command and install in ci and "pip install -q 'torch==2.13.0'" in ci
    assert "ruff check ." in ci and "ruff format --check ." in ci


def _readme_commands() -> list[list[str]]:
    return [shlex.split(argv) for doc, argv in _command_lines() if doc == "README.md"]


def test_readme_commands_write_distinct_reports_and_their_folders_are_ignored():
    """Following the README in order never overwrites one report with another, and leaves no folder for git."""
    reports = [words[i + 1] for words in _readme_commands() for i, w in enumerate(words) if w == "--json"]
    reports += [words[words.index("--out") + 1] for words in _readme_commands() if words[0] == "evaluate"]
    assert len(reports) == len(set(reports)) > 1, reports
    ignored = set((ROOT / ".gitignore").read_text().split())
    built = {
        words[words.index("--out") + 1] for words in _readme_commands() if words[0] == "build" and "--out" in words
    }
    local = {out for out in built if "://" not in out}
    assert local and all(f"/{out}/" in ignored for out in local), (local, ignored)


def test_readme_is_a_front_door_and_its_citation_names_the_versions_it_describes():
    import tomllib

    from builder import GENERATOR_VERSION

    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 150, "results belong in docs/results/, history in CHANGELOG.md"
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    (note,) = re.findall(r"note\s*=\s*\{(.*)\}", readme)
    assert f"warp-cuda-ir {version}," in note and f"generator version {GENERATOR_VERSION}," in note, note


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_lead_to_files(doc):
    for target in re.findall(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)", doc.read_text()):
        assert (doc.parent / target).exists(), f"{doc.relative_to(ROOT)} links {target}, which does not exist"
