"""Checks of single rows: text present, stored where its columns say, IR defining the kernel, hashes right."""

from __future__ import annotations

import re

from builder.checks.base import RowCheck
from builder.configs import spec
from builder.folder_format import sha256_text

TEXT_COLUMNS = ("python_source", "ir", "module_source")


class NonEmpty(RowCheck):
    name = "non_empty"
    columns = TEXT_COLUMNS
    passed = "no empty python_source/ir/module_source"
    failed = "{n} rows with empty python_source/ir/module_source"

    def reason(self, config, split, row):
        empty = [c for c in TEXT_COLUMNS if not row[c]]
        return f"empty {','.join(empty)}" if empty else None


class Placement(RowCheck):
    name = "placement"
    columns = ("config", "split")
    passed = "every row's config and split match the shard it is stored in"
    failed = "rows whose config/split columns disagree with their shard: {n}"

    def reason(self, config, split, row):
        if row["config"] != config or row["split"] != split:
            return f"stored in {config}/{split}"
        return None


class IrFunction(RowCheck):
    """The IR holds the function named after the kernel for this target and pass."""

    name = "ir_function"
    columns = ("kernel_name", "target", "pass", "ir")
    passed = "every ir defines the kernel's function for its target and pass"
    failed = "{n} rows whose ir lacks KERNEL{{suffix}}(...)"

    def reason(self, config, split, row):
        # gpu-verified and real rows name their own target and pass
        one = spec(config).single_unit
        suffix = one.suffix if one else f"_{row['target']}_kernel_{row['pass']}"
        if row["ir"] and re.search(rf"\b{re.escape(row['kernel_name'] + suffix)}\s*\(", row["ir"]):
            return None
        return f"no {suffix} function"


class Hashes(RowCheck):
    name = "hashes"
    columns = ("python_source", "ir", "source_sha256", "ir_sha256")
    passed = "source_sha256 and ir_sha256 match every row"
    failed = "{n} rows whose source_sha256/ir_sha256 do not match their text"

    def reason(self, config, split, row):
        if sha256_text(row["python_source"]) != row["source_sha256"]:
            return "source_sha256"
        if sha256_text(row["ir"]) != row["ir_sha256"]:
            return "ir_sha256"
        return None
