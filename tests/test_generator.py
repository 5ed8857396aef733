import ast
import io
import keyword
import tokenize

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builder.grammar.generator import draft, generate
from builder.grammar.normalize import (
    _KEEP,
    Normalizer,
    builtins_in,
    builtins_used,
    normalized,
    normalized_sha256,
    tokens,
)
from builder.grammar.policy import CATEGORIES, POLICIES, Policy
from builder.rng import derive_rng
from builder.warp_backend import codegen


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_every_category_generates_and_codegens_for_all_targets(seed):
    for category in CATEGORIES:
        p = generate(derive_rng(seed, "train", 0), category)
        ast.parse(p.source)
        e = codegen.emit(f"seed={seed} {category}", p.source, f"t_{category}")
        assert f"{p.kernel_name}_cuda_kernel_forward(" in e["cuda-forward"].ir
        assert f"{p.kernel_name}_cuda_kernel_backward(" in e["cuda-backward"].ir
        assert f"{p.kernel_name}_cpu_kernel_forward(" in e["cpu"].ir
        assert e["cuda-forward"].tu != e["cuda-backward"].tu


def test_same_coordinates_same_program():
    for category in CATEGORIES:
        a = generate(derive_rng(7, "test", 3), category)
        b = generate(derive_rng(7, "test", 3), category)
        assert a.source == b.source and a.launch_shape == b.launch_shape


def test_programs_are_diverse_and_not_tiny():
    progs = [generate(derive_rng(11, "train", i), CATEGORIES[i % len(CATEGORIES)]) for i in range(300)]
    shapes = {normalized_sha256(p.source) for p in progs}
    assert len(shapes) >= 0.95 * len(progs)
    lines = [sum(1 for x in p.source.splitlines() if x.strip()) for p in progs]
    assert sum(lines) / len(lines) >= 15
    assert max(lines) >= 40 and min(lines) <= 15
    used = set().union(*(builtins_used(p.source) for p in progs))
    assert len(used) >= 80


def test_normalization_ignores_names_and_literals():
    a = "def f(x):\n    return x * 2.0\n"
    b = "def g(y):\n    return y * 3.5\n"
    c = "def g(y):\n    return y + 3.5\n"
    assert normalized_sha256(a) == normalized_sha256(b) != normalized_sha256(c)


def _normalized_by_tokenize(source: str) -> str:
    """The reference the regex tokenizer in builder.grammar.normalize must match: the split partition hashes it."""
    names: dict[str, str] = {}
    out, prev = [], ""
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING):
            continue
        text = tok.string
        if tok.type == tokenize.NAME and not keyword.iskeyword(text) and text not in _KEEP and prev != ".":
            text = names.setdefault(text, f"v{len(names)}")
        elif tok.type == tokenize.NUMBER:
            text = "N"
        elif tok.type == tokenize.NEWLINE:
            text = "\n"
        out.append(text)
        prev = tok.string
    return " ".join(out)


_AST_OPERATORS = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "div",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.MatMult: "mul",
    ast.BitAnd: "bit_and",
    ast.BitOr: "bit_or",
    ast.BitXor: "bit_xor",
    ast.LShift: "lshift",
    ast.RShift: "rshift",
    ast.USub: "neg",
    ast.Not: "unot",
    ast.Pow: "pow",
    ast.Invert: "invert",
}


def _builtins_by_ast(source: str) -> list[str]:
    """The reference for builder.grammar.normalize.builtins_used: the same question answered on the syntax tree."""
    found = set()
    for fn in ast.walk(ast.parse(source)):
        if isinstance(fn, ast.FunctionDef):
            for node in (n for stmt in fn.body for n in ast.walk(stmt)):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "wp"
                ):
                    found.add(node.func.attr)
                elif isinstance(node, (ast.BinOp, ast.AugAssign, ast.UnaryOp)):
                    found.add(_AST_OPERATORS.get(type(node.op), ""))
    found.discard("")
    return sorted(found)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**31 - 1), index=st.integers(min_value=0, max_value=10**6))
def test_token_pass_equals_the_tokenize_and_syntax_tree_references(seed, index):
    for category in CATEGORIES:
        source = generate(derive_rng(seed, "validation", index), category).source
        assert normalized(source) == _normalized_by_tokenize(source)
        assert builtins_used(source) == _builtins_by_ast(source)


