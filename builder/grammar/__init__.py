"""The kernel grammar: types, scopes, expressions, statements, policies and the program generator.

Pure Python: nothing here imports Warp, so a program can be drawn (and its normalized form hashed) anywhere.
"""
