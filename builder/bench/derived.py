"""(i) of the benchmark harness (``builder.bench``): ``derived`` windows built by the builder's own row function,
against the floor on the same variants (Warp's code generation of each variant in this process, its package
imported once, and each unit compiled alone by Warp's compilers: no batching, no bookkeeping, no runs)."""

from __future__ import annotations

import tempfile

from builder.bench import timed
from builder.build_options import BuildOptions
from builder.configs import UNITS


def derived_floor(real_data: str, start: int, n: int) -> tuple[float, float, float, int]:
    """(i) The floor of ``derived`` on source kernels ``start..start+n-1``: (seconds of Warp's codegen, of NVRTC, of
    the CPU compile, variants emitted), each variant emitted in this process and each unit compiled alone."""
    from builder.derive import variants
    from builder.errors import WarpRejected
    from builder.sources.derived.rows import evaluated, source_kernels
    from builder.warp_backend import compilers
    from builder.warp_backend.written import emit_written

    held = evaluated(real_data)
    emit_s = nvrtc_s = cpu_s = 0.0
    emitted = 0
    for k, src in enumerate(source_kernels(real_data)[start : start + n], start):
        name = src["kernel_name"]
        for v in variants(0, src["derived_from"], src["python_source"], name, 5):
            if held.nearest(v.python_source) is not None:
                continue
            label = f"bench/{k}/{v.number}"
            try:
                t, written = timed(emit_written, label, v.python_source, f"bench_derived_{k}_{v.number}", name)
            except WarpRejected:
                continue
            emit_s += t
            emitted += 1
            tus = {(UNITS[u].target, e.tu) for u, e in written.units.items()}
            for target, tu in sorted(tus):
                compile_ = compilers.nvrtc_compile if target == "cuda" else compilers.cpu_compile
                try:
                    t, _ = timed(compile_, tu, f"bench_{target}_{k}_{v.number}")
                except Exception:  # noqa: BLE001 - a unit that does not compile still cost its compile
                    t = 0.0
                if target == "cuda":
                    nvrtc_s += t
                else:
                    cpu_s += t
    return emit_s, nvrtc_s, cpu_s, emitted


def derived_comparison(real_data: str, windows: list[int], n: int) -> str:
    """(i) Per window: the builder's ``derived`` rows at verify=compile and =execute against the floor."""
    from collections import Counter

    from builder.sources.derived.rows import derived_rows, source_kernels

    lines = [
        "| window | package | variants | floor: codegen + NVRTC + CPU compile (s) | verify=compile (s) | ratio |"
        " verify=execute (s) | ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    totals = [0.0, 0.0, 0.0]
    for start in windows:
        package = source_kernels(real_data)[start]["package"]
        derived_floor(real_data, start, 1)  # warm-up: the package's import, the compilers' headers
        emit_s, nvrtc_s, cpu_s, emitted = derived_floor(real_data, start, n)
        floor = emit_s + nvrtc_s + cpu_s
        level = {}
        with tempfile.TemporaryDirectory(prefix="bench_derived_") as tmp:
            for verify_level in ("compile", "execute"):
                opts = BuildOptions(
                    config="derived", real_data=real_data, verify=verify_level, evidence_dir=tmp, num_derived=5
                )
                level[verify_level] = timed(lambda *a: list(derived_rows(*a)), opts, start, start + n, Counter())[0]
        totals = [totals[0] + floor, totals[1] + level["compile"], totals[2] + level["execute"]]
        lines.append(
            f"| {start}-{start + n - 1} | {package} | {emitted} | {emit_s:.0f} + {nvrtc_s:.0f} + {cpu_s:.0f} = "
            f"{floor:.0f} | {level['compile']:.0f} | {level['compile'] / floor:.2f} | {level['execute']:.0f} | "
            f"{level['execute'] / floor:.2f} |"
        )
    lines.append(
        f"| all | | | {totals[0]:.0f} | {totals[1]:.0f} | {totals[1] / totals[0]:.2f} | {totals[2]:.0f} | "
        f"{totals[2] / totals[0]:.2f} |"
    )
    return "\n".join(lines)
