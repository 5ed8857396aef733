"""The card of a folder with a real config: its own section, its own schema in the metadata."""

import yaml

from builder.schema import features
from builder.sources.shipped.__main__ import main


def test_card_has_a_real_section_and_per_config_features(copy):
    from dataset_card.render import render

    for i, source in enumerate(("examples", "warp-nn")):  # two packages, a shard each
        out = copy / "real" / f"test-0000{i}-of-00002.parquet"
        assert main(["--sources", source, "--limit", "2", "--out", str(out)]) == 0
    text = render(copy)
    meta = yaml.safe_load(text.split("---\n")[1])
    infos = {i["config_name"]: i for i in meta["dataset_info"]}
    assert [f["name"] for f in infos["real"]["features"]] == list(features("real"))
    assert [f["name"] for f in infos["cpu"]["features"]] == list(features("cpu"))
    shards = ["real/test-00000-of-00002.parquet", "real/test-00001-of-00002.parquet"]
    assert {"split": "test", "path": shards} in next(c for c in meta["configs"] if c["config_name"] == "real")[
        "data_files"
    ]
    assert "## The `real` config" in text and "Apache-2.0" in text
    assert "| warp-lang | examples | 2 | 2 | " in text  # two kernels, each with a cuda forward row
    assert "| warp-nn | library | 2 | 2 | " in text
    attribution = text[text.index("### Attribution and licences") :]
    assert "| warp-lang | 1.19.0 | Apache-2.0 | 2 | " in attribution
    assert "| warp-nn | 0.4.1 | Apache-2.0 | 2 | " in attribution and "NVIDIA" in attribution
    assert "| `source_path` | `string` | real, derived, repair-real |" in text
