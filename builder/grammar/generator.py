"""Assemble one program: signature, helpers, structs, kernel body, stores.

``draft(rng, category)`` and ``Draft.finish(rng)`` are pure functions of
their RNG streams, so a row is regenerated exactly from (seed, split, index).
"""

from __future__ import annotations

import random

from builder.grammar import names as N
from builder.grammar import wtypes as T
from builder.grammar.exprs import ExprGen, FuncSig
from builder.grammar.policy import POLICIES, Policy
from builder.grammar.program import Param, Program
from builder.grammar.scope import ArrayArg, Scope, Var
from builder.grammar.stmts import Block, StmtGen, emit_atomic
from builder.grammar.wtypes import E, WType

TID_NAMES = {
    1: (("i",), ("tid",), ("idx",)),
    2: (("i", "j"), ("x", "y"), ("row", "col")),
    3: (("i", "j", "k"), ("x", "y", "z")),
}
INPUT_RANGES = {"float": ((-1.0, 1.0), (-2.0, 2.0), (0.1, 2.0), (0.5, 4.0)), "int": ((0, 100), (-50, 50))}
# No atomic_or/and: over many threads they saturate to the same bits in every bin.
ATOMIC_OPS = {"float": ("add", "add", "sub", "max", "min"), "int": ("add", "sub", "max", "min", "xor")}
ATOMIC_INIT = {"add": 0.0, "sub": 0.0, "max": -1.0e6, "min": 1.0e6, "xor": 0.0}


def draft(rng: random.Random, category: str) -> Draft:
    """Everything but the stores, drawn from ``rng``."""
    return _Builder(rng, POLICIES[category]).draft()


def generate(rng: random.Random, category: str) -> Program:
    """A whole program from one stream: the draft, then its stores from the same ``rng``."""
    return draft(rng, category).finish(rng)


def _spell(rng: random.Random, t: WType) -> str:
    """Alternative spellings users write for the same type."""
    if t == T.F32:
        return rng.choice(["float", "wp.float32"])
    if t == T.I32:
        return rng.choice(["int", "wp.int32"])
    return t.spelling


def _iv_for(rng: random.Random, t: WType):
    if t.is_int:
        return (0, 1000) if t == T.U32 else rng.choice(INPUT_RANGES["int"])
    if t.kind in ("quat",):
        return (-1.0, 1.0)
    return rng.choice(INPUT_RANGES["float"])


