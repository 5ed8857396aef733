"""The README card round-trips through huggingface_hub and datasets; push_to_hub stops before the network."""

from __future__ import annotations

from pathlib import Path

import push_to_hub as P  # noqa: E402
import pyarrow as pa
import pyarrow.parquet as pq
import yaml


def test_card_round_trip(copy):
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    from builder.schema import FIELD_DOCS, features
    from dataset_card.render import render

    text = render(copy)
    assert (copy / "README.md").read_text() == text
    card = DatasetCard.load(copy / "README.md")
    meta = card.data.to_dict()
    assert meta["license"] == "apache-2.0" and meta["task_categories"] == ["text-generation"]
    assert set(meta["tags"]) >= {"cuda", "warp", "gpu", "code", "compiler"}
    assert meta["size_categories"] == ["n<1K"]
    configs = MetadataConfigs.from_dataset_card_data(card.data)
    assert list(configs) == ["cuda-forward", "cpu"] and configs["cuda-forward"].get("default")
    assert {"split": "train", "path": "cuda-forward/train-*.parquet"} in configs["cuda-forward"]["data_files"]
    infos = DatasetInfosDict.from_dataset_card_data(card.data)
    assert infos["cpu"].features == features("cpu") and infos["cuda-forward"].features == features("cuda-forward")
    assert {s: i.num_examples for s, i in infos["cpu"].splits.items()} == {"train": 6, "validation": 2, "test": 2}
    body = card.text
    for needle in (
        "```python",
        "```cuda",
        "```cpp",
        "warp-cuda-ir build",
        "--num-train 6",
        "@misc{",
        "Apache",
        "Limitations",
        "plot_builtins.png",
        "1e-09",
    ):
        assert needle in body, needle
    assert all(f"`{k}`" in body for k in FIELD_DOCS)
    for png in ("plot_source_lines.png", "plot_ir_lines.png", "plot_builtins.png"):
        assert (copy / png).read_bytes()[:4] == b"\x89PNG"


def test_card_is_the_same_bytes_under_any_hash_seed(folder, tmp_path):
    # set iteration order changes with PYTHONHASHSEED; two renders of one folder must not differ
    import os
    import shutil
    import subprocess
    import sys

    outs = []
    for hash_seed in ("1", "2"):
        dst = tmp_path / f"seed{hash_seed}"
        shutil.copytree(folder, dst)
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run(
            [sys.executable, "-c", f"from dataset_card.render import render; render({str(dst)!r})"],
            check=True,
            env=env,
            cwd=Path(__file__).resolve().parents[1],
        )
        outs.append([(dst / name).read_bytes() for name in ("README.md", "plot_builtins.png")])
    assert outs[0] == outs[1]


def test_card_loads_with_datasets(folder):
    import datasets

    ds = datasets.load_dataset(str(folder), "cpu", split="validation")
    assert len(ds) == 2 and ds.features == __import__("builder.schema").schema.features("cpu")


def test_dry_run_lists_planned_files(folder, capsys):
    rc = P.main(
        ["--repo-id", "someone/warp_cuda_ir", "--folder", str(folder), "--dry-run", "--determinism-sample", "3"]
    )
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "README.md" in out and "cuda-forward/train-00000-of-00002.parquet" in out
    assert "commit message: Upload warp_cuda_ir" in out
    assert "datasets/someone/warp_cuda_ir" in out and 'load_dataset("someone/warp_cuda_ir", "cuda-forward")' in out


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
    rc = P.main(["--repo-id", "someone/x", "--folder", str(copy), "--determinism-sample", "0"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == P.EXIT_INVALID and not called
    assert len(err) == 1 and "refusing to push" in err[0] and "unique_ids" in err[0]


def test_missing_token_fails_cleanly(folder, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty_hf_home"))
    monkeypatch.delenv("HF_TOKEN_PATH", raising=False)
    rc = P.main(["--repo-id", "someone/x", "--folder", str(folder)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == P.EXIT_AUTH and len(err) == 1 and "no Hugging Face token" in err[0]


def test_upload_calls_are_wired(folder, capsys, monkeypatch):
    calls = {}

    def fake(name):
        def f(self, *args, **kwargs):
            calls[name] = (args, kwargs)

        return f

    monkeypatch.setenv("HF_TOKEN", "hf_dummy")
    monkeypatch.setattr("huggingface_hub.HfApi.create_repo", fake("create_repo"))
    monkeypatch.setattr("huggingface_hub.HfApi.upload_folder", fake("upload_folder"))
    rc = P.main(
        ["--repo-id", "someone/x", "--folder", str(folder), "--private", "--create-pr", "--determinism-sample", "0"]
    )
    assert rc == 0, capsys.readouterr().err
    assert calls["create_repo"][1] == {"repo_type": "dataset", "private": True, "exist_ok": True}
    up = calls["upload_folder"][1]
    assert up["repo_type"] == "dataset" and up["create_pr"] is True and up["ignore_patterns"] == P.IGNORE_PATTERNS


def test_unreachable_endpoint_and_bad_repo_id(folder, capsys, monkeypatch):
    def boom(self, *a, **k):
        raise ConnectionError("connection refused")

    monkeypatch.setenv("HF_TOKEN", "hf_dummy")
    monkeypatch.setattr("huggingface_hub.HfApi.create_repo", boom)
    rc = P.main(["--repo-id", "someone/x", "--folder", str(folder), "--determinism-sample", "0"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == P.EXIT_NETWORK and len(err) == 1 and "cannot reach" in err[0]
    assert P.main(["--repo-id", "not a repo", "--folder", str(folder), "--dry-run"]) == 2


def test_card_metadata_is_plain_yaml(folder):
    text = (folder / "README.md").read_text()
    front = text.split("---\n")[1]
    assert yaml.safe_load(front)["pretty_name"] == "Warp CUDA IR"
