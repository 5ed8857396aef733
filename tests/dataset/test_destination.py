"""What --overwrite may replace (only an empty folder or a build of this tool), and --resume repairing a finished
folder in place."""

import json
import os

import fsspec
import pytest

from builder.cli import main
from builder.dataset import destination
from tests.dataset.helpers import SMALL

SHARDED = [*SMALL, "--rows-per-shard", "3"]  # train 2 shards, validation 1, test 1


@pytest.fixture
def nothing_replaced(monkeypatch):
    """A safety net for tests pointing --out at real folders (/, the home directory): the refusal must come before
    any rename or removal, so one reaching the destination fails the test instead of touching the folder."""

    def forbidden(*args, **kwargs):
        raise AssertionError(f"the destination tried to move or remove {args!r}")

    monkeypatch.setattr(destination.os, "replace", forbidden)
    monkeypatch.setattr(destination.shutil, "rmtree", forbidden)


def _user_files(root):
    (root / "notes.txt").write_text("mine")
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("print(1)\n")
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    "out, why",
    [
        ("", "--out is empty"),
        (".", "is the current directory"),
        ("..", "is a parent of the current directory"),
        ("/", "is the root directory"),
        ("HOME", "is the home directory"),
    ],
)
def test_overwrite_never_replaces_the_working_directory_its_parents_home_or_root(
    out, why, tmp_path, monkeypatch, capsys, nothing_replaced
):
    home, cwd = tmp_path / "home", tmp_path / "home" / "work" / "sub"
    cwd.mkdir(parents=True)
    before = _user_files(cwd)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    out = str(home) if out == "HOME" else out
    assert main(["build", *SMALL, "--out", out, "--overwrite"]) == 2
    assert why in _error(capsys)
    assert {p: p.read_bytes() for p in cwd.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in home.iterdir()) == ["work"]
    assert not [p.name for p in tmp_path.rglob(".*")]


@pytest.mark.parametrize("kind", ["user_folder", "foreign_manifest", "our_build_plus_user_file", "symlink"])
def test_overwrite_replaces_only_a_folder_this_tool_wrote(kind, tmp_path, capsys):
    out = tmp_path / "o"
    if kind == "our_build_plus_user_file":
        assert main(["build", *SMALL, "--out", str(out)]) == 0
        (out / "my_results.csv").write_text("a,b\n")
    elif kind == "symlink":
        (tmp_path / "target").mkdir()
        (tmp_path / "target" / "notes.txt").write_text("mine")
        out.symlink_to(tmp_path / "target")
    else:
        out.mkdir()
        _user_files(out)
        if kind == "foreign_manifest":
            (out / "manifest.json").write_text(json.dumps({"files": [{"path": "notes.txt"}]}))
    capsys.readouterr()
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and "caches" not in p.parts}
    assert main(["build", *SMALL, "--out", str(out), "--overwrite"]) == 2
    err = _error(capsys)
    assert "refusing" in err or "symbolic link" in err
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and "caches" not in p.parts}
    assert after == before
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_an_empty_folder_is_used_and_a_build_of_ours_needs_overwrite(tmp_path, capsys):
    out = tmp_path / "o"
    out.mkdir()
    assert main(["build", *SMALL, "--out", str(out)]) == 0
    assert json.loads((out / "manifest.json").read_text())["builder"] == "warp-cuda-ir"
    capsys.readouterr()
    assert main(["build", *SMALL, "--out", str(out)]) == 2
    assert "holds a warp-cuda-ir build; pass --overwrite to replace it" in _error(capsys)


def test_an_fsspec_url_that_is_not_our_build_is_never_removed(tmp_path, capsys):
    url = f"memory://{tmp_path.name}/user"
    fs = fsspec.filesystem("memory")
    fs.pipe_file(f"/{tmp_path.name}/user/notes.txt", b"mine")
    try:
        assert main(["build", *SMALL, "--out", url, "--overwrite"]) == 2
        assert "not a dataset folder written by warp-cuda-ir" in _error(capsys)
        assert fs.cat_file(f"/{tmp_path.name}/user/notes.txt") == b"mine"
    finally:
        fs.rm(f"/{tmp_path.name}", recursive=True)


def _snapshot(folder) -> dict[str, tuple[bytes, int, int]]:
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns, p.stat().st_ino)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_resume_repairs_a_finished_folder_rebuilding_only_the_lost_shards(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["build", *SHARDED, "--out", str(out)]) == 0
    fresh = _snapshot(out)
    lost, changed = "cpu/train-00001-of-00002.parquet", "cpu/test-00000-of-00001.parquet"
    (out / lost).unlink()
    (out / changed).write_bytes(b"not parquet")
    damaged = _snapshot(out)
    capsys.readouterr()
    assert main(["build", *SHARDED, "--out", str(out), "--resume"]) == 0
    assert "(2 reused)" in capsys.readouterr().err
    repaired = _snapshot(out)
    assert {k: v[0] for k, v in repaired.items()} == {k: v[0] for k, v in fresh.items()}  # a fresh build's bytes
    rewritten = sorted(k for k in repaired if repaired[k][1:] != damaged.get(k, (None, None, None))[1:])
    assert rewritten == sorted([lost, changed])
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    # nothing missing: nothing is written at all
    assert main(["build", *SHARDED, "--out", str(out), "--resume"]) == 0
    assert _snapshot(out) == repaired


def test_resume_on_a_finished_folder_of_other_options_touches_nothing(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["build", *SHARDED, "--out", str(out)]) == 0
    (out / "cpu" / "train-00000-of-00002.parquet").unlink()
    before = _snapshot(out)
    capsys.readouterr()
    assert main(["build", *SHARDED, "--seed", "7", "--out", str(out), "--resume"]) == 2
    assert "holds a warp-cuda-ir build with other options or generator; pass --overwrite" in _error(capsys)
    assert _snapshot(out) == before


def test_resume_repairs_a_finished_fsspec_folder(tmp_path):
    url = f"memory://{tmp_path.name}/o"
    fs = fsspec.filesystem("memory")
    try:
        assert main(["build", *SHARDED, "--out", url]) == 0
        root = f"/{tmp_path.name}/o"
        fresh = {p: fs.cat_file(p) for p in fs.find(root)}
        fs.rm(f"{root}/cpu/validation-00000-of-00001.parquet")
        assert main(["build", *SHARDED, "--out", url, "--resume"]) == 0
        assert {p: fs.cat_file(p) for p in fs.find(root)} == fresh
    finally:
        fs.rm(f"/{tmp_path.name}", recursive=True)


def test_protected_resolves_links_and_relative_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.symlink(tmp_path, tmp_path / "here")
    assert destination.protected(tmp_path / "here") == "the current directory"
    assert destination.protected(tmp_path / "new") is None
