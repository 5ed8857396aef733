"""Weighted builtin coverage, the real Warp package's examples, and the realism script's argument errors."""

import importlib.metadata
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from builder.analysis.coverage import group_files, read_sources, warp_package_dir, weighted_coverage
from builder.analysis.realism import Corpus
from builder.analysis.realism_table import markdown, metrics

ROOT = Path(__file__).resolve().parents[2]


def test_weighted_coverage():
    weights = Counter({"tid": 6, "sin": 3, "tile_load": 1})
    assert weighted_coverage(["tid", "sin", "sin", "unknown"], weights) == pytest.approx(0.9)
    assert weighted_coverage([], weights) == 0.0
    assert weighted_coverage(["tid"], Counter()) == 0.0


def test_unknown_group_is_rejected():
    with pytest.raises(ValueError, match="'docs'"):
        group_files(warp_package_dir(), "docs")


@pytest.fixture(scope="module")
def examples() -> Corpus:
    return Corpus("examples", whole=False).add_all(read_sources(group_files(warp_package_dir(), "examples")))


def test_real_examples(examples):
    if importlib.metadata.version("warp-lang") == "1.19.0":
        assert examples.kinds["kernel"] == 170
        assert len(examples.programs) == 170
    assert examples.unparsed == 0
    # real examples: almost no dead code, and the thread index is the most called builtin
    assert examples.liveness.dead_share < 0.05
    assert examples.calls.most_common(1)[0][0] == "tid"
    assert "over_parenthesised" not in {h for p in examples.programs for h in p.habits}


def test_generated_style_corpus_against_real_weights(examples):
    source = (
        "import warp as wp\n\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n"
        "    i = wp.tid()\n    x = (a[i] + 1.0)\n    a[i] = wp.sin(a[i])\n"
    )
    corpus = Corpus("generated", whole=True).add_all([source, source])
    col = metrics(corpus, examples.calls, examples.calls, shapes=1)
    weights = examples.calls
    assert col["coverage_all"] == pytest.approx((weights["tid"] + weights["sin"]) / sum(weights.values()))
    assert col["dead_assignment_share"] == 0.5
    assert col["habit:over_parenthesised"] == 1.0
    assert col["programs"] == 2 and col["distinct_normalized_shapes"] == 1
    table = markdown({"generated": col})
    assert "| dead_assignment_share | 50.0% |" in table


def test_analysis_never_imports_warp():
    code = (
        "import sys, builder.analysis.realism_table, builder.analysis.liveness\n"
        "from builder.analysis.realism_table import real_corpora\n"
        "assert not any(m == 'warp' or m.startswith('warp.') for m in sys.modules), 'warp imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rows", "0"], "--rows must be at least 1"),
        (["--real-only", "--source-glob", "x"], "not allowed with"),
        (["--part", "body"], "--part goes with --judge"),
        (["--judge", "--part", "tail"], "invalid choice"),
        (["--seeds", "7,23"], "--seeds goes with --judge"),
        (["--judge", "--seeds", "7,x"], "--seeds must be comma-separated integers"),
        (["--judge", "--seeds", "7,7"], "--seeds must be distinct non-negative integers"),
    ],
)
def test_script_rejects_bad_arguments_in_one_line(args, message):
    proc = subprocess.run(
        [sys.executable, "scripts/realism.py", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and message in proc.stderr
