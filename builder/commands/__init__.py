"""One module per ``warp-cuda-ir`` subcommand: each has ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args)``.

A module imports what its work needs inside ``run``, so ``warp-cuda-ir --help`` and argument errors never load Warp.
"""
