"""The compilers a standalone program is built with: one set of flags for the Makefile and for the build.

The build runs the same command lines the Makefile holds (the Makefile itself is exercised by a test where
``make`` exists), so what the dataset claims to have compiled is what a user's ``make`` compiles.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass

from builder.errors import ConfigError

# NDEBUG: Warp builds its release-mode units with it (NVRTC and its CPU compiler alike)
CXX_FLAGS = ("-std=c++17", "-O2", "-DNDEBUG")
# sm_90 with its PTX embedded (-arch=sm_90 is -gencode arch=compute_90,code=[sm_90,compute_90]); WP_ENABLE_CUDA
# tells Warp's headers they are compiled by nvcc for a CUDA build; Warp's headers call constexpr lambdas from
# device code, which NVRTC allows and nvcc only with --expt-relaxed-constexpr; 177 and 550 are the two warnings
# Warp silences in NVRTC (a variable declared or set but never used: most adjoint code has one)
NVCC_FLAGS = (
    *("-std=c++17", "-O2", "-DNDEBUG", "-arch=sm_90", "-DWP_ENABLE_CUDA=1", "--expt-relaxed-constexpr"),
    *("-diag-suppress", "177,550"),
)
CUDA_ARCH = "sm_90"
WARP_NATIVE_HELP = "python3 -c \"import os, warp; print(os.path.join(os.path.dirname(warp.__file__), 'native'))\""
RUN_TIMEOUT_S = 60
COMPILE_TIMEOUT_S = 600


# Warp's C runtime shim (_wp_assert, _wp_isnan, ...), which its headers call and warp.so holds; its source ships
# in the same native folder, so a program compiles it along instead of linking warp.so
CRT = "crt.cpp"


def _cmd(compiler: str, flags: tuple[str, ...], source: str, exe: str, native: str) -> list[str]:
    return [compiler, *flags, f"-I{native}", source, os.path.join(native, CRT), "-o", exe]


def gxx_command(source: str, exe: str, native: str = "$(WARP_NATIVE)") -> str:
    return " ".join(_cmd("g++", CXX_FLAGS, source, exe, native))


def nvcc_command(source: str, exe: str, native: str = "$(WARP_NATIVE)") -> str:
    return " ".join(_cmd("nvcc", NVCC_FLAGS, source, exe, native))


def makefile(kernel: str, cpu_file: str, cuda_file: str, inputs: str) -> str:
    return f"""\
# Standalone build of Warp kernel `{kernel}`: Warp's emitted units plus host mains, nothing but Warp's
# header-only native folder (inside the warp-lang wheel) and the compilers.
#   make run            build the CPU program with g++ and run it on {inputs}
#   make run-cuda       build the CUDA program with nvcc and run it on a GPU
#   make kernel.ptx     nvcc's PTX of the CUDA program
WARP_NATIVE ?= $(shell {WARP_NATIVE_HELP} 2>/dev/null)
ifeq ($(WARP_NATIVE),)
$(error no python3 with warp-lang found: pass make WARP_NATIVE=<warp-lang package>/native)
endif
CXX ?= g++
NVCC ?= nvcc
CXXFLAGS ?= {" ".join(CXX_FLAGS)}
NVCCFLAGS ?= {" ".join(NVCC_FLAGS)}

all: kernel_cpu kernel_cuda kernel.ptx

kernel_cpu: {cpu_file}
\t$(CXX) $(CXXFLAGS) -I$(WARP_NATIVE) $< $(WARP_NATIVE)/{CRT} -o $@

kernel_cuda: {cuda_file}
\t$(NVCC) $(NVCCFLAGS) -I$(WARP_NATIVE) $< $(WARP_NATIVE)/{CRT} -o $@

kernel.ptx: {cuda_file}
\t$(NVCC) $(NVCCFLAGS) -I$(WARP_NATIVE) -ptx $< -o $@

run: kernel_cpu
\t./kernel_cpu {inputs}

run-cuda: kernel_cuda
\t./kernel_cuda {inputs}

clean:
\trm -f kernel_cpu kernel_cuda kernel.ptx

.PHONY: all run run-cuda clean
"""


@dataclass
class Outcome:
    ok: bool
    seconds: float = 0.0
    stdout: str = ""
    error: str = ""


def nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    candidate = os.path.join(home, "bin", "nvcc") if home else ""
    return candidate if candidate and os.access(candidate, os.X_OK) else None


def _run(cmd: list[str], cwd: str, timeout: float) -> Outcome:
    start = time.perf_counter()
    try:
        # the compilers' temporary files go in the job's folder, which is removed whatever happens to them
        env = {**os.environ, "TMPDIR": cwd}
        res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return Outcome(False, time.perf_counter() - start, error=f"{cmd[0]}: timed out after {timeout:.0f} s")
    took = time.perf_counter() - start
    if res.returncode != 0:
        return Outcome(False, took, res.stdout, f"{cmd[0]} exited {res.returncode}: {res.stderr[-1500:]}")
    return Outcome(True, took, res.stdout)


def compile_cpu(folder: str, source: str, exe: str, native: str) -> Outcome:
    return _run(_cmd("g++", CXX_FLAGS, source, exe, native), folder, COMPILE_TIMEOUT_S)


def compile_cuda(folder: str, source: str, exe: str, native: str) -> tuple[Outcome, str]:
    """nvcc to an executable, keeping the PTX it generated on the way (one invocation gives both)."""
    keep = os.path.join(folder, "nvcc_keep")
    os.makedirs(keep, exist_ok=True)
    cmd = [*_cmd(nvcc() or "nvcc", NVCC_FLAGS, source, exe, native), "--keep", "--keep-dir", keep]
    out = _run(cmd, folder, COMPILE_TIMEOUT_S)
    ptx = os.path.join(keep, os.path.splitext(os.path.basename(source))[0] + ".ptx")
    text = ""
    if out.ok:
        try:
            with open(ptx) as f:
                text = f.read()
        except FileNotFoundError:
            out = Outcome(False, out.seconds, error=f"nvcc wrote no PTX ({os.path.basename(ptx)})")
    shutil.rmtree(keep, ignore_errors=True)
    return out, text


def run(folder: str, exe: str, inputs: str) -> Outcome:
    return _run([os.path.join(folder, exe), inputs], folder, RUN_TIMEOUT_S)


def require_compilers(verify_level: str) -> None:
    if verify_level != "none" and (shutil.which("g++") is None or nvcc() is None):
        raise ConfigError(
            "config 'standalone' builds its programs with g++ and nvcc (CUDA 12.8 or newer, for sm_90); put both "
            "on PATH (or set CUDA_HOME), or pass --verify none"
        )
