import dataclasses
import re

import numpy as np
import pytest

from builder.configs import UNITS
from builder.grammar.generator import generate
from builder.grammar.policy import CATEGORIES
from builder.grammar.sample import sample
from builder.rng import derive_rng
from builder.sources.drawn.records import emitted_configs
from builder.warp_backend import codegen, compile_units, compilers, execute, verify


def _items(target, n=6, seed=5):
    out = []
    for index in range(n):
        program = sample(seed, "train", index, CATEGORIES).program
        if not program.backward and target == "cuda-backward":
            continue  # enable_backward=False: no adjoint, no row
        tu = codegen.emit(f"index={index}", program.source, f"tv_{index}", (target,))[target].tu
        out.append(verify.Item(f"index={index}", program, tu, verify.input_seed(seed, "train", index)))
    return out


@pytest.mark.parametrize("target", ["cuda-forward", "cuda-backward", "cpu"])
def test_rows_compile_and_execute_with_evidence(target, tmp_path):
    items = _items(target)
    verify.verify(items, UNITS[target], "execute", verify.EvidenceCache(str(tmp_path / "ev")))
    for it in items:
        ev = it.evidence
        assert ev.valid, (it.label, ev)
        assert len(ev.output_checksum) == 16
        if target != "cpu":
            assert ev.compile_target == "sm_90" and ".entry" in ev.ptx and ev.ptx_instructions > 0
            assert ev.ptx.count(".entry") == 1 and ("_cuda_kernel_backward" in ev.ptx) == (target == "cuda-backward")


def test_failing_batch_is_bisected_to_the_bad_row():
    items = _items("cuda-forward", n=4)
    broken = items[2]
    broken.tu = broken.tu.replace("builtin_tid1d()", "undefined_tid()").replace("builtin_tid2d(", "undefined_tid(")
    broken.tu = broken.tu.replace("builtin_tid3d(", "undefined_tid(")
    verify.compile_cuda(items, batch_size=4)
    assert [it.evidence.compiled for it in items] == [True, True, False, True]
    assert "nvrtc" in broken.evidence.error


def test_a_failing_cpu_batch_finds_the_bad_unit_and_keeps_the_precompiled_header():
    """Warp's Clang deletes its precompiled header after a failed compile; ``compilers.kept_headers`` puts it back,
    so the next compile does not build it again."""
    items = _items("cpu", n=4)
    compile_units.compile_units(
        [items[0]], "cpu", lambda it: it.tu, 4, lambda it, ptx: None, lambda it, msg: None, "hdr"
    )
    headers = sorted((compilers.scratch_dir() / "pch_cpu").glob("*.pch"))
    assert headers
    broken = items[1]
    broken.tu = broken.tu.replace("builtin_tid1d()", "undefined_tid()").replace("builtin_tid2d(", "undefined_tid(")
    broken.tu = broken.tu.replace("builtin_tid3d(", "undefined_tid(")
    results = {}
    compile_units.compile_units(
        items,
        "cpu",
        lambda it: it.tu,
        4,
        lambda it, ptx: results.setdefault(it.label, True),
        lambda it, msg: results.setdefault(it.label, False),
        "hdr",
    )
    assert [results[it.label] for it in items] == [True, False, True, True]
    assert sorted((compilers.scratch_dir() / "pch_cpu").glob("*.pch")) == headers


def test_one_cpu_compile_serves_every_config(tmp_path, monkeypatch):
    cache, calls, real = verify.EvidenceCache(str(tmp_path / "ev")), [], verify.execute_cpu
    monkeypatch.setattr(verify, "execute_cpu", lambda items, size: (calls.append(len(items)), real(items, size)))
    fwd = _items("cuda-forward", n=2)
    verify.verify(fwd, UNITS["cuda-forward"], "execute", cache)
    cpu = _items("cpu", n=2)
    verify.verify(cpu, UNITS["cpu"], "execute", cache)
    assert calls == [2]  # the cpu config reused the CPU build and run made for cuda-forward's execution check
    assert all(it.evidence.valid and it.evidence.compile_target == "cpu" for it in cpu)
    assert [it.evidence.output_checksum for it in cpu] == [it.evidence.output_checksum for it in fwd]


