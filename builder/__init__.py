"""Generate (Warp Python kernel -> Warp-emitted C++/CUDA) pairs.

Sub-packages by role, imported one way: ``grammar`` (pure Python: types, expressions,
statements, policies, the program generator) -> ``warp_backend`` (the only code that imports Warp:
the codegen adapter, compile and execute evidence, GPU comparison) -> ``dataset`` (rows and the
publishable folder). ``config``, ``schema``, ``rng`` and ``cli`` sit at the top.
"""

GENERATOR_VERSION = "3.0.0"
