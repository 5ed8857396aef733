"""The kernels warp-lang ships, found without Warp: which of its modules hold kernels (``modules``) and how a
kernel is cut out of its file with what it reads (``extract``). Pure Python (``ast``), below the Warp backend,
which imports the modules found here; ``builder.sources.shipped`` turns them into the ``real`` config's rows.
"""
