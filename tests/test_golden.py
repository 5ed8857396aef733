"""A fixed seed gives fixed rows: sha256 of the source and IR of the first rows of each config.

Regenerate (only on a deliberate generator or Warp change, with a generator_version bump):
    python -m tests.test_golden
"""

import json
from pathlib import Path

from builder.build_options import BuildOptions
from builder.sources.drawn.records import generated_rows

GOLDEN = Path(__file__).parent / "golden" / "rows.json"
CONFIGS = ("cuda-forward", "cuda-backward", "cpu")


def current() -> dict:
    out = {}
    for cfg in CONFIGS:
        opts = BuildOptions(config=cfg, seed=1234, num_train=4, num_validation=0, num_test=0, verify="none")
        out[cfg] = [
            [r["id"], r["source_sha256"], r["ir_sha256"], r["normalized_sha256"]]
            for r in generated_rows(opts, "train", 0, 4)
        ]
    return out


def test_fixed_seed_gives_fixed_rows():
    assert current() == json.loads(GOLDEN.read_text())


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(current(), indent=1) + "\n")
