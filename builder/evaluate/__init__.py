"""Score a model's predicted functions against the dataset: exact match, compiles, and gives the same results.

Pure Python here (parsing, static checks, splicing, scheduling, scoring); the Warp side of compiling and running
a spliced module is ``builder.warp_backend.splice_run``, reached only inside child processes (``child.py``).
"""
