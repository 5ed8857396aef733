"""Static checks (with g++'s preprocessor) and pass@k."""

from __future__ import annotations

import pytest

from builder.evaluate import static
from builder.evaluate.scores import pass_at_k
from builder.evaluate.splice import splice

REF = """template <bool wp_linear_contiguous>
static void k_cpu_kernel_forward(
    wp::launch_bounds_t<1> dim,
    size_t task_index,
    wp_args_k *_wp_args)
{
    // body { with a brace in a comment
    const char* s = "}";
    wp::array_store(var_out, var_0, var_1);
}
"""
CUDA = 'extern "C" __global__ void k_cuda_kernel_forward(\n    wp::launch_bounds_t<1> dim)\n{\n    return;\n}\n'


@pytest.mark.parametrize(
    "pred, reason",
    [
        (REF, ""),
        ("  \n" + REF.replace("    ", "  ") + "\n\n", ""),
        ("/* a comment first */\n" + REF, ""),
        ("", "static: empty"),
        ("#include <cstdio>\n" + REF, "static: #include"),
        ("#define wp_args_k int\n" + REF, "static: preprocessor directive"),
        (REF.replace("    const char", '    asm volatile("nop");\n    const char'), "static: inline asm"),
        (REF.replace("    const char", '    __asm__("");\n    const char'), "static: inline asm"),
        (REF + 'extern "C" void leak() {}\n', 'static: extra extern "C"'),
        (REF + "static int extra() { return 0; }\n", "static: not exactly one function definition"),
        ("int x;\n" + REF, "static: not exactly one function definition"),
        (REF.rstrip()[:-1], "static: not exactly one function definition"),
        (
            REF.replace("k_cpu_kernel_forward", "other_cpu_kernel_forward"),
            "static: signature differs from the reference",
        ),
        (REF.replace("size_t task_index", "int task_index"), "static: signature differs from the reference"),
        (REF.replace("template <bool wp_linear_contiguous>\n", ""), "static: signature differs from the reference"),
        # what the preprocessor would act on, however it is spelled
        (REF.replace("    const char", "    x = 1; #define y\n    const char"), "static: preprocessor directive"),
        (REF.replace("    const char", "    %:define E(x) extern x\n    const char"), "static: digraph"),
        (REF.replace("    wp::array_store", "    %>\n    <%\n    wp::array_store"), "static: digraph"),
        (REF.replace("var_out, var_0", "var_out<:0:>, var_0"), "static: digraph"),
        (REF.replace("    const char", "    ??=define E extern\n    const char"), "static: trigraph"),
        (
            REF.replace("    const char", '    _Pragma("GCC poison x")\n    const char'),
            "static: changed by the preprocessor",
        ),
        (REF.replace("var_1);", "var_1 + __LINE__);"), "static: changed by the preprocessor"),
        (REF.replace("var_1);", "var_1 + __cplusplus);"), "static: changed by the preprocessor"),
        (REF.replace("var_out, var_0", "var_out, va\\\nr_0"), "static: changed by the preprocessor"),
        (REF.replace("var_1);", "var_1 + __has_include(<x>));"), "static: rejected by the preprocessor"),
        # spellings that only look like the above stay allowed
        (REF.replace('"}"', '"<% #define"'), ""),
        (REF.replace('"}"', '"??="'), "static: trigraph"),  # some compilers replace them even in literals
        (REF.replace("var_out, var_0", "var_out, ::wp::f<::wp::float32>(var_0)"), ""),
    ],
)
def test_check(pred, reason):
    assert static.check(pred, REF) == reason


def test_cuda_signature_keeps_its_one_extern_c():
    assert static.check(CUDA, CUDA) == ""
    assert static.check(CUDA.replace('extern "C" ', ""), CUDA) == "static: signature differs from the reference"
    assert static.check(CUDA + 'extern "C" void f() {}', CUDA) == 'static: extra extern "C"'


def test_exact_match_key_ignores_whitespace_only():
    assert static.normalize_whitespace("a  +\n\tb ") == "a + b" != static.normalize_whitespace("a+b")


def test_splice_replaces_the_one_reference():
    tu = "head\n" + REF + "tail\n"
    assert splice(tu, REF, "NEW") == "head\nNEW\ntail\n"
    with pytest.raises(ValueError, match="2 times"):
        splice(tu + REF, REF, "NEW")


def test_pass_at_k_unbiased_estimator():
    assert pass_at_k(1, 1, 1) == 1.0 and pass_at_k(1, 0, 1) == 0.0
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(6, 2, 5) == 1.0  # any 5 of 6 include one of the 2 right ones
    assert pass_at_k(7, 2, 5) == pytest.approx(1 - 1 / 21)
    with pytest.raises(ValueError, match="k <= n"):
        pass_at_k(3, 1, 5)
