"""Seeded edits that break a working kernel the way people break kernels, for Warp to reject and explain.

Each kind lists the sites of a kernel where it applies (``sites``) and the edit it makes at one (``break_at``);
``candidates`` draws one site per kind, the kinds in a seeded order, and the source (``builder.sources.repair``)
keeps the first broken kernel Warp rejects. Edits are made at syntax-tree positions (``builder.derive.edits``), so
the rest of the kernel stays byte for byte as it was and the diff from broken to fixed is the edit alone. Pure
Python: nothing here imports Warp, which alone decides whether an edit broke the kernel.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from builder.derive.edits import Edit, Source, kernel_def, wp_call

Site = ast.AST


@dataclass(frozen=True)
class Mutation:
    kind: str
    broken_source: str


def _body_nodes(kernel: ast.FunctionDef) -> Iterator[ast.AST]:
    for stmt in kernel.body:
        yield from ast.walk(stmt)


def _docstring(kernel: ast.FunctionDef) -> ast.stmt | None:
    first = kernel.body[0] if kernel.body else None
    is_doc = (
        isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    )
    return first if is_doc else None


def _params(kernel: ast.FunctionDef) -> list[ast.arg]:
    return [*kernel.args.posonlyargs, *kernel.args.args, *kernel.args.kwonlyargs]


def _arrays(kernel: ast.FunctionDef) -> set[str]:
    """Parameters annotated as arrays (``wp.array``, ``wp.array2d[...]``, ``wp.indexedarray`` ...)."""
    return {a.arg for a in _params(kernel) if a.annotation is not None and "array" in ast.unparse(a.annotation)}


def _locals(kernel: ast.FunctionDef) -> set[str]:
    out = {a.arg for a in _params(kernel)}
    for n in _body_nodes(kernel):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
    return out


def _module_funcs(tree: ast.Module) -> set[str]:
    return {
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and any(ast.unparse(d).endswith("func") for d in n.decorator_list)
    }


def _typo(rng: random.Random, name: str, taken: set[str]) -> str | None:
    """A misspelling of ``name`` no other name of the source has: two letters swapped, one dropped or doubled."""
    options = []
    for k in range(len(name) - 1):
        if name[k] != name[k + 1]:
            options.append(name[:k] + name[k + 1] + name[k] + name[k + 2 :])
    if len(name) > 2:
        options += [name[:k] + name[k + 1 :] for k in range(1, len(name))]
    options += [name[: k + 1] + name[k] + name[k + 1 :] for k in range(len(name))]
    options = [o for o in dict.fromkeys(options) if o.isidentifier() and o not in taken and o != name]
    return rng.choice(options) if options else None


def _indent(src: Source, stmt: ast.stmt) -> str:
    line = src.lines[stmt.lineno - 1]
    return line[: len(line) - len(line.lstrip())]


def _simple_statements(kernel: ast.FunctionDef) -> list[ast.stmt]:
    """Statements on lines of their own that a construct can wrap: assignments and calls, at any depth."""
    doc = _docstring(kernel)
    return [
        n
        for n in _body_nodes(kernel)
        if isinstance(n, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Expr) and n is not doc
    ]


# --- the kinds: sites(src, kernel) and break_at(rng, src, kernel, site) -> Edit | None ---------------------------


def _undefined_name_sites(src: Source, kernel: ast.FunctionDef) -> list[Site]:
    own = _locals(kernel)
    return [n for n in _body_nodes(kernel) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in own]


def _undefined_name(rng: random.Random, src: Source, kernel: ast.FunctionDef, site: ast.Name) -> Edit | None:
    taken = {n.id for n in ast.walk(src.tree) if isinstance(n, ast.Name)} | _module_funcs(src.tree)
    typo = _typo(rng, site.id, taken | {"wp", "warp", "range", "int", "float", "len", "min", "max", "abs"})
    return Edit(*src.span(site), typo) if typo else None


def _unknown_builtin_sites(src: Source, kernel: ast.FunctionDef) -> list[Site]:
    return [n for n in _body_nodes(kernel) if wp_call(n) and len(wp_call(n)) > 3]


def _unknown_builtin(rng: random.Random, src: Source, kernel: ast.FunctionDef, site: ast.Call) -> Edit | None:
    typo = _typo(rng, site.func.attr, set())
    if typo is None:
        return None
    start, _ = src.span(site.func)
    return Edit(start, start + len("wp.") + len(site.func.attr), f"wp.{typo}")


def _builtin_arity_sites(src: Source, kernel: ast.FunctionDef) -> list[Site]:
    return [n for n in _body_nodes(kernel) if wp_call(n) and n.args and not n.keywords]


def _arity(rng: random.Random, src: Source, kernel: ast.FunctionDef, site: ast.Call) -> Edit | None:
    """One argument dropped (the last) or one repeated (the last, again)."""
    last = site.args[-1]
    if rng.random() < 0.5 and len(site.args) > 1:
        _, end = src.span(site.args[-2])
        return Edit(end, src.span(last)[1], "")
    _, end = src.span(last)
    return Edit(end, end, f", {src.segment(last)}")


def _function_arity_sites(src: Source, kernel: ast.FunctionDef) -> list[Site]:
    funcs = _module_funcs(src.tree)
    return [
        n
        for n in _body_nodes(kernel)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in funcs and n.args
    ]


def _literal_type_sites(src: Source, kernel: ast.FunctionDef) -> list[Site]:
    return [
        n
        for n in _body_nodes(kernel)
        if isinstance(n, ast.Constant) and type(n.value) is float and float(n.value).is_integer()
    ]


def _literal_type(rng: random.Random, src: Source, kernel: ast.FunctionDef, site: ast.Constant) -> Edit | None:
    """A float literal written as an integer (``2.0`` -> ``2``): Warp does not convert between scalar types."""
    return Edit(*src.span(site), str(int(site.value)))


def _array_subscripts(kernel: ast.FunctionDef) -> list[ast.Subscript]:
    arrays = _arrays(kernel)
    return [
        n
        for n in _body_nodes(kernel)
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in arrays
    ]


def _index_count(rng: random.Random, src: Source, kernel: ast.FunctionDef, site: ast.Subscript) -> Edit | None:
    """An index dropped from a multi-dimensional access, or one added to any."""
    index = site.slice
    if isinstance(index, ast.Tuple) and len(index.elts) > 1 and rng.random() < 0.5:
        _, end = src.span(index.elts[-2])
        return Edit(end, src.span(index.elts[-1])[1], "")
    _, end = src.span(index)
    return Edit(end, end, ", 0")


def _index_type(rng: random.Random, src: Source, kernel: ast.FunctionDef, site: ast.Subscript) -> Edit | None:
    """An index converted to a float, as a kernel that computes positions in floating point does by mistake."""
    index = site.slice
    elts = index.elts if isinstance(index, ast.Tuple) else [index]
    chosen = rng.choice(elts)
    if isinstance(chosen, ast.Slice):
        return None
    return Edit(*src.span(chosen), f"float({src.segment(chosen)})")


def _construct(rng: random.Random, src: Source, kernel: ast.FunctionDef, site: ast.stmt) -> Edit | None:
    """A Python construct Warp does not compile in a kernel: the statement in a ``try``, its value in a
    ``lambda``, or a ``del`` after it."""
    pad = _indent(src, site)
    start, end = src.line_span(site)
    lines = src.text[start:end]
    choice = rng.choice(("try", "lambda", "del"))
    if choice == "lambda" and isinstance(site, ast.Assign | ast.AugAssign) and site.value is not None:
        return Edit(*src.span(site.value), f"(lambda: {src.segment(site.value)})()")
    targets = [t for t in getattr(site, "targets", [getattr(site, "target", None)]) if isinstance(t, ast.Name)]
    if choice == "del" and targets:
        return Edit(end, end, f"{pad}del {targets[0].id}\n")
    body = "".join(f"    {line}" if line.strip() else line for line in lines.splitlines(True))
    return Edit(start, end, f"{pad}try:\n{body}{pad}except Exception:\n{pad}    pass\n")


def _missing_annotation_sites(src: Source, kernel: ast.FunctionDef) -> list[Site]:
    return [a for a in _params(kernel) if a.annotation is not None]


def _missing_annotation(rng: random.Random, src: Source, kernel: ast.FunctionDef, site: ast.arg) -> Edit | None:
    start, _ = src.span(site)
    return Edit(start, src.span(site.annotation)[1], site.arg)


def _kernel_return_sites(src: Source, kernel: ast.FunctionDef) -> list[Site]:
    own = _locals(kernel) - {a.arg for a in _params(kernel)}
    return [
        n
        for n in kernel.body
        if isinstance(n, ast.Assign) and {t.id for t in n.targets if isinstance(t, ast.Name)} & own
    ]


def _kernel_return(rng: random.Random, src: Source, kernel: ast.FunctionDef, site: ast.Assign) -> Edit | None:
    """The kernel returns a value it computed instead of writing it to an output array."""
    _, end = src.line_span(kernel.body[-1])
    name = next(t.id for t in site.targets if isinstance(t, ast.Name))
    return Edit(end, end, f"{_indent(src, kernel.body[-1])}return {name}\n")


def _array_rebind_sites(src: Source, kernel: ast.FunctionDef) -> list[Site]:
    stores = {id(n) for n in _array_subscripts(kernel) if isinstance(n.ctx, ast.Store)}
    return [n for n in _body_nodes(kernel) if isinstance(n, ast.Assign) and any(id(t) in stores for t in n.targets)]


def _array_rebind(rng: random.Random, src: Source, kernel: ast.FunctionDef, site: ast.Assign) -> Edit | None:
    """An element store written as an assignment to the whole array (``out[i] = v`` -> ``out = v``)."""
    target = next(t for t in site.targets if isinstance(t, ast.Subscript))
    return Edit(*src.span(target), target.value.id)


Sites = Callable[[Source, ast.FunctionDef], list[Site]]
Breaker = Callable[[random.Random, Source, ast.FunctionDef, Site], Edit | None]

# kind -> (where it applies, the edit at one site); the order is the one kinds are listed in (the draw shuffles it)
KINDS: dict[str, tuple[Sites, Breaker]] = {
    "undefined_name": (_undefined_name_sites, _undefined_name),
    "unknown_builtin": (_unknown_builtin_sites, _unknown_builtin),
    "builtin_arity": (_builtin_arity_sites, _arity),
    "function_arity": (_function_arity_sites, _arity),
    "literal_type": (_literal_type_sites, _literal_type),
    "index_count": (lambda src, k: list(_array_subscripts(k)), _index_count),
    "index_type": (lambda src, k: list(_array_subscripts(k)), _index_type),
    "unsupported_construct": (lambda src, k: _simple_statements(k), _construct),
    "missing_annotation": (_missing_annotation_sites, _missing_annotation),
    "kernel_return": (_kernel_return_sites, _kernel_return),
    "array_rebind": (_array_rebind_sites, _array_rebind),
}


def candidates(rng: random.Random, source: str, kernel_name: str) -> list[Mutation]:
    """One broken kernel per kind that applies, the kinds in an order drawn from ``rng`` (each kind's site too):
    a pure function of the RNG's state, the source and the kernel's name."""
    src = Source(source)
    kernel = kernel_def(src.tree, kernel_name)
    if kernel is None:
        return []
    kinds = list(KINDS)
    rng.shuffle(kinds)
    out = []
    for kind in kinds:
        sites, breaker = KINDS[kind]
        found = sites(src, kernel)
        if not found:
            continue
        edit = breaker(rng, src, kernel, found[rng.randrange(len(found))])
        if edit is None:
            continue
        broken = src.apply([edit])
        if broken != source:
            out.append(Mutation(kind, broken))
    return out
