"""Statement grammar: assignments, updates, branches, loops and atomics.

Loop safety rests on one invariant: a variable's interval ``iv`` is what every
reader assumes, for its whole lifetime. An update either provably keeps the
value inside ``iv`` (clamp, convex blend, min/max with a fitted operand) or
spends a budget: ``v += e`` is allowed only when ``trips * |e|`` still fits,
where ``trips`` is the product of the enclosing loops' worst-case trip counts.

Code size has a budget too: Warp unrolls every ``range`` with constant bounds
(up to ``max_unroll`` = 16 trips), so nested constant loops multiply the
emitted C++ and the compilers' time. ``unrolled`` is the product of the
enclosing constant loops' trip counts; a loop that would push it past
``UNROLL_BUDGET`` gets a runtime bound instead (a parameter or an array
length), which Warp emits as a real loop.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from builder.grammar import wtypes as T
from builder.grammar.exprs import ExprGen
from builder.grammar.names import stem_for
from builder.grammar.scope import Var
from builder.grammar.wtypes import E, WType, fmt_float, lit, mag
from builder.rng import choose

UNROLL_BUDGET = 6
# Warp's adjoint of a runtime-bounded loop replays its body, so the emitted backward code grows
# about threefold per level of loop nesting; two levels keep the largest kernels a few thousand lines.
MAX_LOOP_DEPTH = 2


@dataclass
class Block:
    lines: list[str] = field(default_factory=list)
    indent: int = 1

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)


class StmtGen:
    def __init__(self, g: ExprGen, block: Block):
        self.g = g
        self.rng: random.Random = g.rng
        self.policy = g.policy
        self.scope = g.scope
        self.block = block
        self.trips = 1  # product of enclosing loop trip counts
        self.unrolled = 1  # product of enclosing constant-range (unrolled) loop trip counts
        self.nesting = 0
        self.loops = 0  # enclosing for/while loops
        self.spent: dict[str, float] = {}  # worst-case growth already spent per additive accumulator
        self.atomic_targets: list = []

    # ----------------------------------------------------------- declarations
    def declare(self, e: E, stem: str | None = None, iv=None) -> Var:
        name = self.scope.fresh(self.rng, stem or stem_for(self.rng, e.t))
        code = e.code
        if e.t.kind == "scalar" and code.lstrip("-").replace(".", "", 1).isdigit():
            code = f"{e.t.ctor}({code})"  # a bare literal would be a Warp constant, immutable in loops
        self.block.emit(f"{name} = {code}")
        return self.scope.add(Var(name, e.t, iv or e.iv, True, e.varies, e.ident))

    def declare_accumulator(self, t: WType) -> Var:
        """A loop-carried value with a wide declared range and a zero start."""
        name = self.scope.fresh(self.rng, stem_for(self.rng, t, accumulator=True))
        if t.kind == "scalar":
            init = f"{t.ctor}({'0.0' if t.is_float else '0'})"
        else:
            init = f"{t.spelling}()"
        self.block.emit(f"{name} = {init}")
        bound = T.INT_CAP if t.is_int else T.FLOAT_CAP
        iv = (0, bound) if t == T.U32 else T.sym(bound)
        self.spent[name] = 0.0
        # not "varying" until the loop has added a thread-dependent term (see accumulate)
        return self.scope.add(Var(name, t, iv, True, False))

    # --------------------------------------------------------------- statements
    def statement(self) -> None:
        # a compound statement needs room for its header and a body
        deep = self.nesting < self.policy.max_nesting and len(self.block.lines) + 6 <= self.policy.max_lines
        loop = deep and self.loops < MAX_LOOP_DEPTH
        p = self.policy
        options = [
            (p.stmt_weight("assign"), self.assign),
            (p.stmt_weight("update") if self.updatable() else 0.0, self.update),
            (p.stmt_weight("if") if deep else 0.0, self.if_stmt),
            (p.stmt_weight("for") if loop else 0.0, self.for_stmt),
            (p.stmt_weight("while") if loop else 0.0, self.while_stmt),
            (p.stmt_weight("atomic") if self.atomic_targets else 0.0, self.atomic),
            (p.stmt_weight("struct_local") if self.g.structs else 0.0, self.struct_local),
        ]
        choose(self.rng, options)()

    def local_type(self) -> WType:
        types = [t for t in self.policy.types()]
        return self.rng.choice(types)

    def assign(self) -> None:
        t = self.local_type()
        self.declare(self.g.gen(t, self.rng.randint(1, self.policy.depth)))

    def updatable(self) -> list[Var]:
        return [v for v in self.scope.visible() if v.mutable and v.t.kind in ("scalar", "vec")]

    def update(self) -> None:
        v = self.rng.choice(self.updatable())
        e = self.g.gen(v.t, self.rng.randint(1, self.policy.depth - 1 or 1))
        if e.ident == (v.value or v.name):
            e = self.g.tid_term(v.t)  # v = max(v, v) changes nothing
        v.value = v.name
        spent = self.spent.get(v.name)
        if spent is not None and self.rng.random() < 0.7:
            room = mag(v.iv) - spent
            grow = self.trips * mag(e.iv)
            if e.t.is_int and e.iv[0] < 0 and v.t == T.U32:
                e = None
            if e is not None and grow <= room:
                self.spent[v.name] = spent + grow
                op = "+=" if v.t == T.U32 or self.rng.random() < 0.6 else "-="
                self.block.emit(f"{v.name} {op} {e.code}")
                return
            e = self.g.gen(v.t, 1)
        self.invariant_update(v, e)

    def invariant_update(self, v: Var, e: E) -> None:
        """An update that keeps ``v`` inside its declared interval, however often it runs."""
        e = self.g.fit(e, v.iv)
        rng = self.rng
        if v.t.is_int:
            form = rng.choice(["min", "max", "clamp"])
            if form == "clamp":
                self.block.emit(f"{v.name} = wp.clamp({v.name} + {e.code}, {lit(v.t, v.iv[0])}, {lit(v.t, v.iv[1])})")
            else:
                self.block.emit(f"{v.name} = wp.{form}({v.name}, {e.code})")
            return
        form = rng.choice(["blend", "blend", "clamp", "min", "max"] if v.t.is_float else ["blend"])
        if form == "blend" or v.t.kind == "vec":
            a = rng.choice([0.5, 0.75, 0.9, 0.25])
            self.block.emit(
                f"{v.name} = {v.name} * {lit(v.t, a) if v.t.is_float else fmt_float(a)} + "
                f"{e.code} * {lit(v.t, 1 - a) if v.t.is_float else fmt_float(1 - a)}"
            )
        elif form == "clamp":
            self.block.emit(f"{v.name} = wp.clamp({v.name} + {e.code}, {lit(v.t, v.iv[0])}, {lit(v.t, v.iv[1])})")
        else:
            self.block.emit(f"{v.name} = wp.{form}({v.name}, {e.code})")

    def body(self, lo: int, hi: int, extra=None, acc: Var | None = None) -> None:
        """Run ``lo..hi`` statements one indent deeper in a fresh frame."""
        self.block.indent += 1
        self.nesting += 1
        self.scope.push()
        if extra:
            extra()
        for _ in range(self.rng.randint(lo, hi)):
            self.statement()
        if acc is not None:
            self.accumulate(acc)
            if self.rng.random() < 0.25:  # after the update, so every thread accumulates at least once
                self.block.emit(f"if {self.g.cond(1).code}:")
                self.block.emit(f"    {self.rng.choice(['continue', 'break'])}")
        elif self.rng.random() < 0.7 and self.updatable():
            self.update()
        self.scope.pop()
        self.nesting -= 1
        self.block.indent -= 1

    def if_stmt(self) -> None:
        self.block.emit(f"if {self.g.cond(2).code}:")
        self.body(1, 2)
        r = self.rng.random()
        if r < 0.3:
            self.block.emit(f"elif {self.g.cond(1).code}:")
            self.body(1, 2)
        if r < 0.75:
            self.block.emit("else:")
            self.body(1, 2)

    def loop_range(self) -> tuple[str, int, tuple[int, int], bool] | None:
        """(range code, worst-case trips, counter interval, unrolled by Warp), or None if no loop fits."""
        rng = self.rng
        steps = [v for v in self.scope.visible() if v.name in self.scope.int_params]
        arrays = self.scope.arrays
        dynamic = (["param"] if steps else []) + (["shape"] if arrays else [])
        kind = rng.choice(["n", "n", "lohi", "stencil", "reverse"] + dynamic)
        if kind == "n":
            n = rng.randint(2, 8)
            form = f"range({n})", n, (0, n - 1), True
        elif kind == "lohi":
            lo = rng.randint(1, 3)
            hi = lo + rng.randint(2, 6)
            form = f"range({lo}, {hi})", hi - lo, (lo, hi - 1), True
        elif kind == "stencil":
            r = rng.randint(1, 2)
            form = f"range(-{r}, {r + 1})", 2 * r + 1, (-r, r), True
        elif kind == "reverse":
            n = rng.randint(3, 8)
            form = f"range({n}, 0, -1)", n, (1, n), True
        else:
            form = None
        if form is not None and self.unrolled * form[1] <= UNROLL_BUDGET:
            return form
        if not dynamic:
            n = UNROLL_BUDGET // self.unrolled
            return (f"range({n})", n, (0, n - 1), True) if n >= 2 else None
        cap = rng.randint(4, 8)
        if rng.choice(dynamic) == "param":
            bound = rng.choice(steps).name
        else:
            bound = f"{rng.choice(arrays).name}.shape[0]"  # every array has at least one element
        return f"range(wp.min({bound}, {cap}))", cap, (0, cap - 1), False

    def for_stmt(self) -> None:
        form = self.loop_range()
        if form is None:  # no room left for an unrolled copy, and no runtime bound in scope
            self.while_stmt()
            return
        rng_code, trips, civ, unrolled = form
        acc = self.declare_accumulator(self.rng.choice(self.g.policy.scalar_types() + self.vec_types()))
        k = self.scope.fresh(self.rng, self.rng.choice(["k", "s", "it", "step", "m", "q"]))
        self.block.emit(f"for {k} in {rng_code}:")
        self.trips *= trips
        copies = trips if unrolled else 1
        self.unrolled *= copies
        self.loops += 1

        def head() -> None:
            self.scope.add(Var(k, T.I32, civ, mutable=False, varies=False))

        self.body(1, 3, head, acc)
        self.loops -= 1
        self.unrolled //= copies
        self.trips //= trips
        self.use_accumulator(acc)

    def while_stmt(self) -> None:
        acc = self.declare_accumulator(self.rng.choice(self.g.policy.scalar_types()))
        it = self.scope.fresh(self.rng, "it")
        cap = self.rng.randint(3, 10)
        self.block.emit(f"{it} = int(0)")
        cond = f"{it} < {cap}"
        if self.rng.random() < 0.5:
            cond += f" and ({self.g.cond(1).code})"
        self.block.emit(f"while {cond}:")
        self.trips *= cap

        def tail() -> None:
            self.scope.add(Var(it, T.I32, (0, cap), mutable=False, varies=False))
            self.block.emit(f"{it} += 1")

        self.loops += 1
        self.body(1, 3, tail, acc)
        self.loops -= 1
        self.trips //= cap
        self.use_accumulator(acc)

    def accumulate(self, acc: Var) -> None:
        """The loop's own accumulator always receives a thread-dependent term, within budget."""
        room = (mag(acc.iv) - self.spent[acc.name]) / (2 * self.trips)
        bound = max(int(room), 1) if acc.t.is_int else room
        e = self.g.varying(self.g.gen(acc.t, self.rng.randint(1, 2)))
        if acc.t.is_float or acc.t.is_int:
            e = self.g.fit(e, (0, bound) if acc.t == T.U32 else T.sym(bound))
        elif mag(e.iv) > bound:
            e = E(f"wp.normalize({e.code}) * {fmt_float(min(bound, 1.0))}", e.t, T.sym(min(bound, 1.0)), True)
        self.spent[acc.name] += self.trips * mag(e.iv)
        self.block.emit(f"{acc.name} += {e.code}")

    def use_accumulator(self, acc: Var) -> None:
        """Make the loop's result reach a later statement (and so an output)."""
        acc.varies = True
        spent = self.spent.pop(acc.name, 0.0)
        acc.iv = (0, spent) if acc.t == T.U32 else T.sym(max(spent, 1.0 if acc.t.is_float else 1))

    def vec_types(self) -> tuple[WType, ...]:
        return tuple(t for t in self.policy.types() if t.kind == "vec")

    def atomic(self) -> None:
        arr = self.rng.choice(self.atomic_targets)
        emit_atomic(self, arr)

    def struct_local(self) -> None:
        sname = self.rng.choice(sorted(self.g.structs))
        var = self.scope.fresh(self.rng, sname.lower()[:4])
        self.block.emit(f"{var} = {sname}()")
        for fname, (ft, fiv) in self.g.structs[sname].items():
            e = self.g.fit(self.g.gen(ft, 2), fiv)
            self.block.emit(f"{var}.{fname} = {e.code}")
        self.scope.add(Var(var, T.struct_type(sname, ()), (0, 0), mutable=False, varies=True))


