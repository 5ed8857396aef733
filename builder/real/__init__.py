"""The ``real`` config: the kernels NVIDIA ships inside warp-lang, through the same pipeline as the generated rows.

``sources`` finds the shipped modules and ``extract`` cuts a kernel's stand-alone source out of its file (both
pure Python, no Warp); ``decontam`` compares real and generated sources; ``rows`` turns what
``builder.warp_backend.real_import`` collected in child processes into dataset rows.
"""