def test_token_pass_equals_the_references_on_hand_written_edge_cases():
    source = (
        "x = 1\nif x:\n    # comment\n\n        \n    y = (1,\n  2)  # trailing\n"
        "    z = 'a' + r\"b\" + x.real\n\n\nw = 1e-3 + .5 + 3. + 0x1F + 1_000\nv = w ** -2 // 3 @ x"
    )
    assert normalized(source) == _normalized_by_tokenize(source)
    source = (
        "@wp.func\ndef f(a: wp.array(dtype=float), x: float) -> float:\n    y = -x ** 2 + (x - -1.0) * ~3\n"
        "    y -= wp.abs(x) @ 2 if not x else +x\n    return y[1:-1] % 3 // 2 << 1 >> 1 & 1 | 2 ^ 4 / 5\n"
        "\n\nclass S:\n    v: wp.vec3\n"
    )
    assert builtins_used(source) == _builtins_by_ast(source)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**31 - 1), index=st.integers(min_value=0, max_value=10**6))
def test_a_source_fed_in_pieces_hashes_and_tokenizes_as_the_whole(seed, index):
    # records.sample hashes a draft's head once and each candidate ending on a copy; the split partition
    # and the dedup key are only sound if that equals the hash of the whole program
    for category in CATEGORIES:
        body = draft(derive_rng(seed, "test", index), category)
        head = Normalizer().feed(body.head)
        for k in range(3):
            source = body.finish(derive_rng(seed, "test", index, k)).source
            assert source.startswith(body.head + "\n")
            whole = head.copy().feed(source[len(body.head) :])
            assert whole.hexdigest() == normalized_sha256(source)
            assert whole.tokens() == tokens(source)
            assert builtins_in(whole.tokens()) == builtins_used(source)
        assert head.hexdigest() == normalized_sha256(body.head)  # copies left the head untouched


def test_a_draft_finishes_the_same_way_whatever_it_finished_before():
    for category in CATEGORIES:
        body = draft(derive_rng(3, "train", 9), category)
        first = body.finish(derive_rng(3, "train", 9, 1)).source
        other = body.finish(derive_rng(3, "train", 9, 2)).source
        again = body.finish(derive_rng(3, "train", 9, 1)).source
        fresh = draft(derive_rng(3, "train", 9), category).finish(derive_rng(3, "train", 9, 1)).source
        assert first == again == fresh
        assert first.count("\n") == fresh.count("\n")
        assert other.startswith(body.head)


def test_a_row_is_the_first_candidate_in_its_partition():
    from builder.dataset.records import STORE_DRAWS, sample
    from builder.schema import SPLITS

    def candidate(index: int, d: int, k: int) -> str:
        rng = derive_rng(4, "validation", index, d)
        body = draft(rng, CATEGORIES[index % len(CATEGORIES)])
        return body.finish(rng if k == 0 else derive_rng(4, "validation", index, d, k)).source

    def in_partition(source: str) -> bool:
        return int(normalized_sha256(source)[:8], 16) % len(SPLITS) == SPLITS.index("validation")

    for index in range(30):
        drawn = sample(4, "validation", index, CATEGORIES)
        assert candidate(index, *divmod(drawn.attempt, STORE_DRAWS)) == drawn.program.source
        assert not any(in_partition(candidate(index, *divmod(a, STORE_DRAWS))) for a in range(drawn.attempt))
        assert in_partition(drawn.program.source) and drawn.builtins == builtins_used(drawn.program.source)


def test_policy_validates_itself():
    with pytest.raises(ValueError, match="unknown types"):
        Policy("bad", ("f32", "float128"))
    assert len(POLICIES) >= 12


def test_no_local_shadows_a_module_level_function_or_struct():
    # Warp resolves calls by name: a parameter called like a @wp.func makes the program invalid
    for index in range(1500):
        category = ("function_call", "combined", "struct")[index % 3]
        tree = ast.parse(generate(derive_rng(101, "validation", index), category).source)
        module_names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
            local = {a.arg for a in fn.args.args} | {
                t.id
                for node in ast.walk(fn)
                if isinstance(node, ast.Assign)
                for t in node.targets
                if isinstance(t, ast.Name)
            }
            assert not local & module_names, (index, category, local & module_names)


def test_negative_loop_offsets_never_index_below_zero():
    # a stencil counter runs from -r; (i + k) % n is negative in C++ for i < r, so it must be shifted
    import re

    seen = 0
    for index in range(400):
        src = generate(derive_rng(303, "train", index), ("loop", "nested_loop", "combined")[index % 3]).source
        for counter in re.findall(r"for (\w+) in range\(-\d", src):
            for m in re.finditer(rf"\[\(\w+ \+ {counter}( \+ \w+\.shape\[0\])?\) % \w+\.shape\[0\]\]", src):
                seen += 1
                assert m.group(1), (index, m.group(0))
    assert seen > 0


