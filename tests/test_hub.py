"""``warp-cuda-ir push``: validates, renders and uploads; stops before the network on a dry run, and never builds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from builder import hub as P
from builder.cli import main

pytestmark = pytest.mark.slow  # every test here reads the session's built folder

ROOT = Path(__file__).resolve().parents[1]


def _push(args: list[str]) -> int:
    return main(["push", *args])


def test_dry_run_lists_planned_files(folder, capsys):
    rc = _push(["--repo-id", "someone/warp_cuda_ir", "--folder", str(folder), "--dry-run", "--fidelity-sample", "3"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "README.md" in out and "cuda-forward/train-00000-of-00002.parquet" in out
    assert "commit message: Upload warp_cuda_ir" in out
    assert "datasets/someone/warp_cuda_ir" in out and 'load_dataset("someone/warp_cuda_ir", "cuda-forward")' in out


def test_dry_run_writes_nothing_into_the_folder(copy, capsys):
    def snapshot():
        return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(copy.rglob("*")) if p.is_file()}

    before = snapshot()
    assert _push(["--repo-id", "alice/kernels", "--folder", str(copy), "--dry-run", "--fidelity-sample", "0"]) == 0
    out = capsys.readouterr().out
    assert snapshot() == before
    assert all(f"  {name}\n" in out for name in ("README.md", "plot_builtins.png", "manifest.json"))
    assert 'load with: load_dataset("alice/kernels", "cuda-forward")' in out


def test_planned_files_honour_ignore_patterns(copy):
    (copy / "x.lock").write_text("")
    (copy / ".cache").mkdir()
    (copy / ".cache" / "y").write_text("")
    (copy / "z.tmp").write_text("")
    files = P.planned_files(copy)
    assert "README.md" in files and not any(f.endswith((".lock", ".tmp")) or f.startswith(".cache") for f in files)


def test_refuses_corrupted_folder(copy, capsys, monkeypatch):
    path = copy / "cpu" / "train-00000-of-00002.parquet"
    t = pq.read_table(path)
    pq.write_table(pa.concat_tables([t, t.slice(0, 1)]), path)
    called = []
    monkeypatch.setattr("huggingface_hub.HfApi.upload_folder", lambda *a, **k: called.append(1))
    monkeypatch.setenv("HF_TOKEN", "hf_dummy")
    rc = _push(["--repo-id", "someone/x", "--folder", str(copy), "--fidelity-sample", "0"])
    err = _errors(capsys)
    assert rc == P.EXIT_INVALID and not called
    assert len(err) == 1 and "refusing to push" in err[0] and "unique_ids" in err[0]


def test_missing_token_fails_cleanly(folder, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty_hf_home"))
    monkeypatch.delenv("HF_TOKEN_PATH", raising=False)
    rc = _push(["--repo-id", "someone/x", "--folder", str(folder)])
    err = _errors(capsys)
    assert rc == P.EXIT_AUTH and len(err) == 1 and "no Hugging Face token" in err[0]


def test_upload_calls_are_wired_and_the_pushed_card_names_the_repo(copy, capsys, monkeypatch):
    calls = {}

    def fake(name):
        def f(self, *args, **kwargs):
            calls[name] = (args, kwargs)

        return f

    monkeypatch.setenv("HF_TOKEN", "hf_dummy")
    monkeypatch.setattr("huggingface_hub.HfApi.create_repo", fake("create_repo"))
    monkeypatch.setattr("huggingface_hub.HfApi.upload_folder", fake("upload_folder"))
    rc = _push(["--repo-id", "someone/x", "--folder", str(copy), "--private", "--create-pr", "--fidelity-sample", "0"])
    assert rc == 0, capsys.readouterr().err
    assert calls["create_repo"][1] == {"repo_type": "dataset", "private": True, "exist_ok": True}
    up = calls["upload_folder"][1]
    assert up["repo_type"] == "dataset" and up["create_pr"] is True and up["ignore_patterns"] == P.IGNORE_PATTERNS
    card = (Path(up["folder_path"]) / "README.md").read_text()
    assert 'load_dataset("someone/x", "cuda-forward", split="train")' in card and "ORG/" not in card


def test_unreachable_endpoint_and_bad_repo_id(copy, capsys, monkeypatch):
    def boom(self, *a, **k):
        raise ConnectionError("connection refused")

    monkeypatch.setenv("HF_TOKEN", "hf_dummy")
    monkeypatch.setattr("huggingface_hub.HfApi.create_repo", boom)
    rc = _push(["--repo-id", "someone/x", "--folder", str(copy), "--fidelity-sample", "0"])
    err = _errors(capsys)
    assert rc == P.EXIT_NETWORK and len(err) == 1 and "cannot reach" in err[0]
    assert _push(["--repo-id", "not a repo", "--folder", str(copy), "--dry-run"]) == 2


def _script(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, str(ROOT / "scripts" / "push_to_hub.py"), *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=300)


def test_dry_run_without_a_folder_never_builds(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    proc = _script("--repo-id", "someone/warp_cuda_ir", "--dry-run", cwd=work)
    err = proc.stderr.strip().splitlines()
    assert proc.returncode == P.EXIT_USAGE, proc.stderr
    assert len(err) == 1 and "'warp_cuda_ir' does not exist" in err[0]
    assert "warp-cuda-ir build --out warp_cuda_ir" in err[0]
    assert list(work.iterdir()) == []  # nothing built, nothing staged


def test_mistyped_folder_and_a_file_fail_at_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HF_TOKEN", "hf_dummy")
    typo = tmp_path / "warp_cuda_rl"
    assert _push(["--repo-id", "someone/x", "--folder", str(typo)]) == P.EXIT_USAGE
    afile = tmp_path / "notes.txt"
    afile.write_text("mine")
    assert _push(["--repo-id", "someone/x", "--folder", str(afile), "--dry-run"]) == P.EXIT_USAGE
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _push(["--repo-id", "someone/x", "--folder", str(empty), "--dry-run"]) == P.EXIT_USAGE
    err = _errors(capsys)
    assert len(err) == 3 and all(f"warp-cuda-ir build --out {tmp_path}" in line for line in err)
    assert "does not exist" in err[0] and "is not a folder" in err[1] and "holds no" in err[2]
    assert not typo.exists() and afile.read_text() == "mine" and list(empty.iterdir()) == []


def test_dry_run_on_a_truncated_shard_is_one_line(copy):
    shard = copy / "cuda-forward" / "test-00000-of-00002.parquet"
    shard.write_bytes(shard.read_bytes()[:-100])
    proc = _script("--repo-id", "someone/x", "--folder", str(copy), "--dry-run", cwd=copy.parent)
    err = proc.stderr.strip().splitlines()
    assert proc.returncode == P.EXIT_INVALID, proc.stderr
    assert len(err) == 1 and "Traceback" not in proc.stderr
    assert "cuda-forward/test-00000-of-00002.parquet" in err[0] and "not a readable Parquet file" in err[0]


def _errors(capsys) -> list[str]:
    """stderr without validate's progress lines (which check runs, programs regenerated): what went wrong."""
    return [line for line in capsys.readouterr().err.strip().splitlines() if not line.startswith(PROGRESS)]


PROGRESS = "warp-cuda-ir validate: "
