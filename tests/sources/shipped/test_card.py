"""The card of a folder with a real config: its own section, its own schema in the metadata."""

import yaml

from builder.schema import features
from builder.sources.shipped.__main__ import main


def test_card_has_a_real_section_and_per_config_features(copy):
    from dataset_card.render import render

    assert (
        main(["--sources", "examples", "--limit", "2", "--out", str(copy / "real" / "test-00000-of-00001.parquet")])
        == 0
    )
    text = render(copy)
    meta = yaml.safe_load(text.split("---\n")[1])
    infos = {i["config_name"]: i for i in meta["dataset_info"]}
    assert [f["name"] for f in infos["real"]["features"]] == list(features("real"))
    assert [f["name"] for f in infos["cpu"]["features"]] == list(features("cpu"))
    assert {"split": "test", "path": ["real/test-00000-of-00001.parquet"]} in next(
        c for c in meta["configs"] if c["config_name"] == "real"
    )["data_files"]
    assert "## The `real` config" in text and "Apache-2.0" in text
    assert "| examples | 2 | 2 | " in text  # two kernels, each with a cuda forward row
    assert "| `source_path` | `string` | real |" in text
