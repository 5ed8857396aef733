import ast
import io
import keyword
import re
import tokenize

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builder.configs import UNITS
from builder.grammar.generator import alone, generate, in_module
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
from builder.grammar.sample import STORE_DRAWS, sample
from builder.rng import derive_rng
from builder.sources.drawn.records import emitted_configs
from builder.warp_backend import codegen


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_every_category_generates_and_codegens_for_all_targets(seed):
    for category in CATEGORIES:
        p = generate(derive_rng(seed, "train", 0), category)
        ast.parse(p.source)
        if not p.backward:  # @wp.kernel(enable_backward=False): Warp emits no adjoint, and there is no row for it
            with pytest.raises(codegen.WarpRejected):
                codegen.emit(f"seed={seed} {category}", p.source, f"t_{category}_b", ("cuda-backward",))
        e = codegen.emit(f"seed={seed} {category}", p.source, f"t_{category}", emitted_configs(p, tuple(UNITS)))
        assert f"{p.kernel_name}_cuda_kernel_forward(" in e["cuda-forward"].ir
        assert f"{p.kernel_name}_cpu_kernel_forward(" in e["cpu"].ir
        if p.backward:
            assert f"{p.kernel_name}_cuda_kernel_backward(" in e["cuda-backward"].ir
            assert e["cuda-forward"].tu == e["cuda-backward"].tu  # one CUDA unit, as Warp writes it for a user


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
    assert sum(lines) / len(lines) >= 12
    assert max(lines) >= 25 and min(lines) <= 12
    used = set().union(*(builtins_used(p.source) for p in progs))
    assert len(used) >= 60


def test_normalization_ignores_names_and_literals():
    a = "def f(x):\n    return x * 2.0\n"
    b = "def g(y):\n    return y * 3.5\n"
    c = "def g(y):\n    return y + 3.5\n"
    assert normalized_sha256(a) == normalized_sha256(b) != normalized_sha256(c)


def test_normalization_ignores_layout_so_a_split_does_not_depend_on_it():
    # the same kernel written out as the layout step may write it: one split for all of them
    plain = "@wp.kernel\ndef f(a: wp.array[float], s: float):\n    i = wp.tid()\n    a[i] = s\n"
    laid_out = (
        '@wp.kernel\ndef f(\n    a: wp.array[float],\n    s: float,\n):\n    """Compute a from s."""\n'
        "    i = wp.tid()\n\n    # write the result\n    a[i] = s\n"
    )
    assert normalized_sha256(plain) == normalized_sha256(laid_out) == _sha(_normalized_by_tokenize(laid_out))
    assert normalized_sha256(plain) != normalized_sha256(plain.replace("a[i] = s", "a[i] = s\n    x = 'not a doc'"))


def _sha(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()


def _normalized_by_tokenize(source: str) -> str:
    """The reference the regex tokenizer in builder.grammar.normalize must match: the split partition hashes it.
    Layout is left out: a string statement (a docstring) with its NEWLINE, and a comma before a closing bracket."""
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING)
    toks = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in skip]
    starts = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
    dropped: set[int] = set()
    for n, tok in enumerate(toks):
        nxt = toks[n + 1] if n + 1 < len(toks) else None
        if tok.type == tokenize.STRING and (n == 0 or toks[n - 1].type in starts) and nxt.type == tokenize.NEWLINE:
            dropped |= {n, n + 1}
        if tok.string == "," and nxt is not None and nxt.string in (")", "]"):
            dropped.add(n)
    names: dict[str, str] = {}
    out, prev = [], ""
    for n, tok in enumerate(toks):
        if n in dropped:
            prev = tok.string
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
    # a Normalizer fed in pieces (and copied between them) hashes and tokenizes as the whole: what lets a caller
    # hash a shared prefix once
    for category in CATEGORIES:
        source = generate(derive_rng(seed, "test", index), category).source
        cut = source.index("\n@wp.kernel")
        head = Normalizer().feed(source[:cut])
        whole = head.copy().feed(source[cut:])
        assert whole.hexdigest() == normalized_sha256(source)
        assert whole.tokens() == tokens(source)
        assert builtins_in(whole.tokens()) == builtins_used(source)


def test_a_program_alone_depends_only_on_its_stream_and_in_its_module_is_generates():
    for category in CATEGORIES:
        first = alone(derive_rng(3, "train", 9, 1), category).source
        alone(derive_rng(3, "train", 9, 2), category)
        assert alone(derive_rng(3, "train", 9, 1), category).source == first
        # in its module (siblings drawn from the same stream) it is generate's
        stream = derive_rng(3, "train", 9, 1)
        assert in_module(alone(stream, category), stream).source == generate(_stream(), category).source
    with pytest.raises(KeyError, match="unknown category"):
        alone(derive_rng(0, "train", 0), "nope")


def _stream():
    return derive_rng(3, "train", 9, 1)


def test_a_row_is_the_first_candidate_in_its_partition():
    from builder.schema import SPLITS

    def candidate(index: int, d: int, k: int) -> str:
        stream = derive_rng(4, "validation", index, d) if k == 0 else derive_rng(4, "validation", index, d, k)
        return alone(stream, CATEGORIES[index % len(CATEGORIES)]).own_module

    def in_partition(source: str) -> bool:
        return int(normalized_sha256(source)[:8], 16) % len(SPLITS) == SPLITS.index("validation")

    for index in range(30):
        drawn = sample(4, "validation", index, CATEGORIES)
        # keyed on the program alone (Program.own_module), whatever sibling kernels its module holds
        assert candidate(index, *divmod(drawn.attempt, STORE_DRAWS)) == drawn.program.own_module
        assert not any(in_partition(candidate(index, *divmod(a, STORE_DRAWS))) for a in range(drawn.attempt))
        own = drawn.program.own_module
        assert in_partition(own) and drawn.builtins == builtins_used(own)


