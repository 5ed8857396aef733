"""Measurements of Warp kernel source: liveness, realism habits, builtin coverage.

Pure Python ``ast``/``tokenize``: nothing here imports Warp, so the same code measures the generated corpus and the
Warp package's own kernels (located on disk, never imported).
"""