def test_cpu_evidence_is_what_warps_default_cpu_build_computes():
    """The evidence builds at CPU_OPTIMIZATION_LEVEL (-O0, for speed); a row's outputs and gradients must be those
    of Warp's own default build (-O2), loaded the way a user loads a module."""
    assert compilers.CPU_OPTIMIZATION_LEVEL == 0
    items = _items("cpu", n=len(CATEGORIES), seed=11)
    verify.execute_cpu(items, batch_size=len(items))
    for it in items:
        module, (ns,) = codegen.load_sources([(it.label, it.program.module_for_row)], f"t_o2_{it.label[6:]}")
        try:
            module.options["enable_backward"] = True
            module.load("cpu", block_dim=1)  # Warp's default optimization level
            assert module.options.get("optimization_level") is None
            rng = np.random.default_rng(it.input_seed)
            r = execute.run(it.program, ns[it.program.kernel_name], ns, rng, "cpu", it.program.backward)
        finally:
            codegen.release(module)
        assert it.evidence.executed, (it.label, it.evidence.error)
        assert it.evidence.output_checksum == execute.checksum(r.outputs), it.label
        assert it.evidence.grad_checksum == execute.checksum(r.grads), it.label


def test_device_comparison_harness_cpu_vs_cpu():
    program = generate(derive_rng(3, "train", 0), "vector")
    module, (ns,) = codegen.load_sources([("x", program.source)], "t_compare")
    try:
        compilers.load_cpu(module)
        kernel = ns[program.kernel_name]
        a = execute.run(program, kernel, ns, np.random.default_rng(1), "cpu", True)
        b = execute.run(program, kernel, ns, np.random.default_rng(1), "cpu", True)
        assert execute.compare(a, b, program) == (True, 0.0, 0.0)
        name = next(iter(b.outputs))
        b.outputs[name] = b.outputs[name] + 1.0
        match, abs_err, _ = execute.compare(a, b, program)
        assert not match and abs_err == pytest.approx(1.0, rel=1e-3)
    finally:
        codegen.release(module)


def test_checksum_ignores_last_bit_noise():
    x = np.linspace(-3, 3, 100, dtype=np.float32)
    assert execute.checksum({"o": x}) == execute.checksum({"o": x * np.float32(1 + 1e-7)})
    assert execute.checksum({"o": x}) != execute.checksum({"o": x + 0.01})


def test_kernel_cache_does_not_grow():
    import os

    import warp as wp

    before = len(os.listdir(wp.config.kernel_cache_dir)) if os.path.isdir(wp.config.kernel_cache_dir) else 0
    items = _items("cpu", n=3)
    verify.execute_cpu(items, batch_size=3)
    after = len(os.listdir(wp.config.kernel_cache_dir))
    assert after <= before


def test_batches_keep_warp_helper_functions_apart():
    # wp.norm_l1 is written in Python inside Warp, so each module carries its own norm_l1_0 helper;
    # two such translation units cannot be concatenated into one batch.
    src = (
        "import warp as wp\n\n\n@wp.kernel\ndef {k}(a: wp.array(dtype=wp.vec3), o: wp.array(dtype=float)):\n"
        "    i = wp.tid()\n    o[i] = wp.norm_l1(a[i])\n"
    )
    program = sample(5, "train", 0, CATEGORIES).program
    units = [codegen.emit(k, src.format(k=k), f"tb_{k}", ("cuda-forward",))["cuda-forward"] for k in ("ka", "kb")]
    items = [verify.Item("x", program, u.tu, 0) for u in units]
    assert [len(b) for b in compile_units.name_disjoint_batches(items, 16, verify.cuda_symbols)] == [1, 1]