def test_policy_validates_itself():
    with pytest.raises(ValueError, match="unknown types"):
        Policy("bad", type_names=("f32", "float128"))
    with pytest.raises(ValueError, match="not a probability"):
        Policy("bad", hoist=1.5)
    with pytest.raises(ValueError, match="unknown idiom"):
        Policy("bad", idiom="nope")
    assert len(POLICIES) >= 16


def _names_read_and_bound(fn: ast.FunctionDef) -> tuple[set[str], list[str]]:
    read = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    bound = [
        t.id
        for node in ast.walk(fn)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.For))
        for t in ast.walk(node.targets[0] if isinstance(node, ast.Assign) else node.target)
        if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)
    ]
    return read, bound


def test_every_local_parameter_field_and_helper_is_used():
    # live by construction: a crude flow-insensitive check (a name bound but never read; a parameter,
    # struct field, helper or constant never referenced); loop counters of wp.static loops are exempt
    for index in range(600):
        category = CATEGORIES[index % len(CATEGORIES)]
        source = generate(derive_rng(77, "train", index), category).source
        tree = ast.parse(source)
        everything = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                read, bound = _names_read_and_bound(node)
                loops = {n.target.id for n in ast.walk(node) if isinstance(n, ast.For)}
                assert not [b for b in bound if b not in read and b not in loops], (category, index, source)
                assert all(a.arg in read for a in node.args.args), (category, index, source)
                if node.decorator_list and ast.unparse(node.decorator_list[0]) == "wp.func":
                    assert node.name in everything or node.name in source.split("def " + node.name)[1], source
            elif isinstance(node, ast.ClassDef):
                assert all(f.target.id in attrs for f in node.body), (category, index, source)
            elif isinstance(node, ast.Assign):
                assert node.targets[0].id in everything, (category, index, source)


def test_none_of_the_old_generator_habits():
    habits = {
        "thread-index filler": re.compile(r"float\(\w+\) \* 0\.01"),
        "clamped neighbour index": re.compile(r"wp\.max\(\w+ - 1, 0\)"),
        "double negative": re.compile(r"- -"),
        "equal clamp bounds": re.compile(r"wp\.clamp\([^,]+, ([-\w.()]+), \1\)"),
        "mixing term": re.compile(r"int\(\w+\[\w+\]\[0\] \* 10\.0\) \* 7"),
    }
    seen = {k: 0 for k in habits}
    shape = 0
    for index in range(500):
        source = generate(derive_rng(5, "train", index), CATEGORIES[index % len(CATEGORIES)]).own_module
        shape += ".shape" in source
        for k, pat in habits.items():
            seen[k] += bool(pat.search(source))
    assert seen == {k: 0 for k in habits} and shape <= 25


def test_no_local_shadows_a_module_level_function_or_struct():
    # Warp resolves calls by name: a parameter called like a @wp.func makes the program invalid
    for index in range(900):
        category = ("function_call", "struct", "tile")[index % 3]
        tree = ast.parse(generate(derive_rng(101, "validation", index), category).source)
        module_names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
            local = {a.arg for a in fn.args.args} | set(_names_read_and_bound(fn)[1])
            assert not local & module_names, (index, category, local & module_names)


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
    # nested constant loops multiply the C++ Warp emits (one program took 84 s of NVRTC under an old budget)
    worst_unrolled = worst_depth = loops = 0

    def walk(node, unrolled, depth):
        nonlocal worst_unrolled, worst_depth, loops
        for child in ast.iter_child_nodes(node):
            u, d = unrolled, depth
            if isinstance(child, (ast.For, ast.While)):
                loops += 1
                trips = _constant_trips(child) if isinstance(child, ast.For) else None
                u, d = unrolled * (trips or 1), depth + 1
            worst_unrolled, worst_depth = max(worst_unrolled, u), max(worst_depth, d)
            walk(child, u, d)

    for index in range(300):
        category = ("loop", "sparse", "pairwise")[index % 3]
        walk(ast.parse(generate(derive_rng(404, "train", index), category).source), 1, 0)
    assert worst_unrolled <= 64 and worst_depth <= 2 and loops >= 200


def test_tile_programs_launch_tiled_with_array_shapes_of_their_own():
    for index in range(40):
        p = generate(derive_rng(9, "train", index), "tile")
        # a tile read from an array, or one the lanes fill (wp.tile of per-lane values, a zero tile scattered into)
        assert p.block_dim in (32, 64) and re.search(r"wp\.tile(_load|_zeros)?\(", p.source)
        assert all(shape for shape in p.arg_shapes() if shape)  # 2-D tiles of their own size


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**31 - 1), index=st.integers(min_value=0, max_value=10**6))
def test_the_liveness_pass_finds_no_dead_assignment_and_no_unused_parameter(seed, index):
    from builder.analysis.liveness import liveness

    for category in CATEGORIES:
        lv = liveness(generate(derive_rng(seed, "train", index), category).source)
        assert lv.assignments > 0 and lv.params > 0
        assert (lv.dead, lv.unused, lv.idle_params) == (0, 0, ()), (seed, index, category, lv)
