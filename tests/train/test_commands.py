"""`train` and `predict` in the command line: the base install never imports torch, and says how to get it."""

from __future__ import annotations

import subprocess
import sys

from tests.train.conftest import TRAIN_ROWS  # noqa: F401 - the package's importorskip guards this module too

NO_TORCH = """
import sys
sys.modules["torch"] = None  # what an install without the train extra looks like to an import
from builder.cli import main, parser
parser()
assert "transformers" not in sys.modules and "tokenizers" not in sys.modules
sys.exit(main(["train", "--data", "d", "--out", "o"]))
"""


def test_without_the_extra_train_exits_2_naming_it(tmp_path):
    done = subprocess.run([sys.executable, "-c", NO_TORCH], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "pip install -e '.[train]'" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()