class _Builder:
    def __init__(self, rng: random.Random, policy: Policy):
        self.rng, self.policy = rng, policy
        self.ndim = rng.choice(policy.dims)
        self.scope = Scope(tid=rng.choice(TID_NAMES[self.ndim]))
        self.scope.vary_source = (f"float({' + '.join(self.scope.tid)}) * 0.01", (0.0, 7.65))
        self.scope.used_names.update({"wp", "float", "int", "range", "min", "max", "abs", "len", *self.scope.tid})
        self.structs: dict[str, dict] = {}
        self.funcs: list[FuncSig] = []
        self.chunks: list[str] = []
        self.args: list = []

    # --------------------------------------------------------------- pieces
    def shape(self) -> tuple[int, ...]:
        r = self.rng
        if self.ndim == 1:
            return (r.choice([32, 48, 64, 96, 128, 256]),)
        if self.ndim == 2:
            return (r.choice([8, 12, 16]), r.choice([8, 16, 24]))
        return (r.choice([4, 6, 8]), r.choice([4, 8]), r.choice([4, 6]))

    def make_struct(self) -> str:
        r = self.rng
        name = self.scope.fresh(r, r.choice(N.STRUCT_NAMES))
        fields: dict[str, tuple[WType, tuple]] = {}
        for fname in sorted(r.sample(N.FIELD_NAMES, r.randint(2, 4)), key=N.FIELD_NAMES.index):
            ft = r.choice([T.F32, T.F32, T.VEC[3], T.I32])
            fields[fname] = (ft, (0, 20) if ft.is_int else r.choice(INPUT_RANGES["float"]))
        self.structs[name] = fields
        body = "\n".join(f"    {f}: {_spell(r, ft)}" for f, (ft, _) in fields.items())
        self.chunks.append(f"@wp.struct\nclass {name}:\n{body}\n")
        return name

    def make_func(self) -> None:
        r, p = self.rng, self.policy
        name = self.scope.fresh(r, r.choice(N.FUNC_NAMES))
        types = [t for t in p.types() if t.kind in ("scalar", "vec", "quat")] or [T.F32]
        # parameters and locals must not shadow the module's other functions and structs
        scope = Scope(
            used_names={
                "wp",
                "float",
                "int",
                "range",
                "min",
                "max",
                "abs",
                name,
                *(f.name for f in self.funcs),
                *self.structs,
            }
        )
        params = []
        for k in range(r.randint(1, 3)):
            t = T.F32 if k == 0 else r.choice(types)  # the first float32 is what "varies" falls back on
            pname = scope.fresh(r, N.stem_for(r, t))
            if t.kind in ("quat", "vec"):
                iv = (-1.0, 1.0)
            else:
                iv = (0, 50) if t.is_int else r.choice(((-10.0, 10.0), (0.0, 1.0)))
            params.append((pname, t, iv))
            scope.add(Var(pname, t, iv, mutable=False, varies=True))
        scope.vary_source = (params[0][0], params[0][2])
        ret = r.choice([t for t in types if t.kind != "quat"] or [T.F32])
        g = ExprGen(r, p, scope, list(self.funcs), self.structs)
        block = Block()
        sg = StmtGen(g, block)
        sg.nesting = max(p.max_nesting - 1, 0)
        for _ in range(r.randint(1, 4)):
            sg.statement()
        e = g.varying(g.gen(ret, p.depth))
        block.emit(f"return {e.code}")
        sig = ", ".join(f"{n}: {_spell(r, t)}" for n, t, _ in params)
        self.chunks.append(f"@wp.func\ndef {name}({sig}) -> {_spell(r, ret)}:\n" + "\n".join(block.lines) + "\n")
        self.funcs.append(FuncSig(name, tuple(params), ret, e.iv))

    def add_array(self, stem_pool, t: WType, role: str, **kw) -> ArrayArg:
        a = ArrayArg(
            self.scope.fresh(self.rng, self.rng.choice(stem_pool)),
            t,
            1 if role == "acc" else self.ndim,
            role,
            kw.pop("iv", (0.0, 0.0)),
            **kw,
        )
        self.args.append(a)
        self.scope.arrays.append(a)
        return a

    def signature(self) -> None:
        r, p = self.rng, self.policy
        data_types = [t for t in p.types()] + ([T.QUAT] if T.QUAT in p.types() else [])
        for _ in range(r.randint(1, 3)):
            t = r.choice(data_types)
            self.add_array(N.INPUT_NAMES, t, "in", iv=_iv_for(r, t))
        if self.ndim == 1 and r.random() < 0.2:
            self.add_array(("nbr", "perm", "lookup", "ids"), T.I32, "index", iv=(0, 1000))
        if p.structs:
            sname = self.make_struct()
            st = T.struct_type(sname, ())
            if r.random() < 0.5:
                self.add_array(N.INPUT_NAMES, st, "in")
            else:
                self.args.append(Param(self.scope.fresh(r, r.choice(("params", "cfg", "mat", "props"))), st, (0, 0)))
        for _ in range(r.randint(0, 2)):
            t = r.choice([T.F32, T.F32, T.F64] if T.F64 in p.types() else [T.F32])
            self.args.append(Param(self.scope.fresh(r, r.choice(N.PARAM_NAMES)), t, r.choice(INPUT_RANGES["float"])))
        if any(self.policy.stmt_weight(k) > 0 for k in ("for", "while")) and r.random() < 0.5:
            self.args.append(Param(self.scope.fresh(r, r.choice(("steps", "iters", "n_sub"))), T.I32, (1, 8)))
            self.scope.int_params = (self.args[-1].name,)
        if p.random:
            self.args.append(Param(self.scope.fresh(r, "seed"), T.I32, (0, 10000)))
        out_types = [t for t in p.types()]
        n_out = r.randint(*p.outputs)
        n_acc = r.randint(*p.accumulators)
        if n_out + n_acc == 0:
            n_out = 1
        for _ in range(n_out):
            self.add_array(N.OUTPUT_NAMES, r.choice(out_types), "out")
        acc_types = [t for t in (T.F32, T.I32, T.VEC[3]) if t in p.types()] or [T.F32]
        for _ in range(n_acc):
            t = r.choice(acc_types)
            op = "add" if t.kind == "vec" else r.choice(ATOMIC_OPS["int" if t.is_int else "float"])
            self.add_array(N.ACC_NAMES, t, "acc", length=r.choice([4, 8, 16]), op=op, init=ATOMIC_INIT[op])

    def annotation(self, a) -> str:
        if isinstance(a, Param):
            return _spell(self.rng, a.t)
        dt = _spell(self.rng, a.dtype)
        if a.ndim == 1:
            return f"wp.array(dtype={dt})"
        return f"wp.array{a.ndim}d(dtype={dt})" if self.rng.random() < 0.6 else f"wp.array(dtype={dt}, ndim={a.ndim})"

    # ---------------------------------------------------------------- kernel
    def draft(self) -> Draft:
        r, p = self.rng, self.policy
        shape = self.shape()
        if p.structs and r.random() < 0.3:
            self.make_struct()
        for _ in range(r.randint(*p.funcs)):
            self.make_func()
        self.signature()
        name = self.scope.fresh(r, N.kernel_name(r))
        g = ExprGen(r, p, self.scope, self.funcs, self.structs)
        block = Block()
        sg = StmtGen(g, block)
        sg.atomic_targets = [a for a in self.scope.arrays if a.role == "acc"]
        tid = self.scope.tid
        block.emit(f"{', '.join(tid)} = wp.tid()")
        for t_ in tid:
            self.scope.add(Var(t_, T.I32, (0, 255), mutable=False, varies=True))
        for a in self.args:
            if isinstance(a, Param):
                self.scope.add(Var(a.name, a.t, a.iv, mutable=False, varies=False))
        if p.random:
            state = self.scope.fresh(r, r.choice(("rng", "state", "rstate")))
            lin = tid[0] if len(tid) == 1 else self.linear_index()
            block.emit(f"{state} = wp.rand_init(seed, {lin})")
            self.scope.rand_state = state
        self.loads(sg)
        for _ in range(r.randint(*p.stmts)):
            if len(block.lines) >= p.max_lines:
                break
            sg.statement()
        sig = ",\n".join(f"    {a.name}: {self.annotation(a)}" for a in self.args)
        self.chunks.append(f"@wp.kernel\ndef {name}(\n{sig},\n):\n" + "\n".join(block.lines))
        head = "import warp as wp\n\n\n" + "\n\n".join(self.chunks)
        return Draft(self, sg, len(block.lines), head, name, shape)

    def linear_index(self) -> str:
        ref = self.scope.arrays[0].name
        tid = self.scope.tid
        if len(tid) == 2:
            return f"{tid[0]} * {ref}.shape[1] + {tid[1]}"
        return f"({tid[0]} * {ref}.shape[1] + {tid[1]}) * {ref}.shape[2] + {tid[2]}"

    def loads(self, sg: StmtGen) -> None:
        own = ", ".join(self.scope.tid)
        for a in self.scope.inputs():
            if a.dtype.kind == "struct":
                v = self.scope.fresh(self.rng, a.dtype.spelling.lower()[:4])
                sg.block.emit(f"{v} = {a.name}[{own}]")
                self.scope.add(Var(v, a.dtype, (0, 0), mutable=False, varies=True))
            elif self.rng.random() < 0.5:
                sg.declare(_own_read(a, own))