def emit_atomic(sg: StmtGen, arr) -> None:
    """One atomic update of an accumulator array; the index is always in bounds."""
    rng, g = sg.rng, sg.g
    tid = sg.scope.tid
    idx = rng.choice(
        [
            f"{tid[0]} % {arr.name}.shape[0]",
            f"({tid[-1]} // 2) % {arr.name}.shape[0]",
            f"({' + '.join(tid)}) % {arr.name}.shape[0]",
        ]
    )
    e = g.strong(g.gen(arr.dtype, rng.randint(1, sg.policy.depth)))
    if arr.dtype.is_float or arr.dtype.is_int:
        e = g.fit(e, (-100, 100) if arr.dtype != T.U32 else (0, 100))
    if arr.dtype.is_float or arr.dtype.is_int:
        # the fitted value may saturate at the clamp for every thread, and the bins' extrema (or sums, when
        # every bin receives as many threads) then agree: the thread index makes each bin's result its own
        tid = " + ".join(sg.scope.tid)
        if arr.dtype.is_int:
            term, iv = (f"({tid})" if arr.dtype == T.I32 else f"{arr.dtype.ctor}({tid})"), (0, 765)
        else:
            term, iv = f"{arr.dtype.ctor}({tid}) * {lit(arr.dtype, 0.01)}", (0.0, 7.65)
        e = E(f"({e.code} + {term})", e.t, T.iv_add(e.iv, iv), True)
    op = arr.op
    if op == "add" and rng.random() < 0.25:
        sg.block.emit(f"{arr.name}[{idx}] += {e.code}")
        return
    sg.block.emit(f"wp.atomic_{op}({arr.name}, {idx}, {e.code})")
