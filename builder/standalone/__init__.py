"""Standalone programs: Warp's emitted units made into complete C++ and CUDA programs (pure text, no Warp).

``host`` writes the ``main`` around a unit and the Makefile; ``toolchain`` holds the g++ / nvcc flags both use and
runs the compilers. What a launch needs from Warp comes from ``warp_backend.standalone``.
"""