class Draft:
    """A program up to its stores: the kernel's last lines, which write the outputs and accumulators.

    ``head`` is the source before them (it ends where a line ends, without the newline). ``finish`` may be
    called again with another RNG: storing draws no new names and only appends lines, so each call starts
    from the same state and gives the program with other stores. Drawing a row uses that to land in its
    split's partition by redrawing a few lines instead of a whole program (records.sample).
    """

    def __init__(self, b: _Builder, sg: StmtGen, body_lines: int, head: str, name: str, shape: tuple[int, ...]):
        self._b, self._sg, self._body_lines = b, sg, body_lines
        self.head, self.kernel_name, self.shape = head, name, shape

    def finish(self, rng: random.Random) -> Program:
        b, sg = self._b, self._sg
        del sg.block.lines[self._body_lines :]
        b.rng = sg.rng = sg.g.rng = rng
        g, own = sg.g, ", ".join(b.scope.tid)
        for a in b.scope.arrays:
            if a.role == "out":
                e = g.strong(g.gen(a.dtype, rng.randint(1, b.policy.depth)))
                sg.block.emit(f"{a.name}[{own}] = {e.code}")
            elif a.role == "acc":
                emit_atomic(sg, a)
        source = self.head + "\n" + "\n".join(sg.block.lines[self._body_lines :]) + "\n"
        return Program(
            b.policy.name,
            self.kernel_name,
            source,
            b.args,
            self.shape,
            b.structs,
            [f.name for f in b.funcs],
            list(b.structs),
        )


def _own_read(a: ArrayArg, own: str) -> E:
    return E(f"{a.name}[{own}]", a.dtype, a.iv, True)