def test_gpu_verified_row_evidence_path_runs_device_against_cpu():
    # The same code the gpu-verified config runs, pointed at the CPU as the "device": exact agreement.
    from builder.warp_backend import gpu as gpu_verify

    fwd, bwd = _items("cuda-forward", n=2), _items("cuda-backward", n=2)
    gpu_verify.compare_devices(fwd, {"cuda-forward": fwd, "cuda-backward": bwd}, device="cpu")
    for it in fwd + bwd:
        assert it.gpu["gpu_match"] and it.gpu["max_abs_err"] == 0.0 and it.gpu["gpu_name"] == "CPU"


def _same_helper_pair() -> tuple[int, tuple[int, int]]:
    """A seed and the first two of its rows that define a @wp.func with the same name and parameters."""
    for seed in range(4):
        seen: dict[tuple[str, str], int] = {}
        for index in range(2000):
            source = sample(seed, "train", index, CATEGORIES).program.source
            for key in re.findall(r"@wp\.func\s*\n\s*def\s+(\w+)\((.*?)\)", source):
                if key in seen:
                    return seed, (seen[key], index)
                seen[key] = index
    raise AssertionError("no two rows share a helper")


def test_device_comparison_keeps_programs_with_the_same_helper_name_apart(monkeypatch):
    # Two programs defining helper(x: float) with different bodies: in one Warp module both are emitted as
    # helper_0 and the CPU build of the batch fails (what the first gpu-verified build on a GPU hit).
    from builder.warp_backend import gpu as gpu_verify

    seed, pair = _same_helper_pair()
    programs = [sample(seed, "train", index, CATEGORIES).program for index in pair]

    def items(target):
        out = []
        for index, program in zip(pair, programs):
            if target in emitted_configs(program, (target,)):
                tu = codegen.emit(f"index={index}", program.source, f"tg_{index}", (target,))[target].tu
                item = verify.Item(f"index={index}", program, tu, verify.input_seed(seed, "train", index))
            else:
                item = None
            out.append(item)
        return out

    fwd, bwd = items("cuda-forward"), items("cuda-backward")
    loaded = []  # the labels of every module the comparison loads: the two programs must never share one
    real_load = codegen.load_sources

    def spy(sources, name):
        loaded.append([label for label, _ in sources])
        return real_load(sources, name)

    monkeypatch.setattr(codegen, "load_sources", spy)
    gpu_verify.compare_devices(fwd, {"cuda-forward": fwd, "cuda-backward": bwd}, device="cpu")
    assert loaded and all(len(labels) == 1 for labels in loaded), loaded
    compared = [it for it in fwd + bwd if it is not None]
    assert len(compared) >= 2 and all(it.gpu["gpu_match"] for it in compared), [it.evidence.error for it in fwd]


def test_float64_outputs_of_float32_programs_get_the_float32_tolerance():
    # A float64 array written from float32 values carries float32 rounding: on an H100, 11 of 4,000
    # gpu-verified rows differed from the CPU by 1e-8..5e-7 relative in such arrays and failed 1e-9.
    program = next(
        p
        for p in (sample(0, "train", i, CATEGORIES).program for i in range(500))
        if {a.dtype.scalar for a in p.arrays()} >= {"float32", "float64"}
    )
    assert execute.tolerance("float64", program) == execute.TOLERANCES["float32"]
    assert execute.tolerance("int32", program) == (0, 0)

    def declared(a):
        return execute.float_scalars(a.dtype if hasattr(a, "dtype") else a.t)

    only64 = dataclasses.replace(program, args=[a for a in program.args if declared(a) <= {"float64"}])
    assert only64.arrays() and execute.tolerance("float64", only64) == execute.TOLERANCES["float64"]


def test_executed_struct_programs_release_their_modules():
    # Launching with a struct argument puts the struct type into Warp's type-size cache, and the struct refers
    # to its module; release must drop it, or every executed batch with a struct stays alive
    import gc

    from warp._src import context

    programs = [generate(derive_rng(3, "train", i), "struct") for i in range(2)]
    items = [verify.Item(f"struct {i}", p, "", i) for i, p in enumerate(programs)]
    verify.execute_cpu(items, batch_size=2)
    assert all(it.evidence.executed for it in items), [it.evidence.error for it in items]
    gc.collect()
    assert [o.name for o in gc.get_objects() if isinstance(o, context.Module) and o.name.startswith("wcir_cpu_")] == []


