"""Generate (Warp Python kernel -> Warp-emitted C++/CUDA) pairs.

Sub-packages by role, imported one way, bottom to top (docs/design.md, "Architecture"): ``rng``, ``errors`` and
``tolerances``, ``configs`` (the config registry); ``grammar`` (pure Python: types, expressions, statements, the
policy and its odds, the program sampler), ``shipped`` (which modules warp-lang ships, and how a kernel is cut out
of one), ``derive`` (seeded variants of written kernels), ``repair`` (seeded edits that break a kernel, and how
Warp's diagnostic is recorded), ``schema`` and ``standalone`` (host code around Warp's units, pure text);
``build_options`` (build options and requests) and ``folder_format`` (the folder format); ``warp_backend`` (the only
code that imports Warp: the codegen adapter, batched compiles, execute evidence, the GPU comparison, the
public-pipeline reference, Warp as the judge of a broken kernel); ``analysis`` (generated code measured against
Warp's own); ``checks`` (row and folder checks); ``sources`` (where rows come from: ``sources.drawn``,
``sources.shipped``, ``sources.derived``, ``sources.repair``); ``dataset`` (the build driver and the folder it
writes) and ``validate`` (the validator); ``evaluate`` and ``train``; ``commands``, ``hub`` and ``cli`` on top.
"""

GENERATOR_VERSION = "4.5.4"
