"""State copies through an index list (``dst[idx] = src[idx]``, ``grammar.indexed._copy``) name each element once.

Warp 1.19's adjoint of an array store reads the element's gradient and clears it. Where two threads store one
element, the CPU (threads one after another) gives the gradient to one of them, while on the GPU either may find
it cleared: on an H100, 23 of 1,734 backward comparisons of generator 4.5.0 (all of them such copies) differed by
whole multiples of the gradient. The executor fills a copy's index list with distinct indices (fill
"permutation"), as a selection of bodies or worlds is.
"""

import re

import numpy as np
import pytest

from builder.grammar.sample import sample
from tests.conftest import has_cuda

COPY = re.compile(r"^    (\w+)\[[^\]]*\b(\w+)\] = src_\w+\[", re.M)


def _copy_programs(n: int = 160) -> list:
    cats = ("indexed", "indexed_worlds", "indexed_state")
    return [d.program for i in range(n) if COPY.search((d := sample(0, "train", i, cats)).program.own_source)]


def test_warps_store_adjoint_clears_the_gradient_so_a_shared_index_loses_it():
    # the premise, in Warp itself: two threads copy element 0; the CPU gives its gradient once, not twice
    import warp as wp

    @wp.kernel
    def copy(idx: wp.array[int], src: wp.array[float], dst: wp.array[float]):
        i = wp.tid()
        j = idx[i]
        dst[j] = src[j]

    src = wp.array([1.0, 2.0], dtype=float, requires_grad=True, device="cpu")
    dst = wp.zeros(2, dtype=float, requires_grad=True, device="cpu")
    idx = wp.array([0, 0], dtype=int, device="cpu")
    tape = wp.Tape()
    with tape:
        wp.launch(copy, dim=2, inputs=[idx, src, dst], device="cpu")
    tape.backward(grads={dst: wp.ones(2, dtype=float, device="cpu")})
    assert src.grad.numpy().tolist() == [1.0, 0.0]  # 2.0 if each thread's store passed the gradient on


def test_a_copy_stores_each_element_once():
    from builder.warp_backend import codegen, execute

    programs = _copy_programs()
    assert len(programs) >= 5
    for n, program in enumerate(programs):
        module, (ns,) = codegen.load_sources([(program.kernel_name, program.source)], f"copies_{n}")
        try:
            args, *_ = execute.make_args(program, ns, np.random.default_rng(n), "cpu")
        finally:
            codegen.release(module)
        _, index = COPY.search(program.own_source).groups()
        # the local the copy stores through is read from one index array of the kernel
        source = re.search(rf"^    {index} = (\w+)\[", program.own_source, re.M).group(1)
        (values,) = [a.numpy() for a, spec in zip(args, program.args) if getattr(spec, "name", "") == source]
        assert isinstance(values, np.ndarray) and len(np.unique(values)) == values.size, program.kernel_name


@pytest.mark.gpu
@pytest.mark.skipif(not has_cuda(), reason="no CUDA GPU visible to Warp")
def test_copy_programs_match_the_cpu_on_the_gpu():
    from builder.warp_backend import codegen, verify
    from builder.warp_backend import gpu as gpu_verify

    programs = [p for p in _copy_programs() if p.backward][:12]

    def items(target):
        out = []
        for n, program in enumerate(programs):
            tu = codegen.emit(f"n={n}", program.source, f"cp_{n}", (target,))[target].tu
            out.append(verify.Item(f"n={n}", program, tu, verify.input_seed(0, "train", n)))
        return out

    fwd, bwd = items("cuda-forward"), items("cuda-backward")
    gpu_verify.compare_devices(fwd, {"cuda-forward": fwd, "cuda-backward": bwd})
    assert [it.label for it in fwd + bwd if not it.gpu["gpu_match"]] == []