def test_kernels_without_an_adjoint_have_no_backward_rows():
    from builder.build_options import BuildOptions
    from builder.sources.drawn.records import generated_rows

    index = next(i for i in range(300) if not sample(23, "train", i, CATEGORIES).program.backward)
    program = sample(23, "train", index, CATEGORIES).program
    assert "@wp.kernel(enable_backward=False)" in program.source

    def built(config):
        opts = BuildOptions(config=config, seed=23, num_train=index + 1, num_validation=0, num_test=0)
        return list(generated_rows(opts, "train", index, index + 1))

    (forward,) = built("cuda-forward")
    assert forward["executed"] and "_cuda_kernel_forward" in forward["ir"]
    assert built("cuda-backward") == []
    with pytest.raises(codegen.WarpRejected):  # Warp emits no adjoint to pair it with
        codegen.emit("x", program.source, "t_no_adjoint", ("cuda-backward",))


def test_tile_units_built_for_their_block_dim_compile_beside_others():
    # A tile kernel's CUDA unit is built for its launch block_dim, so its prologue differs from the shared one
    # (WP_TILE_BLOCK_DIM): it is compiled alone, the other units in a batch, and every row compiles.
    programs = [generate(derive_rng(11, "train", i), "tile") for i in range(3)]
    programs += [sample(11, "train", i, CATEGORIES).program for i in range(3)]
    assert {p.block_dim for p in programs[:3]} - {0}
    items = []
    for i, p in enumerate(programs):
        tu = codegen.emit(f"p{i}", p.source, f"tb_{i}", ("cuda-forward",), block_dim=p.block_dim)["cuda-forward"].tu
        if p.block_dim:
            assert f"#define WP_TILE_BLOCK_DIM {p.block_dim}\n" in tu
        items.append(verify.Item(f"p{i}", p, tu, i))
    verify.compile_cuda(items, batch_size=16)
    assert [it.evidence.error for it in items if not it.evidence.compiled] == []
    assert all(it.evidence.pass_ptx.get("forward") for it in items)


def test_tile_rows_record_the_block_dim_their_units_are_built_for():
    from builder.build_options import BuildOptions
    from builder.sources.drawn.records import generated_rows

    def first(config):
        opts = BuildOptions(config=config, seed=4, num_train=2, num_validation=0, num_test=0, categories=("tile",))
        return next(generated_rows(opts, "train", 0, 2))

    fwd, cpu = first("cuda-forward"), first("cpu")
    assert fwd["block_dim"] in (32, 64) and fwd["block_dim"] == cpu["block_dim"]
    assert f"#define WP_TILE_BLOCK_DIM {fwd['block_dim']}\n" in fwd["module_source"]
    assert "#define WP_TILE_BLOCK_DIM 1\n" in cpu["module_source"]  # Warp builds a CPU launch for one thread
    assert fwd["compiled"] and fwd["executed"] and cpu["executed"]


def test_units_defining_the_same_kernel_never_share_a_compiler_run():
    # two programs (or two shipped modules) may name their kernels alike: concatenated, their extern "C" kernels
    # clash in NVRTC ("more than one instance ... has C linkage"), so batches are disjoint in kernel names too
    code = (
        'extern "C" __global__ void remap_signal_cuda_kernel_forward(\n    int n)\n{\n    if (n) {\n    }\n}\n'
        "static CUDA_CALLABLE wp::float32 helper_0(\n    wp::float32 x)\n{\n}\n"
        "struct Body_1234abcd\n{\n};\n"
        'extern "C" {\nWP_API void remap_signal_cpu_forward(\n    wp::launch_bounds_t dim)\n{\n}\n}\n'
    )
    names = compile_units.defined_names(code)
    assert names == {"remap_signal_cuda_kernel_forward", "helper_0", "Body_1234abcd", "remap_signal_cpu_forward"}
    items = _items("cuda-forward", n=2)
    twin = verify.Item("twin", items[0].program, items[0].tu, 0)
    batches = compile_units.name_disjoint_batches([items[0], twin, items[1]], 16, verify.cuda_symbols)
    assert [len(b) for b in batches] == [2, 1] and twin in batches[1]