def _constant_trips(loop: ast.For) -> int | None:
    """Trip count of ``for _ in range(<int literals>)``, which Warp unrolls; None for a runtime bound."""
    call = loop.iter
    if not (isinstance(call, ast.Call) and getattr(call.func, "id", "") == "range"):
        return None
    try:
        return len(range(*(ast.literal_eval(a) for a in call.args)))
    except ValueError:
        return None


def test_loops_stay_within_the_unroll_and_depth_budgets():
    # nested constant loops multiply the C++ Warp emits (one program took 84 s of NVRTC before the budget)
    from builder.grammar.stmts import MAX_LOOP_DEPTH, UNROLL_BUDGET

    worst_unrolled = worst_depth = dynamic = 0

    def walk(node, unrolled, depth):
        nonlocal worst_unrolled, worst_depth, dynamic
        for child in ast.iter_child_nodes(node):
            u, d = unrolled, depth
            if isinstance(child, ast.For):
                trips = _constant_trips(child)
                dynamic += trips is None
                u, d = unrolled * (trips or 1), depth + 1
            elif isinstance(child, ast.While):
                d = depth + 1
            worst_unrolled, worst_depth = max(worst_unrolled, u), max(worst_depth, d)
            walk(child, u, d)

    for index in range(300):
        category = ("loop", "nested_loop", "combined")[index % 3]
        walk(ast.parse(generate(derive_rng(404, "train", index), category).source), 1, 0)
    assert worst_unrolled <= UNROLL_BUDGET and worst_depth == MAX_LOOP_DEPTH
    assert dynamic > 50  # runtime-bounded loops are common, not a corner case


def test_fit_keeps_a_range_that_lies_outside_the_target_varying():
    # clamp((-4.81 + tid * 0.01), 0, 1) is 0 for every thread below 481: the row's output was constant
    import random
    from types import SimpleNamespace

    import numpy as np

    from builder.grammar import wtypes as T
    from builder.grammar.exprs import ExprGen
    from builder.grammar.scope import Scope
    from builder.grammar.wtypes import E

    g = ExprGen(random.Random(0), POLICIES["function_call"], Scope(), [], {})
    x = np.linspace(-4.81, -2.26, 256)
    ns = {"wp": SimpleNamespace(clamp=np.clip, float64=np.float64, int32=np.int32), "x": x}
    for t, iv, target in ((T.F32, (-4.81, -2.26), (0.0, 1.0)), (T.F64, (-4.81, -2.26), (-1.0, 1.0))):
        out = eval(g.fit(E("x", t, iv, True), target).code, ns)  # noqa: S307 - our own generated expression
        assert target[0] <= out.min() and out.max() <= target[1] and np.unique(out).size > 100
    ints = np.arange(100, 356)
    out = eval(g.fit(E("x", T.I32, (100, 355), True), (-3, 3)).code, {**ns, "x": ints})  # noqa: S307
    assert out.min() == -3 and out.max() == 3
    # a range mostly inside the target is still clamped, the idiom a Warp user writes
    assert g.fit(E("x", T.F32, (-0.2, 0.9), True), (0.0, 1.0)).code == "wp.clamp(x, 0.0, 1.0)"


def test_stored_value_cannot_cancel_against_an_alias_of_its_own_read():
    # h1 = samples[i]; out[i] = -h1 + samples[i] stored 0 for every thread (default build, generator 1.1.0)
    import random

    import numpy as np

    from builder.grammar import wtypes as T
    from builder.grammar.exprs import ExprGen
    from builder.grammar.scope import ArrayArg, Scope
    from builder.grammar.wtypes import E

    for seed in range(20):
        scope = Scope(tid=("i",))
        scope.arrays.append(ArrayArg("samples", T.F32, 1, "in", (-1.0, 1.0)))
        g = ExprGen(random.Random(seed), POLICIES["arithmetic"], scope, [], {})
        stored = g.strong(E("(-h1)", T.F32, (-1.0, 1.0), True))
        samples = np.random.default_rng(seed).uniform(-1.0, 1.0, 64)
        out = eval(stored.code, {"samples": samples, "i": np.arange(64), "h1": samples})  # noqa: S307
        assert np.unique(out).size == 64, stored.code


def test_comparison_pivot_lies_in_the_operand_range_even_outside_the_literal_window():
    # an int operand in [300, 400] made randint(300, 100) raise (seed=1 train index 374)
    from builder.dataset.records import sample
    from builder.grammar.exprs_scalar import _pivot_window

    assert _pivot_window((300.0, 400.0)) == (300.0, 400.0)
    assert _pivot_window((-900.0, -500.0)) == (-700.0, -500.0)
    assert _pivot_window((-5.0, 500.0)) == (-5.0, 100.0)
    sample(1, "train", 374, CATEGORIES)
