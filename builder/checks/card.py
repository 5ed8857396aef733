"""The folder's README.md card parses as the Hub and ``datasets`` read it, and agrees with the data."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from builder.checks.base import Check, Context, Result
from builder.configs import CONFIGS
from builder.schema import features


class NoFrontMatter(ValueError):
    """The card has no YAML block, so the Hub and ``datasets`` see no configs."""


def read_card(readme: Path):
    """``(configs, infos)`` as ``datasets`` reads them from the card's YAML; raises on a card that does not parse."""
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(readme)
    if not card.data.to_dict():
        raise NoFrontMatter("README.md has no YAML front matter")
    return MetadataConfigs.from_dataset_card_data(card.data), DatasetInfosDict.from_dataset_card_data(card.data)


class Card(Check):
    """Checked against every config of the folder read, complete or not."""

    name = "card"

    def run(self, context: Context) -> Result:
        folder = context.folder
        if folder is None or folder.path is None:  # a Hub repo was read through datasets.load_dataset already
            return Result(self.name, "", "skip", "Hub repo: the card is parsed by load_dataset itself")
        readme, tables = folder.card, folder.tables
        if not readme.is_file():
            return Result(self.name, "", "fail", "README.md is missing")
        try:
            configs, infos = read_card(readme)
        except NoFrontMatter as exc:
            return Result(self.name, "", "fail", str(exc))
        except Exception as exc:  # noqa: BLE001 - any parse failure is the finding
            return Result(self.name, "", "fail", f"README.md does not parse: {type(exc).__name__}: {str(exc)[:200]}")
        problems = [p for cfg, splits in tables.items() for p in _config_problems(cfg, splits, configs, infos)]
        if not folder.config:
            extra = sorted(set(configs) - set(tables))
            if extra:
                problems.append(f"card lists configs without data: {extra}")
        if problems:
            return Result(self.name, "", "fail", "; ".join(problems[:4]), len(problems))
        return Result(self.name, "", "pass", "README.md parses; configs, data_files and split counts match the data")


def _config_problems(cfg: str, splits: dict[str, pa.Table], configs, infos) -> list[str]:
    if cfg not in configs:
        return [f"config {cfg} missing from configs"]
    problems = []
    files = configs[cfg].get("data_files", [])
    listed = {d["split"] for d in files} if isinstance(files, list) else set()
    if listed != set(splits):
        problems.append(f"{cfg}: data_files splits {sorted(listed)} != {sorted(splits)}")
    info = infos.get(cfg)
    if info is None or not info.splits:
        return problems + [f"{cfg}: no dataset_info splits"]
    for split, t in splits.items():
        got = info.splits[split].num_examples if split in info.splits else None
        if got != t.num_rows:
            problems.append(f"{cfg}/{split}: card says {got} examples, data has {t.num_rows}")
    if info.features is not None and cfg in CONFIGS and info.features != features(cfg):
        problems.append(f"{cfg}: card features differ from builder.schema.features({cfg!r})")
    return problems
