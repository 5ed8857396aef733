"""The only code that imports Warp: the codegen adapter, compile and execute evidence, GPU comparison."""