def test_ptx_calling_an_internal_function_is_the_same_in_every_build():
    # NVRTC names internal-linkage functions after the translation unit's file name; a real kernel's PTX calls the
    # helpers NVRTC does not inline (newton's sdf_grad, warp's quat_from_euler), so a random file name made those
    # rows' ptx differ between two builds of the same folder
    tu = (
        "namespace { __device__ __noinline__ float helper(float x) { return x * 2.0f + 1.0f; } }\n"
        'extern "C" __global__ void probe_kernel(float* a) { a[threadIdx.x] = helper(a[threadIdx.x]); }\n'
    )
    got = []
    for _ in range(2):
        compile_units.compile_units([tu], "cuda", str, 4, lambda u, ptx: got.append(ptx), pytest.fail, "r")
    assert "_INTERNAL_" in got[0] and "helper" in got[0]  # the call is there, under NVRTC's internal name
    assert got[0] == got[1]


def test_an_evidence_cache_without_a_folder_removes_its_own():
    import gc
    import os

    cache = verify.EvidenceCache(None)
    cache.put("src", "what", {"compiled": True})
    root = cache.root
    assert cache.get("src", "what") == {"compiled": True} and os.path.isdir(root)
    del cache
    gc.collect()
    assert not os.path.exists(root)


def test_a_launch_bounded_kernel_is_batched_under_its_own_name():
    # Warp writes `extern "C" __launch_bounds__(256) __global__ void k_cuda_kernel_forward(` for a kernel declared
    # with launch_bounds; read as the name `__launch_bounds__`, every such unit clashed with every other and was
    # compiled alone
    found = []
    for index in range(240):
        program = sample(5, "train", index, CATEGORIES).program
        if "launch_bounds=" not in program.source:  # @wp.kernel(launch_bounds=256): 3% of kernels (generator 4.3.0)
            continue
        tu = codegen.emit(f"index={index}", program.source, f"lb_{index}", ("cuda-forward",))["cuda-forward"].tu
        if "__launch_bounds__(" in tu:
            found.append(verify.Item(f"index={index}", program, tu, 0))
        if len(found) == 2:
            break
    assert len(found) == 2
    for it in found:
        assert f"{it.program.kernel_name}_cuda_kernel_forward" in verify.cuda_symbols(it)
        assert "__launch_bounds__" not in verify.cuda_symbols(it)
    assert [len(b) for b in compile_units.name_disjoint_batches(found, 16, verify.cuda_symbols)] == [2]


def test_a_kernels_forward_and_backward_rows_share_one_nvrtc_compile(monkeypatch):
    # Warp emits both passes of a kernel into one CUDA unit, so a shipped kernel's cuda-forward and cuda-backward
    # rows hold the same text; compiling it once for each row was half the real build's NVRTC time
    from builder.warp_backend import shipped_compile

    program = next(p for p in (sample(5, "train", i, CATEGORIES).program for i in range(20)) if p.backward)
    units = codegen.emit("index", program.source, "fb_0", ("cuda-forward", "cuda-backward"))
    tu = units["cuda-forward"].tu
    assert units["cuda-backward"].tu == tu
    entries = [program.kernel_name + verify.CUDA_ENTRIES[p] for p in ("forward", "backward")]
    calls, nvrtc = [], compilers.nvrtc_compile
    monkeypatch.setattr(compilers, "nvrtc_compile", lambda code, name: (calls.append(name), nvrtc(code, name))[1])
    jobs = [shipped_compile.CompileJob("cuda", tu, (entry,)) for entry in entries]
    shipped_compile.compile_jobs(jobs)
    assert len(calls) == 1
    alone = nvrtc(tu, calls[0])  # Warp's NVRTC on the unit by itself, under the same file name
    for job, entry in zip(jobs, entries):
        assert job.compiled and job.ptx == compile_units.ptx_entries(alone, [entry])
        assert job.ptx.count(".entry") == 1 and entry in job.ptx
