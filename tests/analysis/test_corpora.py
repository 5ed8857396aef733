"""The realism measures' corpora: the generated one read from the seed alone, and files matched by a glob."""

from __future__ import annotations

import pytest

from builder.analysis.corpora import files_corpus, generated_corpus, generated_kernels
from builder.analysis.judge import missing_builtins
from builder.grammar.policy import CATEGORIES
from builder.grammar.sample import sample


def test_the_judge_reads_each_rows_own_kernel_and_the_style_table_its_module_without_siblings():
    kernels = generated_kernels(23, 4)
    programs = [sample(23, "train", i, CATEGORIES).program for i in range(4)]
    assert len(kernels) == 4
    for text, program in zip(kernels, programs):
        assert text.lstrip().startswith("@wp.kernel") and f"def {program.kernel_name}(" in text
    corpus, shapes = generated_corpus(4, 23)
    distinct = {sample(23, "train", i, CATEGORIES).normalized_sha256 for i in range(4)}
    assert corpus.modules == 4 and shapes == len(distinct)


def test_files_are_one_program_each_and_no_match_is_an_error(tmp_path):
    kernel = "import warp as wp\n\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    a[0] = 1.0\n"
    (tmp_path / "a.py").write_text(kernel)
    assert files_corpus(str(tmp_path / "*.py")).modules == 1
    with pytest.raises(FileNotFoundError, match="matched no files"):
        files_corpus(str(tmp_path / "*.txt"))


def test_missing_builtins_are_those_real_code_calls_and_the_generated_never_does():
    generated = ["@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    a[0] = wp.sin(1.0)\n"]
    real = {"p": ["@wp.kernel\ndef r(a: wp.array(dtype=float)):\n    a[0] = wp.sin(1.0) + wp.cos(2.0) + wp.cos(1.0)\n"]}
    missing, weights = missing_builtins(generated, real)
    assert missing == [(2, "cos")] and weights == {"cos": 2, "sin": 1}
