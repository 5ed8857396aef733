"""The kernel being written: its arguments, module constants, helpers and body.

Every argument, constant and loaded local is created on demand, by the
expression that reads it, so each one is used by construction: nothing in a
generated module exists unless a store, atomic or return needs it.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from builder.grammar import names as N
from builder.grammar import style
from builder.grammar import wtypes as T
from builder.grammar.odds import Odds
from builder.grammar.policy import Policy
from builder.grammar.program import Param, Program
from builder.grammar.scope import ArrayArg, Frames, Local
from builder.grammar.wtypes import ATOM, E, Interval, WType, lit
from builder.rng import derive_rng

_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
RESERVED = {"wp", "float", "int", "range", "min", "max", "abs", "len", "Any", "return", "for", "in", "if", "and", "or"}
TID_NAMES = {1: (("i",), ("tid",), ("idx",)), 2: (("i", "j"), ("x", "y"), ("row", "col")), 3: (("i", "j", "k"),)}
ROLE_ORDER = {"in": 0, "index": 0, "inout": 0, "out": 1, "acc": 1}


def spell(t: WType, rng: random.Random, odds: Odds) -> str:
    if t == T.F32:
        return "float" if rng.random() < odds.float_plain else "wp.float32"
    if t == T.I32:
        return "int" if rng.random() < odds.int_plain else "wp.int32"
    if t.kind == "vec" and t.scalar == "float32" and rng.random() < odds.vec_suffixed:
        return f"{t.spelling}f"  # wp.vec3f: the same type
    return t.spelling


@dataclass
class ModuleParts:
    """The module around a kernel: the names taken in it and what it declares besides the kernel. The ``@wp.func``
    helpers drawn for a kernel share their kernel's (their names, constants and definitions are the module's)."""

    used: set[str] = field(default_factory=lambda: set(RESERVED))
    consts: dict[str, str] = field(default_factory=dict)  # module constant name -> its line
    options: dict[str, object] = field(default_factory=dict)  # wp.set_module_options({...}) the module states
    chunks: list[str] = field(default_factory=list)  # helper functions, in definition order
    struct_names: list[str] = field(default_factory=list)
    func_names: list[str] = field(default_factory=list)
    structs: dict[str, dict[str, tuple[WType, Interval]]] = field(default_factory=dict)  # name -> fields
    uses_any: bool = False  # a generic helper's ``Any``: the module imports it from typing


class KernelCtx:
    """The kernel being drawn: its launch, arguments, lines and scopes, and the state of the statement being
    written (loop depth, unrolling, random states); ``mod`` is the module around it."""

    def __init__(self, rng: random.Random, policy: Policy, ndim: int, shape: tuple[int, ...]):
        self.rng, self.p, self.ndim, self.shape = rng, policy, ndim, shape
        self.mod = ModuleParts()
        self.tid = rng.choice(TID_NAMES[ndim])
        self.mod.used.update(self.tid)
        self.own = ", ".join(self.tid)
        self.args: list[ArrayArg | Param] = []
        self.frames = Frames()
        self.guard: list[str] = []  # right after wp.tid(): early exits
        self.loads: list[str] = []  # then the thread's own elements
        self.body: list[str] = []
        self.indent = 1
        self.loaded: dict[str, Local] = {}
        # per-thread inputs each name's value is computed from (arrays, loaded and bound locals, thread ids):
        # two operands computed from the same inputs may cancel (a - a, b / b), whatever their spelling
        # (thread ids are left out: they mostly appear as indices, ``x[i]`` is the array's value)
        self.defs: dict[str, frozenset[str]] = {}
        self.param_struct: tuple[str, str] | None = None  # (struct name, argument name) that holds scalar params
        self.rand_state: str | None = None
        self.noise_state = ""  # one seed for the whole launch: a noise field is the same for every thread
        self.unrolled = 1  # copies of the current statement Warp's loop unrolling makes
        self.loop_depth = 0
        self.block_dim = 0
        self.helper = False  # the body of a @wp.func: reads only its parameters
        self.short = False  # a short kernel (idioms.output_count): one stored value from shallow expressions
        self.style = rng.random() < policy.subscript_annotations  # wp.array[T] rather than wp.array(dtype=T)
        # names draw from a stream derived from this one's state without drawing from it: the same programs
        # come out whatever the names (a Mersenne Twister state's repr is the same on every platform)
        self.namer = N.Namer(derive_rng("names", rng.getstate()), policy.odds)

    # ---------------------------------------------------------------- names and lines
    def fresh(self, stem: str) -> str:
        name, k = stem, 1
        while name in self.mod.used:
            name, k = f"{stem}{k}", k + 1
        self.mod.used.add(name)
        return name

    def atoms(self, code: str) -> frozenset[str]:
        out: set[str] = set()
        for name in _IDENT.findall(code):
            out |= self.defs.get(name, frozenset())
        return frozenset(out)

    def emit(self, line: str) -> None:
        self.body.append("    " * self.indent + line)

    def bind(self, stem: str, e: E, outer: bool = False) -> E:
        """``name = e`` as a new local; the local is what the caller goes on to use."""
        name = self.fresh(self.namer.local(stem))
        self.emit(f"{name} = {e.code}")
        self.defs[name] = self.atoms(e.code)
        self.frames.add(Local(name, e.t, e.iv, e.varies), outer)
        return E(name, e.t, e.iv, e.varies)

    def relaunch(self, shape: tuple[int, ...], tid: tuple[str, ...]) -> None:
        """A tile kernel's own grid and ``wp.tid()`` names (a trailing one is the thread's lane in its block)."""
        self.mod.used.difference_update(self.tid)
        self.shape, self.ndim, self.tid = shape, len(shape), tuple(self.fresh(n) for n in tid)
        self.own = ", ".join(self.tid)

    # ---------------------------------------------------------------- arguments
    def array(self, t: WType, role: str, iv: Interval = (0.0, 0.0), stem: str = "", **kw) -> ArrayArg:
        pool = (N.OUTPUTS if role in ("out",) else N.ARRAYS)[N.kind(t)]
        a = ArrayArg(
            self.fresh(stem or self.namer.argument(self.rng.choice(pool))), t, kw.pop("ndim", self.ndim), role, iv, **kw
        )
        self.args.append(a)
        self.defs[a.name] = frozenset((a.name,))
        return a

    def mark_inout(self, name: str) -> None:
        """An input written back in place."""
        for n, a in enumerate(self.args):
            if isinstance(a, ArrayArg) and a.name == name:
                self.args[n] = ArrayArg(**{**a.__dict__, "role": "inout"})

    def inputs(self, t: WType) -> list[ArrayArg]:
        return [
            a
            for a in self.args
            if isinstance(a, ArrayArg) and a.role in ("in", "inout") and a.dtype == t and not a.shape
        ]

    def param(self, t: WType, iv: Interval, stem: str) -> E:
        """A uniform value: a kernel argument, or a field of the program's parameter struct."""
        if self.param_struct is not None and (t.is_float or t.kind == "vec"):
            sname, arg = self.param_struct
            fname = stem
            fields = self.mod.structs[sname]
            while fname in fields:
                fname += "_"
            fields[fname] = (t, iv)
            return E(f"{arg}.{fname}", t, iv, False)
        if t in (T.F32, T.I32) and self.rng.random() < self.p.odds.param_in_array:
            # a one-element array read at [0]: how real code passes a value the host (or a graph) updates in place
            a = ArrayArg(self.fresh(self.namer.parameter(stem)), t, 1, "in", iv, shape=(1,))
            self.args.append(a)
            return E(f"{a.name}[0]", t, iv, False)
        p = Param(self.fresh(self.namer.parameter(stem)), t, iv)
        self.args.append(p)
        return E(p.name, t, iv, False)

    def params(self, t: WType) -> list[E]:
        out = [E(a.name, a.t, a.iv) for a in self.args if isinstance(a, Param) and a.t == t and a.iv[0] != a.iv[1]]
        if self.param_struct is not None:
            sname, arg = self.param_struct
            out += [E(f"{arg}.{f}", ft, fiv) for f, (ft, fiv) in self.mod.structs[sname].items() if ft == t]
        return out

    def const(self, t: WType, value: float, stem: str) -> E:
        name = self.fresh(stem.upper())
        self.mod.consts[name] = f"{name} = wp.constant({lit(t, value)})"
        return E(name, t, (value, value), False)

    def size_param(self, n: int, stem: str = "n") -> E:
        """An int argument the executor sets to exactly ``n`` (a length the kernel bounds itself by)."""
        p = Param(self.fresh(stem), T.I32, (n, n))
        self.args.append(p)
        return E(p.name, T.I32, (n, n), False)

    def noise(self) -> str:
        """The state wp.noise and wp.curlnoise read, made from a seed argument at the top of the kernel."""
        if not self.noise_state:
            seed = Param(self.fresh("noise_seed"), T.I32, (0, 10000))
            self.args.append(seed)
            self.noise_state = self.fresh("field")
            self.loads.insert(0, f"    {self.noise_state} = wp.rand_init({seed.name})")
        return self.noise_state

    def load(self, a: ArrayArg, index: str = "") -> E:
        """This thread's element of ``a``, loaded once into a local at the top of the kernel."""
        if a.name in self.loaded:
            v = self.loaded[a.name]
            return E(v.name, v.t, v.iv, True)
        stem = a.name.removesuffix("s") if len(a.name) > 3 and a.name.endswith("s") else a.name[:1] + "0"
        name = self.fresh(stem)
        self.loads.append(f"    {name} = {a.name}[{index or self.own}]")
        self.defs[name] = frozenset((a.name,))
        v = self.frames.add(Local(name, a.dtype, a.iv, True), outer=True)
        self.loaded[a.name] = v
        return E(name, a.dtype, a.iv, True)

    # ---------------------------------------------------------------- assembly
    def annotation(self, a: ArrayArg | Param, plain: bool = False) -> str:
        """``a``'s annotation; ``plain``: the grouped house style's (``float``, ``int``, ``wp.array[T]``)."""
        t = a.t if isinstance(a, Param) else a.dtype
        if plain and t.kind != "struct":
            dt = "float" if t == T.F32 else "int" if t == T.I32 else t.spelling
        else:
            dt = spell(t, self.rng, self.p.odds) if t.kind != "struct" else t.spelling
        if isinstance(a, Param):
            return dt
        nd = "" if a.ndim == 1 else f"{a.ndim}d"
        if self.style or plain:
            return f"wp.array{nd}[{dt}]"
        if a.ndim > 1 and self.rng.random() < self.p.odds.array_ndim_keyword:
            return f"wp.array(dtype={dt}, ndim={a.ndim})"
        return f"wp.array{nd}(dtype={dt})"

    def ordered_args(self) -> list[ArrayArg | Param]:
        def key(a):
            return ROLE_ORDER.get(a.role, 2) if isinstance(a, ArrayArg) else 2

        return sorted(self.args, key=key)

    def program(self, category: str, kernel_name: str, decorator: str, backward: bool = True) -> Program:
        args = self.ordered_args()
        odds = self.p.odds
        # layout last: it draws after every statement, so it changes how the kernel is written, never what it does
        grouped = self.rng.random() < odds.signature_groups  # drawn first: the annotations follow the style
        groups = None
        if grouped:  # uniforms first, as the "# Model:" group, then arrays read, then arrays written
            args = sorted(args, key=lambda a: _GROUP_ORDER[_group(a)])
            groups = [_group(a) for a in args]
        params = [f"{a.name}: {self.annotation(a, grouped)}" for a in args]
        sig = style.signature(kernel_name, params, self.rng, odds, groups)
        roles = [(a.name, a.role if isinstance(a, ArrayArg) else "param") for a in args]
        doc = style.docstring(roles, self.rng, odds)
        start = [f"    {self.own} = wp.tid()", *self.guard]
        lines = doc + style.blocks([("start", start), ("loads", self.loads), ("body", self.body)], self.rng, odds)
        kernel = f"{decorator}\n{sig}\n" + "\n".join(lines) + "\n"
        imports = "import warp as wp\n" if not self.mod.uses_any else "from typing import Any\n\nimport warp as wp\n"
        consts = "\n".join(self.mod.consts[c] for c in self.mod.consts)
        if self.mod.options:
            opts = ", ".join(f"{k!r}: {v!r}".replace("'", '"') for k, v in self.mod.options.items())
            consts = f"wp.set_module_options({{{opts}}})\n" + ("\n" + consts if consts else "")
        structs = [
            f"@wp.struct\nclass {s}:\n"
            + "\n".join(f"    {f}: {spell(ft, self.rng, self.p.odds)}" for f, (ft, _) in self.mod.structs[s].items())
            for s in self.mod.struct_names
        ]
        parts = [imports + ("\n" + consts + "\n" if consts else "")] + structs + self.mod.chunks + [kernel]
        source = _two_blank_lines(parts)
        return Program(
            category,
            kernel_name,
            source,
            args,
            self.shape,
            self.mod.structs,
            list(self.mod.func_names),
            list(self.mod.struct_names),
            self.block_dim,
            backward,
        )


_GROUP_ORDER = {"model": 0, "in": 1, "out": 2}


def _group(a: ArrayArg | Param) -> str:
    """The group of a grouped signature an argument belongs to: uniforms, arrays read, arrays written."""
    if isinstance(a, Param):
        return "model"
    return "out" if a.role in ("out", "acc", "inout") else "in"


def _two_blank_lines(parts: list[str]) -> str:
    return "\n\n\n".join(p.strip("\n") for p in parts if p.strip()) + "\n"


def atom(name: str, t: WType, iv: Interval, varies: bool) -> E:
    return E(name, t, iv, varies, ATOM)
