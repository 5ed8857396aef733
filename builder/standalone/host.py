"""The host side of a standalone program: a ``main`` around Warp's emitted unit, and the Makefile.

Pure text: nothing here imports Warp. The Warp backend describes a launch (``Launch``: each argument's C++ type
as Warp declares it, where its bytes sit in ``inputs.bin``, the launch bounds Warp would pass); this module writes
the C++ and CUDA mains that read those bytes, launch Warp's forward kernel once and print every output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from builder.standalone import cpp_text, toolchain

INPUTS_FILE = "inputs.bin"
CPU_FILE, CUDA_FILE = "kernel_cpu.cpp", "kernel.cu"
ALIGN = 16  # every argument's bytes start on a 16-byte boundary of inputs.bin (no Warp type needs more)
_ARRAY = re.compile(r"^wp::array_t<(.+)>$")
# how the host prints one scalar of an output; float32 needs 9 significant digits, float64 17, to round-trip
PRINT = {
    "float16": ("wp::half", "%.5g", "(double)wp::half_to_float(v[i])"),
    "float32": ("wp::float32", "%.9g", "(double)v[i]"),
    "float64": ("wp::float64", "%.17g", "v[i]"),
    "int8": ("wp::int8", "%lld", "(long long)v[i]"),
    "int16": ("wp::int16", "%lld", "(long long)v[i]"),
    "int32": ("wp::int32", "%lld", "(long long)v[i]"),
    "int64": ("wp::int64", "%lld", "(long long)v[i]"),
    "uint8": ("wp::uint8", "%llu", "(unsigned long long)v[i]"),
    "uint16": ("wp::uint16", "%llu", "(unsigned long long)v[i]"),
    "uint32": ("wp::uint32", "%llu", "(unsigned long long)v[i]"),
    "uint64": ("wp::uint64", "%llu", "(unsigned long long)v[i]"),
}
# Warp's unit defines WP_NO_CRT because Warp links it against its own C runtime shim (warp.so); a standalone
# program uses the system's C/C++ runtime, and with CUDA's runtime headers the define would redeclare int64_t.
NO_CRT = "#define WP_NO_CRT\n"
NO_CRT_NOTE = "// #define WP_NO_CRT  -- commented out for the standalone build: see the note at the top\n"


class HostError(ValueError):
    """A unit or launch the host code cannot be written for; the message names the kernel."""


@dataclass(frozen=True)
class HostArg:
    name: str
    cxx_type: str  # as Warp declares the argument
    offset: int  # of its bytes in inputs.bin
    nbytes: int
    shape: tuple[int, ...] = ()  # an array's shape; () for a value passed by copy
    scalar: str = ""  # an output array's component scalar type (float32, int32, ...); "" for inputs
    role: str = "param"

    @property
    def is_array(self) -> bool:
        return bool(self.shape)

    @property
    def element(self) -> str:
        m = _ARRAY.match(self.cxx_type)
        if not m:
            raise HostError(f"argument {self.name!r}: only wp::array_t arrays are supported, not {self.cxx_type!r}")
        return m.group(1)


@dataclass(frozen=True)
class Bounds:
    """wp::launch_bounds_t as Warp fills it for a launch on one device."""

    shape: tuple[int, ...]
    size: int
    coord_mult: int

    def cxx(self) -> str:
        shape = ", ".join(map(str, self.shape))
        return f"wp::launch_bounds_t<{len(self.shape)}> dim = {{{{{shape}}}, {self.size}, {self.coord_mult}}};"


@dataclass(frozen=True)
class Launch:
    kernel: str
    args: tuple[HostArg, ...]
    cpu_bounds: Bounds
    cuda_bounds: Bounds
    cuda_block_dim: int  # threads per block Warp launches the CUDA kernel with

    @property
    def total(self) -> int:
        return max((a.offset + a.nbytes for a in self.args), default=0)

    @property
    def outputs(self) -> tuple[HostArg, ...]:
        return tuple(a for a in self.args if a.scalar)


def layout(sizes: list[int]) -> list[int]:
    """Offsets of consecutive blocks of ``sizes`` bytes, each aligned to ``ALIGN``."""
    offsets, at = [], 0
    for n in sizes:
        offsets.append(at)
        at += -(-n // ALIGN) * ALIGN
    return offsets


def declared_types(unit: str, kernel: str, target: str) -> list[tuple[str, str]]:
    """(C++ type, name) of each kernel argument, as Warp's unit declares them for ``target``."""
    if target == "cpu":
        m = re.search(rf"struct wp_args_{re.escape(kernel)} \{{\n(.*?)\n\}};", unit, re.S)
        lines = m.group(1).splitlines() if m else []
        pairs = [line.strip().rstrip(";").rsplit(" ", 1) for line in lines if line.strip()]
    else:
        m = re.search(rf"__global__ void [^\n]*?{re.escape(kernel)}_cuda_kernel_forward\(\n(.*?)\)\n\{{", unit, re.S)
        params = m.group(1).split(",\n")[1:] if m else []  # the first is the launch bounds
        pairs = [p.strip().rsplit(" ", 1) for p in params]
        pairs = [(t, n.removeprefix("var_")) for t, n in pairs]
    if not m:
        raise HostError(f"kernel {kernel!r}: no {target} forward signature in the unit")
    return [(t, n) for t, n in pairs]


