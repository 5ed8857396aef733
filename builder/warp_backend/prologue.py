"""The prologue every translation unit of a target starts with (Warp's headers and helpers), told apart from a
module's own code: batched compiles (``compile_units``) compile the prologue once and each module's own code after
it. The prologue is whatever Warp's template holds: the longest common line prefix of two reference modules.
"""

from __future__ import annotations

from builder.warp_backend.codegen import load_sources, release, translation_unit

_REFERENCE = """import warp as wp


@wp.kernel
def __wcir_reference(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0
"""
_headers: dict[str, str] = {}


def split_tu(tu: str, target: str) -> tuple[str, str]:
    """(prologue shared by every module, this module's own code).

    The prologue is the longest common line prefix with a reference module's
    translation unit, so it tracks whatever Warp's template holds.
    """
    if target not in _headers:
        refs = []
        for name in ("__wcir_ref_a", "__wcir_ref_b"):
            module, _ = load_sources([("reference", _REFERENCE.replace("__wcir_reference", name))], name)
            try:
                refs.append(translation_unit(module, target, None)[0].splitlines(True))
            finally:
                release(module)
        n = _common_prefix(*refs)
        while n and not refs[0][n - 1].strip():
            n -= 1
        _headers[target] = "".join(refs[0][:n])
    head = _headers[target]
    if not tu.startswith(head):
        raise ValueError(f"translation unit does not start with Warp's {target} prologue")
    return head, tu[len(head) :]


def _common_prefix(a: list[str], b: list[str]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n
