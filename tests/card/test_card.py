"""The folder's README card round-trips through huggingface_hub and datasets, and names the builder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow  # every test here reads the session's built folder


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
    train = ["cuda-forward/train-00000-of-00002.parquet", "cuda-forward/train-00001-of-00002.parquet"]
    assert {"split": "train", "path": train} in configs["cuda-forward"]["data_files"]
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
    # what the build left out: none here, recorded in the manifest, which a card rendered again reads
    assert "| config | rows | left out | why |\n|---|---|---|---|\n| `cuda-forward` | 10 | 0 | - |" in body
    assert json.loads((copy / "manifest.json").read_text())["left_out"] == {"cuda-forward": {}, "cpu": {}}
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
            cwd=Path(__file__).resolve().parents[2],
        )
        outs.append([(dst / name).read_bytes() for name in ("README.md", "plot_builtins.png")])
    assert outs[0] == outs[1]


def test_card_loads_with_datasets(folder):
    import datasets

    ds = datasets.load_dataset(str(folder), "cpu", split="validation")
    assert len(ds) == 2 and ds.features == __import__("builder.schema").schema.features("cpu")


def test_card_metadata_is_plain_yaml(folder):
    text = (folder / "README.md").read_text()
    front = text.split("---\n")[1]
    assert yaml.safe_load(front)["pretty_name"] == "Warp CUDA IR"


def test_card_names_the_builder_and_its_version(folder):
    from importlib.metadata import version

    from builder import GENERATOR_VERSION

    body = (folder / "README.md").read_text()
    regenerate = body[body.index("## Regenerate exactly") : body.index("## License")]
    assert "warp_cuda_ir builder" in regenerate and f"`warp-cuda-ir` {version('warp-cuda-ir')}" in regenerate
    assert f"kernel generator {GENERATOR_VERSION}" in regenerate and "pip install ." in regenerate


def test_deleted_shard_fails_load_dataset_naming_it(copy):
    import datasets

    (copy / "cpu" / "test-00001-of-00002.parquet").unlink()
    with pytest.raises(FileNotFoundError, match="test-00001-of-00002.parquet"):
        datasets.load_dataset(str(copy), "cpu")


def test_schema_doc_is_generated_from_the_schema():
    from dataset_card.schema_doc import DOC, markdown

    assert DOC.read_text() == markdown(), "docs/schema.md is stale: run python -m dataset_card.schema_doc"


def test_regenerate_command_reproduces_the_shard_layout():
    from dataset_card.sections import _shard_flag

    assert _shard_flag({"train": (10_000, 40), "validation": (1_000, 4), "test": (1_000, 4)}) == ""
    assert _shard_flag({"train": (6, 2), "validation": (2, 2), "test": (2, 2)}) == "--num-shards 2"
    assert _shard_flag({"train": (1_000, 10), "validation": (200, 2)}) == "--rows-per-shard 100"


def test_card_shows_the_liveness_shares(copy):
    import re

    from dataset_card.render import render

    text = render(copy)
    section = text.split("## Live code", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"\| `(cpu|cuda-forward)` \| (\d+) \| 0 / (\d+) \(0\.0%\) \| 0 / (\d+) \(0\.0%\) \|", section)
    assert sorted(r[0] for r in rows) == ["cpu", "cuda-forward"] and all(int(r[2]) > 0 for r in rows), section


def _html(markdown: str) -> str:
    """The card's Markdown as the Hub shows it: CommonMark with GitHub tables."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").render(markdown)


def test_generated_tables_show_their_text_as_written():
    from builder.schema import FIELD_DOCS
    from dataset_card.sections import schema_table

    html = _html(schema_table())
    assert "<strong>" not in html and "<em>" not in html
    assert "the __global__ kernel (CUDA)" in html
    for column, doc in FIELD_DOCS.items():
        if "`" not in doc:  # a code span renders as <code>, not as written
            shown = doc.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            assert shown in html, column


def test_a_local_card_loads_its_folder_and_a_pushed_card_names_its_repo(copy, tmp_path, monkeypatch):
    from dataset_card.render import render

    text = render(copy)
    assert "ORG/" not in text
    assert "warp-cuda-ir evaluate --data warp_cuda_ir --config cpu --split test" in text
    snippet = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert 'load_dataset("warp_cuda_ir", "cuda-forward", split="train")' in snippet
    # the snippet runs as written beside a folder named as the card's regenerate command writes it
    copy.rename(tmp_path / "warp_cuda_ir")
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(snippet, scope)
    assert scope["ds"].num_rows == 6
    aside = tmp_path / "aside"
    aside.mkdir()
    pushed = render(tmp_path / "warp_cuda_ir", repo_id="alice/kernels", out=aside)
    assert 'ds = load_dataset("alice/kernels", "cuda-forward", split="train")' in pushed
    assert "warp-cuda-ir evaluate --data alice/kernels --config cpu" in pushed
    assert (aside / "README.md").read_text() == pushed and (aside / "plot_builtins.png").is_file()
    assert (tmp_path / "warp_cuda_ir" / "README.md").read_text() == text  # rendered aside: the folder's card stays


def test_the_card_links_the_builder_source_named_in_pyproject(tmp_path):
    import tomllib

    from dataset_card.sections import builder_doc, builder_line, project_urls

    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "warp-cuda-ir"\n[project.urls]\nRepository = "https://example.org/wci"\n')
    urls = project_urls(pyproject)
    assert urls == {"Repository": "https://example.org/wci"}
    assert "install it from its repository, https://example.org/wci, with `pip install .`" in builder_line(urls)
    assert builder_doc(urls, "docs/gpu-verification.md") == (
        "`docs/gpu-verification.md` in the builder's source (https://example.org/wci)"
    )
    # rendered from this source tree, the card reads this tree's pyproject.toml
    ours = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert project_urls() == ours["project"].get("urls", {})