def launch_ndim(unit: str, kernel: str) -> int:
    """N of the ``wp::launch_bounds_t<N>`` the unit's CPU forward entry point takes (Warp's kernel_dim)."""
    m = re.search(rf"void {re.escape(kernel)}_cpu_forward\(\s*wp::launch_bounds_t<(\d)>", unit)
    if not m:
        raise HostError(f"kernel {kernel!r}: no CPU forward entry point in the unit")
    return int(m.group(1))


def _check_types(launch: Launch, unit: str, target: str) -> None:
    declared = declared_types(unit, launch.kernel, target)
    want = [(a.cxx_type, a.name) for a in launch.args]
    if declared != want:
        raise HostError(f"kernel {launch.kernel!r}: {target} unit declares {declared}, the launch has {want}")


def standalone_unit(unit: str) -> str:
    if unit.count(NO_CRT) != 1:
        raise HostError("the unit does not define WP_NO_CRT once; Warp's unit layout changed")
    return unit.replace(NO_CRT, NO_CRT_NOTE)


def _header(launch: Launch, target: str, build: str) -> str:
    return (
        f"// Standalone {target} program for Warp kernel `{launch.kernel}`: Warp's own unit for the {target}, as\n"
        "// warp-lang writes it, then a host main that reads the kernel's inputs from inputs.bin, launches the\n"
        "// forward kernel once and prints every output array. It needs only Warp's header-only native folder\n"
        "// (the `native` folder inside the installed warp-lang wheel, whose crt.cpp is Warp's small C runtime\n"
        "// shim), not warp.so and not Python:\n"
        f"//   {build}\n"
        "// One line of Warp's unit is changed: `#define WP_NO_CRT` is commented out, because Warp links the unit\n"
        "// against its own C runtime shim while this program uses the system's C and C++ runtime.\n\n"
    )


def _needs_half(unit: str, launch: Launch) -> bool:
    return "wp::half" in unit or "float16" in unit or any(a.scalar == "float16" for a in launch.outputs)


def _printers(launch: Launch) -> str:
    used = sorted({a.scalar for a in launch.outputs}, key=list(PRINT).index)
    return "".join(cpp_text.PRINT_FN.format(ctype=PRINT[s][0], fmt=PRINT[s][1], value=PRINT[s][2]) for s in used)


def _arg_comment(a: HostArg) -> str:
    what = f"array, shape {a.shape}" if a.is_array else "value"
    return (
        f"    // {a.name} ({a.role}): {a.cxx_type}, {what}, bytes [{a.offset}, {a.offset + a.nbytes}) of inputs.bin\n"
    )


def _array_ctor(a: HostArg, pointer: str) -> str:
    return f"{a.cxx_type}(({a.element}*){pointer}, {', '.join(map(str, a.shape))})"


def _count(a: HostArg) -> str:
    return f"{a.nbytes} / sizeof({PRINT[a.scalar][0]})"


def cpu_program(unit: str, launch: Launch) -> str:
    """Warp's CPU unit + a main that calls its ``extern "C"`` forward entry point."""
    _check_types(launch, unit, "cpu")
    body = [f"    const std::vector<unsigned char> blob = standalone::read_inputs(path, {launch.total});\n"]
    body.append(f"    wp_args_{launch.kernel} args;\n")
    for a in launch.args:
        body.append(_arg_comment(a))
        if a.is_array:
            body.append(f"    void* h_{a.name} = standalone::host_copy(blob, {a.offset}, {a.nbytes});\n")
            body.append(f"    args.{a.name} = {_array_ctor(a, f'h_{a.name}')};\n")
        else:
            body.append(f'    static_assert(sizeof(args.{a.name}) == {a.nbytes}, "{a.name}: size differs");\n')
            body.append(f"    std::memcpy(&args.{a.name}, blob.data() + {a.offset}, {a.nbytes});\n")
    body.append(f"    {launch.cpu_bounds.cxx()}\n")
    body.append(f"    {launch.kernel}_cpu_forward(&dim, &args);\n")
    for a in launch.outputs:
        body.append(f'    standalone::print("{a.name}", ({PRINT[a.scalar][0]}*)h_{a.name}, {_count(a)});\n')
    return _assemble(unit, launch, "CPU", toolchain.gxx_command(CPU_FILE, "kernel_cpu", "$WARP_NATIVE"), "".join(body))


