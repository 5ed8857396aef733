"""Generate (Warp Python kernel -> Warp-emitted C++/CUDA) pairs.

Sub-packages by role, imported one way (docs/design.md, "Architecture"): ``rng`` and ``errors`` at the bottom;
``grammar`` (pure Python: types, expressions, statements, policies, the program sampler) and ``shipped`` (which
modules warp-lang ships, and how a kernel is cut out of one: pure ``ast``) -> ``warp_backend`` (the only code that
imports Warp: the codegen adapter, compile and execute evidence, the GPU comparison, the public-pipeline
reference) -> ``standalone`` (host code around Warp's units, pure text) -> ``sources`` (where rows come from:
generated programs, shipped kernels), ``dataset`` (generated rows and the publishable folder), ``real`` (shipped
kernels' rows) -> ``validate``, ``evaluate``, ``analysis`` (checks of folders, predictions and code) ->
``commands``, ``train``, ``hub`` and ``cli``. ``config``, ``schema`` and ``layout`` (the folder format) are the
shared definitions.
"""

GENERATOR_VERSION = "3.0.0"
