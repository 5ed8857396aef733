"""Generate (Warp Python kernel -> Warp-emitted C++/CUDA) pairs.

The package is split by concern: ``rng`` derives every random stream,
``wtypes``/``scope``/``exprs``/``stmts``/``program``/``policy``/``generator``
form the kernel grammar, ``codegen`` is the only module that touches Warp's
private API, ``verify`` compiles and executes, ``schema``/``records`` define
a row, and ``cli``/``folder`` write the publishable dataset folder.
"""

GENERATOR_VERSION = "1.4.0"
