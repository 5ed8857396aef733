"""Put a predicted function in place of the reference one in the row's translation unit."""

from __future__ import annotations


def splice(module_source: str, reference_ir: str, predicted_ir: str) -> str:
    """The module with ``reference_ir`` (which must occur exactly once) replaced by ``predicted_ir``."""
    count = module_source.count(reference_ir)
    if count != 1:
        raise ValueError(f"the reference function occurs {count} times in the row's module_source, expected once")
    body = predicted_ir if predicted_ir.endswith("\n") else predicted_ir + "\n"
    return module_source.replace(reference_ir, body, 1)
