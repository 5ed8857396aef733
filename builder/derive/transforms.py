"""The transformations a derived kernel is made with: each a pure function of (source, kernel name, RNG) that
returns the changed source, or None where it does not apply to this kernel.

Each changes one thing a written kernel could have been written otherwise, and leaves the rest as written
(``edits``): the names of its parameters, locals and helpers; the order of two independent statements; its
floating-point precision; its float constants; a builtin or operator for another of the same signature; a
one-expression ``@wp.func`` written in place of a call to it; an expression moved out into a ``@wp.func``.
Whether Warp still accepts the result is Warp's to say: the row source emits every variant and counts the ones
Warp rejects, by reason.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import random
import re
from collections.abc import Callable

from builder.derive.edits import Edit, Source, decorator_name, kernel_def, names_in, wp_call

# builtins with the same signatures, either of a pair for the other (Warp's overloads are the same for both)
SWAPS = (("sin", "cos"), ("min", "max"), ("floor", "ceil"), ("atomic_min", "atomic_max"), ("length", "length_sq"))
OPERATOR_SWAPS = {ast.Add: ("+", "-"), ast.Sub: ("-", "+")}  # add and sub: one set of overloads
# calls that change state or read it: a statement holding one keeps its place
IMPURE = re.compile(r"^(atomic_|tile_store|tile_atomic|rand|sample|noise|print|expect|store|mesh_|hash_grid_|bvh_)")
FACTORS = (0.5, 2.0, 0.25, 4.0, 1.5, 0.75)  # what a float constant is scaled by
# float32 types and their float64 / float16 spellings
_VECTORS = ("vec2", "vec3", "vec4", "mat22", "mat33", "mat44", "quat", "transform", "spatial_vector", "spatial_matrix")
PRECISIONS = {
    "float64": {"float32": "float64", **{v: v + "d" for v in _VECTORS}, **{v + "f": v + "d" for v in _VECTORS}},
    "float16": {"float32": "float16", **{v: v + "h" for v in _VECTORS}, **{v + "f": v + "h" for v in _VECTORS}},
}

Transform = Callable[[str, str, random.Random, dict], "str | None"]


def _kernel(src: Source, kernel_name: str) -> ast.FunctionDef:
    node = kernel_def(src.tree, kernel_name)
    if node is None:
        raise ValueError(f"no kernel {kernel_name!r} in the source")
    return node


def _taken(src: Source) -> set[str]:
    """Every name a new identifier must not be: names, attributes, functions, keywords and Python's builtins."""
    out = set(dir(builtins)) | set(keyword.kwlist) | {"wp", "warp", "Any"}
    for n in ast.walk(src.tree):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, ast.alias):
            out.add((n.asname or n.name).split(".")[0])
    return out


def _fresh(rng: random.Random, pool: list[str], taken: set[str]) -> str | None:
    for _ in range(20):
        name = rng.choice(pool)
        if name not in taken:
            taken.add(name)
            return name
    return None