def cuda_program(unit: str, launch: Launch) -> str:
    """Warp's CUDA unit + a main that copies the inputs to the GPU and launches the ``__global__`` forward kernel
    with Warp's launch bounds and block size on a 1-D grid (what Warp's launcher builds for these sizes)."""
    _check_types(launch, unit, "cuda")
    check = "    STANDALONE_CUDA_CHECK({});\n"
    body = [f"    const std::vector<unsigned char> blob = standalone::read_inputs(path, {launch.total});\n"]
    for a in launch.args:
        body.append(_arg_comment(a))
        if a.is_array:
            body.append(f"    void* d_{a.name} = nullptr;\n")
            body.append(check.format(f"cudaMalloc(&d_{a.name}, {max(a.nbytes, 1)})"))
            body.append(
                check.format(f"cudaMemcpy(d_{a.name}, blob.data() + {a.offset}, {a.nbytes}, cudaMemcpyHostToDevice)")
            )
            body.append(f"    {a.cxx_type} a_{a.name} = {_array_ctor(a, f'd_{a.name}')};\n")
        else:
            body.append(f"    {a.cxx_type} a_{a.name};\n")
            body.append(f'    static_assert(sizeof(a_{a.name}) == {a.nbytes}, "{a.name}: size differs");\n')
            body.append(f"    std::memcpy(&a_{a.name}, blob.data() + {a.offset}, {a.nbytes});\n")
    b = launch.cuda_block_dim
    grid = f"({launch.cuda_bounds.size} + {b} - 1) / {b}"
    params = ", ".join(["dim", *(f"a_{a.name}" for a in launch.args)])
    body.append(f"    {launch.cuda_bounds.cxx()}\n")
    body.append(f"    const unsigned int grid = {grid};\n")
    body.append(f"    {launch.kernel}_cuda_kernel_forward<<<grid > 0 ? grid : 1, {b}>>>({params});\n")
    body.append(check.format("cudaGetLastError()"))
    body.append(check.format("cudaDeviceSynchronize()"))
    for a in launch.outputs:
        body.append(f"    void* h_{a.name} = std::calloc(1, {max(a.nbytes, 1)});\n")
        body.append(check.format(f"cudaMemcpy(h_{a.name}, d_{a.name}, {a.nbytes}, cudaMemcpyDeviceToHost)"))
        body.append(f'    standalone::print("{a.name}", ({PRINT[a.scalar][0]}*)h_{a.name}, {_count(a)});\n')
    macro = (
        "#define STANDALONE_CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) {"
        ' std::fprintf(stderr, "%s: %s\\n", #call, cudaGetErrorString(e_)); std::exit(1); } } while (0)\n'
    )
    return _assemble(
        unit, launch, "CUDA", toolchain.nvcc_command(CUDA_FILE, "kernel_cuda", "$WARP_NATIVE"), "".join(body), macro
    )


def _assemble(unit: str, launch: Launch, target: str, build: str, body: str, extra: str = "") -> str:
    return (
        _header(launch, target, build)
        + cpp_text.INCLUDES
        + standalone_unit(unit)
        + cpp_text.COMMON
        + extra
        + _printers(launch)
        + "\n} // namespace standalone\n"
        + (cpp_text.HALF if _needs_half(unit, launch) else "")
        + "\n"
        + "int main(int argc, char** argv)\n{\n"
        + f'    const char* path = argc > 1 ? argv[1] : "{INPUTS_FILE}";\n'
        + body
        + "    return 0;\n}\n"
    )


def expected_output(outputs: list[tuple[str, str, list]]) -> str:
    """What the program prints for ``outputs`` [(name, scalar, flat values)], formatted as its printf does."""
    lines = []
    for name, scalar, values in outputs:
        fmt = PRINT[scalar][1]
        cast = float if scalar.startswith("float") else int
        lines.append(f"{name}:" + "".join(" " + (fmt.replace("ll", "") % cast(v)) for v in values))
    return "\n".join(lines) + ("\n" if lines else "")


def parse_output(text: str) -> dict[str, list[float]]:
    """The arrays a program printed: name -> flat values (floats; ints are exact in a double up to 2**53)."""
    out = {}
    for line in text.splitlines():
        name, _, values = line.partition(":")
        out[name] = [float(v) for v in values.split()]
    return out


def makefile(kernel: str) -> str:
    return toolchain.makefile(kernel, CPU_FILE, CUDA_FILE, INPUTS_FILE)
