"""What a shipped kernel's source needs to stand alone, read from the live kernel: the values of the names it reads
from its closure or its module (``bindings``, ``value_expr``), the names its module's ``import *`` brings
(``star_bound``), the names its annotations use as dtypes (``annotation_names``), and, for a generic kernel its
package never instantiates, an instance to declare (``derive_overload``). ``shipped_import`` calls these in the
child process that imported the module; ``builder.shipped.extract`` writes the source from their answers.
"""

from __future__ import annotations

import sys

from builder.errors import WarpRejected
from builder.warp_backend import codegen

_ANY_CHOICES = ("wp.float32", "wp.array(dtype=wp.float32)", "wp.array(dtype=wp.vec3)", "wp.vec3")
_DTYPE_CHOICES = ("wp.float32", "wp.vec3", "wp.mat33")


def derive_overload(kernel, struct_instances: tuple[tuple[str, str], ...] = ()) -> str:
    """Declare an instance of a generic kernel its package never instantiates (only for packages used for
    training: ``Package.use``) and return the declaration as source, or "" when Warp generates code for none.

    A generic kernel has no code until it is given types; its package instantiates it at launch with whatever
    arrays it is handed. The instance made here: ``typing.Any`` becomes ``wp.float32``, an array of ``Any`` an
    array of ``wp.float32`` of the same dimension, an array of float vectors of any length one of ``wp.vec3``, and
    an ``Any`` parameter that ``struct_instances`` names (``Package.struct_instances``) the struct the package's
    own dispatch passes there. Where Warp rejects that, the other ``_ANY_CHOICES`` (for every other bare ``Any`` at
    once) and ``_DTYPE_CHOICES`` (for every array of ``Any`` at once) are tried in order, and the first Warp
    generates code for is kept. The declaration, ``wp.overload(kernel, {name: type, ...})``, is what the package
    would write, so it goes into the row's source (``_one_kernel``) and the fidelity reference runs it
    (``builder.warp_backend.public``). An instance Warp cannot generate code for is taken back.
    """
    import fnmatch
    import itertools
    import typing

    import warp as wp
    from warp._src import types as t
    from warp._src.codegen import Struct

    namespace = {"wp": wp, **kernel.func.__globals__}
    fixed, any_args, array_args = {}, [], {}  # name -> spelled type; bare Any; array of Any -> its ndim
    for a in kernel.adj.args:
        if not t.type_is_generic(a.type):
            continue
        struct = next((name for pat, name in struct_instances if fnmatch.fnmatchcase(a.label, pat)), None)
        if a.type is typing.Any and struct is not None:
            if not isinstance(namespace.get(struct), Struct):
                return ""  # the module does not see that struct by that name: the declaration could not run there
            fixed[a.label] = struct
        elif a.type is typing.Any:
            any_args.append(a.label)
        elif t.is_array(a.type) and type(a.type) is t.array and a.type.dtype is typing.Any:
            array_args[a.label] = a.type.ndim
        elif t.is_array(a.type) and type(a.type) is t.array and t.type_is_vector(a.type.dtype):
            fixed[a.label] = f"wp.array(dtype=wp.vec3, ndim={a.type.ndim})"
        else:
            return ""
    tries = itertools.product(_ANY_CHOICES if any_args else ("",), _DTYPE_CHOICES if array_args else ("",))
    for any_type, dtype in tries:
        chosen = {**fixed, **dict.fromkeys(any_args, any_type)}
        chosen |= {k: f"wp.array(dtype={dtype}, ndim={nd})" for k, nd in array_args.items()}
        spelled = {a.label: chosen[a.label] for a in kernel.adj.args if a.label in chosen}  # argument order
        concrete = {k: eval(v, namespace) for k, v in spelled.items()}  # noqa: S307 - the spellings above
        try:
            inst = wp.overload(kernel, concrete)
        except (TypeError, RuntimeError):
            continue
        try:  # Warp type-checks the body only when it generates code: a float32 that is really a struct fails here
            codegen.emit_kernel(f"{kernel.key} (derived instance)", inst, ("cpu",))
        except WarpRejected:
            del kernel.overloads[inst.sig]
            continue
        types = ", ".join(f'"{k}": {v}' for k, v in spelled.items())
        return f"wp.overload({kernel.func.__name__}, {{{types}}})"
    return ""


def bindings(func, names: tuple[str, ...]) -> dict[str, str]:
    """Python expressions for the values ``func`` sees under ``names`` (its closure, then its globals), for the
    values that have one: literals and Warp's scalar, vector, matrix, quaternion and transform types."""
    from warp._src.codegen import get_closure_vars

    # what Warp resolves a free name from; then names only annotations read (evaluated once, at definition)
    scope = func.__globals__ | get_closure_vars(func) | annotation_names(func)
    out = {}
    for name in names:
        if name not in scope:
            continue
        expr = value_expr(scope[name])
        if expr is not None:
            out[name] = expr
    return out


def star_bound(func, modules: list[str], names: tuple[str, ...]) -> frozenset[str]:
    """The ``names`` that one of ``modules`` (a module's ``from M import *`` targets) binds, by ``import *``'s own
    rule (``__all__``, else every name without a leading underscore), to the very object ``func`` sees: a source
    that keeps those imports resolves them as the module did. Any other unresolved name stays unresolved."""
    seen = func.__globals__
    out = set()
    for name in modules:
        mod = sys.modules.get(name)
        if mod is None:
            continue
        public = getattr(mod, "__all__", None)
        for n in names:
            if n not in seen or (n not in public if public is not None else n.startswith("_")):
                continue
            if getattr(mod, n, _MISSING) is seen[n]:
                out.add(n)
    return frozenset(out)


_MISSING = object()


def annotation_names(func) -> dict:
    """Names an argument annotation reads as its dtype (``wp.array2d[wp_type]``, ``wp.array(dtype=T)``), mapped to
    the dtype of the evaluated annotation: a factory's local used only in annotations is no closure variable."""
    import ast
    import inspect
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return {}
    node = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)), None)
    if node is None:
        return {}
    out = {}
    for arg in node.args.args:
        ann, value = arg.annotation, func.__annotations__.get(arg.arg)
        dtype = getattr(value, "dtype", None)
        if ann is None or dtype is None:
            continue
        if isinstance(ann, ast.Subscript) and isinstance(ann.slice, ast.Name):
            out[ann.slice.id] = dtype
        elif isinstance(ann, ast.Call):
            for kw in ann.keywords:
                if kw.arg == "dtype" and isinstance(kw.value, ast.Name):
                    out[kw.value.id] = dtype
    return out


def value_expr(value) -> str | None:
    import warp as wp
    from warp._src import types as t

    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if not isinstance(value, type):
        return None
    public = getattr(wp, getattr(value, "__name__", ""), None)
    if public is value:
        return f"wp.{value.__name__}"
    for name in ("vec2", "vec3", "vec4", "mat22", "mat33", "mat44", "quat", "transform", "spatial_vector"):
        if getattr(wp, name) is value:
            return f"wp.{name}"
    scalar = getattr(value, "_wp_scalar_type_", None)
    dtype = value_expr(scalar) if scalar is not None else None
    if dtype is None:
        return None
    if t.type_is_quaternion(value):
        return f"wp.types.quaternion(dtype={dtype})"
    if t.type_is_transformation(value):
        return f"wp.types.transformation(dtype={dtype})"
    if t.type_is_matrix(value):
        return f"wp.types.matrix(shape={tuple(value._shape_)!r}, dtype={dtype})"
    if t.type_is_vector(value):
        return f"wp.types.vector(length={value._length_}, dtype={dtype})"
    return None