def rename(text: str, kernel_name: str, rng: random.Random, vocab: dict) -> str | None:
    """Rename one to three of the kernel's parameters and locals, or a ``@wp.func`` it calls, with names written
    in ``real``'s train kernels (``vocab``)."""
    src = Source(text)
    kernel = _kernel(src, kernel_name)
    params = [a.arg for a in kernel.args.args]
    stored = {n.id for n in ast.walk(kernel) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    local = sorted(set(params) | stored)
    called = names_in(kernel)
    helpers = [n.name for n in src.tree.body if isinstance(n, ast.FunctionDef) and n is not kernel and n.name in called]
    taken = _taken(src)
    edits: list[Edit] = []
    chosen = rng.sample(local, min(len(local), rng.randint(1, 3))) if local else []
    for old in chosen:
        new = _fresh(rng, vocab["names"], taken)
        if new is None:
            continue
        for n in ast.walk(kernel):
            if isinstance(n, ast.Name) and n.id == old:
                edits.append(Edit(*src.span(n), new))
            elif isinstance(n, ast.arg) and n.arg == old:
                a = src.offset(n.lineno, n.col_offset)
                edits.append(Edit(a, a + len(old), new))
    if helpers and rng.random() < 0.5:
        old = rng.choice(helpers)
        new = _fresh(rng, vocab["functions"], taken)
        if new is not None:
            for n in ast.walk(src.tree):
                if isinstance(n, ast.Name) and n.id == old:
                    edits.append(Edit(*src.span(n), new))
                elif isinstance(n, ast.FunctionDef) and n.name == old:
                    line = src.lines[n.lineno - 1]
                    m = re.compile(rf"def\s+({re.escape(old)})\b").search(line, n.col_offset)
                    if m is None:
                        return None
                    a = src.offset(n.lineno, 0) + m.start(1)
                    edits.append(Edit(a, a + len(old), new))
    return src.apply(edits) if edits else None


def _pure(stmt: ast.stmt) -> bool:
    return not any(
        IMPURE.match(wp_call(n) or getattr(getattr(n, "func", None), "id", "") or "")
        for n in ast.walk(stmt)
        if isinstance(n, ast.Call)
    )


def _simple_assign(stmt: ast.stmt) -> str | None:
    """The name a one-line ``x = ...`` or ``x: T = ...`` assigns, else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return stmt.target.id
    return None


def reorder(text: str, kernel_name: str, rng: random.Random, vocab: dict) -> str | None:
    """Swap two adjacent assignments neither of which reads or writes what the other assigns (no calls that
    change state), each on lines of its own."""
    src = Source(text)
    kernel = _kernel(src, kernel_name)
    pairs = []
    for block in ast.walk(kernel):
        for field in ("body", "orelse"):
            body = getattr(block, field, None)
            if not isinstance(body, list):
                continue
            for a, b in zip(body, body[1:]):
                x, y = _simple_assign(a), _simple_assign(b)
                if not x or not y or x == y or a.end_lineno >= b.lineno or a.col_offset != b.col_offset:
                    continue
                if x in names_in(b) or y in names_in(a) or not (_pure(a) and _pure(b)):
                    continue
                before_a = src.lines[a.lineno - 1][: a.col_offset].strip()
                after_b = src.lines[b.end_lineno - 1].encode()[b.end_col_offset :].decode(errors="replace").strip()
                if before_a or (after_b and not after_b.startswith("#")):
                    continue
                pairs.append((a, b))
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    (a0, a1), (b0, b1) = src.line_span(a), src.line_span(b)
    return src.apply([Edit(a0, a1, text[b0:b1]), Edit(b0, b1, text[a0:a1])])


def precision(text: str, kernel_name: str, rng: random.Random, vocab: dict) -> str | None:
    """Every float32 type of the source to float64 (or float16), with the matching vector, matrix, quaternion and
    transform types; in the kernel and its module's ``@wp.func``s, ``float`` annotations made that type and float
    constants wrapped in it (Warp types a bare ``1.0`` float32, which a float64 value does not mix with)."""
    src = Source(text)
    kernel = _kernel(src, kernel_name)
    target = "float64" if rng.random() < 0.7 else "float16"
    table = PRECISIONS[target]
    edits = []
    for n in ast.walk(src.tree):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "wp" and n.attr in table:
            a, b = src.span(n)
            edits.append(Edit(b - len(n.attr), b, table[n.attr]))
    funcs = [kernel] + [
        n
        for n in src.tree.body
        if isinstance(n, ast.FunctionDef) and any(decorator_name(d) == "func" for d in n.decorator_list)
    ]
    annotations = [a.annotation for f in funcs for a in f.args.args if a.annotation is not None]
    annotations += [f.returns for f in funcs if f.returns is not None]
    for ann in annotations:
        for n in ast.walk(ann):
            if isinstance(n, ast.Name) and n.id == "float":
                edits.append(Edit(*src.span(n), f"wp.{target}"))
    if not edits:
        return None
    inside = {id(n) for ann in annotations for n in ast.walk(ann)}
    for f in funcs:
        for n in ast.walk(f):
            if isinstance(n, ast.Constant) and type(n.value) is float and id(n) not in inside:
                edits.append(Edit(*src.span(n), f"wp.{target}({src.segment(n)})"))
    return src.apply(edits)


def _float_constants(kernel: ast.FunctionDef) -> list[ast.Constant]:
    skip = set()
    for n in ast.walk(kernel):  # an index or a loop bound keeps its value
        if isinstance(n, ast.Subscript):
            skip |= {id(m) for m in ast.walk(n.slice)}
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "range":
            skip |= {id(m) for m in ast.walk(n)}
    for a in kernel.args.args:
        if a.annotation is not None:
            skip |= {id(m) for m in ast.walk(a.annotation)}
    return [
        n
        for n in ast.walk(kernel)
        if isinstance(n, ast.Constant) and type(n.value) is float and n.value != 0.0 and id(n) not in skip
    ]


def constants(text: str, kernel_name: str, rng: random.Random, vocab: dict) -> str | None:
    """Scale one to three of the kernel's nonzero float constants (never an index or a loop bound)."""
    src = Source(text)
    found = _float_constants(_kernel(src, kernel_name))
    if not found:
        return None
    edits = []
    for n in rng.sample(found, min(len(found), rng.randint(1, 3))):
        value = n.value * rng.choice(FACTORS)
        edits.append(Edit(*src.span(n), repr(float(f"{value:.6g}"))))
    return src.apply(edits)


def swap(text: str, kernel_name: str, rng: random.Random, vocab: dict) -> str | None:
    """One builtin call for its pair (``wp.sin`` for ``wp.cos``, ``wp.min`` for ``wp.max``, ...) or one ``+`` for a
    ``-`` (or back): the same signature, another computation."""
    src = Source(text)
    kernel = _kernel(src, kernel_name)
    other = {a: b for pair in SWAPS for a, b in (pair, pair[::-1])}
    sites: list[Edit] = []
    for n in ast.walk(kernel):
        if (name := wp_call(n)) in other:
            a, b = src.span(n.func)
            sites.append(Edit(b - len(name), b, other[name]))
        elif isinstance(n, ast.BinOp) and type(n.op) in OPERATOR_SWAPS:
            old, new = OPERATOR_SWAPS[type(n.op)]
            start, end = src.span(n.left)[1], src.span(n.right)[0]
            gap = text[start:end]
            at = gap.find(old)
            if at >= 0 and gap.count(old) == 1 and "#" not in gap:
                sites.append(Edit(start + at, start + at + 1, new))
    return src.apply([rng.choice(sites)]) if sites else None


def _returned(f: ast.FunctionDef) -> ast.expr | None:
    """What a ``@wp.func`` of one ``return EXPR`` (a docstring allowed) with plain positional parameters returns."""
    body = [s for s in f.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    a = f.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults or a.kw_defaults:
        return None
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return None
    if any(isinstance(n, (ast.Lambda, ast.NamedExpr, ast.comprehension)) for n in ast.walk(body[0].value)):
        return None
    return body[0].value


_ATOMS = (ast.Name, ast.Constant, ast.Attribute, ast.Call, ast.Subscript)


def _plain(node: ast.expr) -> bool:
    """A name, a constant, or an attribute or index of plain parts (``x[i]``, ``p.pos``): read twice, it is the
    same value read twice."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _plain(node.value)
    if isinstance(node, ast.Subscript):
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return _plain(node.value) and all(_plain(p) for p in parts)
    return False


def inline(text: str, kernel_name: str, rng: random.Random, vocab: dict) -> str | None:
    """Write the body of a one-expression ``@wp.func`` in place of one of the kernel's calls to it, its arguments
    for its parameters (the function stays for its other callers): the kernel computes the same value without
    the call. Only where that is the same computation: arguments that change no state, each read once by the
    body unless it is plain (``_plain``), and a body that reads no name the kernel binds."""
    src = Source(text)
    kernel = _kernel(src, kernel_name)
    defined = [n.name for n in src.tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    funcs = {
        f.name: (f, value)
        for f in src.tree.body
        if isinstance(f, ast.FunctionDef)
        and defined.count(f.name) == 1  # an overloaded func: which body a call takes is Warp's to say
        and any(decorator_name(d) == "func" for d in f.decorator_list)
        and (value := _returned(f)) is not None
    }
    # the names the kernel binds (its parameters and locals): a body's free name spelled like one would read it
    bound = {n.id for n in ast.walk(kernel) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    bound |= {a.arg for a in kernel.args.args}
    sites = []
    for call in ast.walk(kernel):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in funcs):
            continue
        f, value = funcs[call.func.id]
        params = [a.arg for a in f.args.args]
        if call.keywords or len(call.args) != len(params) or any(isinstance(a, ast.Starred) for a in call.args):
            continue
        reads = [n for n in ast.walk(value) if isinstance(n, ast.Name)]
        if {n.id for n in reads} - set(params) & bound:
            continue
        uses = {p: sum(n.id == p for n in reads) for p in params}
        if all(_pure(ast.Expr(arg)) and (uses[p] == 1 or _plain(arg)) for p, arg in zip(params, call.args)):
            sites.append((call, value, dict(zip(params, call.args)), reads))
    if not sites:
        return None
    call, value, args, reads = rng.choice(sites)
    start, end = src.span(value)
    out, last = [], start  # the body's text, each parameter it reads written as its argument
    for n in sorted((n for n in reads if n.id in args), key=lambda n: src.span(n)):
        a, b = src.span(n)
        arg = src.segment(args[n.id])
        out += [text[last:a], arg if isinstance(args[n.id], _ATOMS) else f"({arg})"]
        last = b
    out.append(text[last:end])
    return src.apply([Edit(*src.span(call), f"({''.join(out)})")])


def outline(text: str, kernel_name: str, rng: random.Random, vocab: dict) -> str | None:
    """Move the one-line value of an assignment into a new generic ``@wp.func`` (its parameters the locals it
    reads, typed ``Any``) called in its place."""
    src = Source(text)
    kernel = _kernel(src, kernel_name)
    top = {
        t.id
        for s in src.tree.body
        if isinstance(s, (ast.Assign, ast.AnnAssign))
        for t in ast.walk(s)
        if isinstance(t, ast.Name)
    }
    top |= {s.name for s in src.tree.body if isinstance(s, (ast.FunctionDef, ast.ClassDef))}
    top |= {
        (a.asname or a.name).split(".")[0]
        for s in src.tree.body
        if isinstance(s, (ast.Import, ast.ImportFrom))
        for a in s.names
    }
    candidates = []
    for s in ast.walk(kernel):
        if _simple_assign(s) is None or not isinstance(s.value, (ast.BinOp, ast.Call)):
            continue
        value = s.value
        if value.lineno != value.end_lineno or any(isinstance(n, (ast.Subscript, ast.Lambda)) for n in ast.walk(value)):
            continue
        if isinstance(value, ast.Call) and not wp_call(value):
            continue
        free = sorted({n.id for n in ast.walk(value) if isinstance(n, ast.Name)} - top - {"wp"})
        if free and _pure(s) and "wp" in names_in(value) | {"wp"}:
            candidates.append((s, free))
    if not candidates:
        return None
    stmt, free = rng.choice(candidates)
    taken = _taken(src)
    name = _fresh(rng, vocab["functions"], taken)
    if name is None:
        return None
    params = ", ".join(f"{p}: Any" for p in free)
    func = f"@wp.func\ndef {name}({params}):\n    return {src.segment(stmt.value)}\n\n\n"
    first = min([kernel.lineno] + [d.lineno for d in kernel.decorator_list])
    at = src.offset(first, 0)
    edits = [Edit(at, at, func), Edit(*src.span(stmt.value), f"{name}({', '.join(free)})")]
    if not any(
        isinstance(s, ast.ImportFrom) and s.module == "typing" and any(a.name == "Any" for a in s.names)
        for s in src.tree.body
    ):
        imports = [s for s in src.tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        after = src.line_span(imports[-1])[1] if imports else 0
        edits.append(Edit(after, after, "from typing import Any\n"))
    return src.apply(edits)


# the kinds, in the order a variant applies them (names last: every other kind finds the names it was written with)
KINDS: dict[str, Transform] = {
    "constants": constants,
    "swap": swap,
    "reorder": reorder,
    "inline": inline,  # before outline, which would otherwise give it a one-expression func to take back
    "outline": outline,
    "precision": precision,
    "rename": rename,
}
