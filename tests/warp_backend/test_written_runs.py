"""Running a shard's variants from one debug build (``written_runs.execute_many``) gives each variant the evidence
it gets run alone (``written.execute_fresh``), whatever its batch-mates do: a kernel that runs, one stopped by a
bounds check, one that changes nothing, one whose argument cannot be built, variants of one kernel (the same
names), a struct argument, a kernel declared with a module of its own, a source that sets module options, and a
batch that does not build."""

from __future__ import annotations

import ast

import pytest

from builder.sources.derived.rows import trials
from builder.warp_backend import written_runs
from builder.warp_backend.written import emit_fresh, execute_fresh
from builder.warp_backend.written_runs import RunRequest, execute_many, rename_apart

SCALE = """import warp as wp


@wp.func
def twice(x: float):
    return x * 2.0


@wp.kernel
def scale(a: wp.array(dtype=float), b: wp.array(dtype=float), s: float):
    i = wp.tid()
    b[i] = twice(a[i]) * s
"""

STRUCT = """import warp as wp


@wp.struct
class Body:
    mass: float
    pos: wp.vec3


@wp.kernel
def move(bodies: wp.array(dtype=Body), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = bodies[i].pos * bodies[i].mass
"""

NATIVE = '''import warp as wp


@wp.func_native("""return x + undefined_symbol_here;""")
def broken(x: float) -> float: ...


@wp.kernel
def uses_native(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = broken(a[i])
'''

SOURCES = {
    "runs": (SCALE, "scale"),
    "other constant": (SCALE.replace("2.0", "3.0"), "scale"),
    "bounds": (SCALE.replace("twice(a[i])", "twice(a[i + 1000])"), "scale"),
    "degenerate": (SCALE.replace("    b[i] = twice(a[i]) * s\n", "    x = twice(a[i]) * s\n"), "scale"),
    "not evaluable": (SCALE.replace("s: float", "s: wp.uint64").replace(" * s\n", "\n"), "scale"),
    "struct": (STRUCT, "move"),
    "made by a factory": (
        SCALE.replace("@wp.kernel\ndef scale(", "def make():\n    @wp.kernel\n    def scale(").replace(
            "\n    i = wp.tid()\n    b[i]", "\n        i = wp.tid()\n        b[i]"
        )
        + "\n    return scale\n\n\nscale = make()\n",
        "scale",
    ),
    # Warp builds and launches such a kernel from a module of its own: it must be that module that is built in
    # debug mode (the bounds check below proves it), and it runs alone
    "own module": (SCALE.replace("@wp.kernel\n", '@wp.kernel(module="unique")\n'), "scale"),
    "own module, bounds": (
        SCALE.replace("@wp.kernel\n", '@wp.kernel(module="unique")\n').replace("twice(a[i])", "twice(a[i + 1000])"),
        "scale",
    ),
    "module options": (
        SCALE.replace("\n\n\n@wp.func", '\nwp.set_module_options({"fast_math": True})\n\n\n@wp.func', 1),
        "scale",
    ),
}


def _requests(sources: dict[str, tuple[str, str]]) -> list[RunRequest]:
    out = []
    for n, (source, name) in enumerate(sources.values()):
        written = emit_fresh(f"test/{n}", source, f"t_runs_{n}", name)
        backward = "cuda-backward" in written.units
        out.append(
            RunRequest(source, name, tuple(written.arg_types), backward, tuple(trials(f"test/{n}", source, name)))
        )
    return out


def _evidence(run) -> tuple:
    return run.executed, run.outputs_finite, run.outputs_nondegenerate, run.grads_finite


def _counting_alone(monkeypatch) -> list[str]:
    """The kernels ``execute_many`` runs alone (a spy that calls through to ``execute_fresh``)."""
    alone: list[str] = []

    def spy(source, kernel_name, *args):
        alone.append(kernel_name)
        return execute_fresh(source, kernel_name, *args)

    monkeypatch.setattr(written_runs, "execute_fresh", spy)
    return alone


def test_a_batch_gives_each_variant_the_evidence_it_gets_alone(tmp_path, monkeypatch):
    requests = _requests(SOURCES)
    ran_alone = _counting_alone(monkeypatch)
    together = execute_many(requests, str(tmp_path), batch=4)
    # only the factory's kernel (no top-level name to rename), the kernels of a module of their own and the source
    # that sets module options ran alone
    assert ran_alone == ["scale"] * 4
    alone = [
        execute_fresh(r.source, r.kernel_name, list(r.arg_types), r.backward, list(r.trials), str(tmp_path))
        for r in requests
    ]
    assert [_evidence(r) for r in together] == [_evidence(r) for r in alone]
    got = dict(zip(SOURCES, together))
    assert got["runs"].passed and got["other constant"].passed and got["struct"].passed
    assert got["made by a factory"].passed and got["own module"].passed
    assert got["own module, bounds"].executed is False and "exit code" in got["own module, bounds"].reason
    assert got["bounds"].executed is False and "exit code" in got["bounds"].reason
    assert got["degenerate"].executed and not got["degenerate"].outputs_nondegenerate
    assert got["not evaluable"].executed is None and "inputs" in got["not evaluable"].reason


def test_a_batch_that_does_not_build_runs_each_variant_alone(tmp_path, monkeypatch):
    ran_alone = _counting_alone(monkeypatch)
    sources = {
        "runs": (SCALE, "scale"),
        "native": (NATIVE, "uses_native"),
        "again": (SCALE.replace("2.0", "5.0"), "scale"),
    }
    runs = execute_many(_requests(sources), str(tmp_path))
    assert runs[0].passed and runs[2].passed
    assert runs[1].executed is False
    assert ran_alone == ["scale", "uses_native", "scale"]


def test_renaming_apart_renames_every_top_level_name_and_its_uses():
    text, renaming = rename_apart(STRUCT, "__r7")
    assert renaming == {"Body": "Body__r7", "move": "move__r7"}
    tree = ast.parse(text)
    assert [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))] == ["Body__r7", "move__r7"]
    assert "wp.array(dtype=Body__r7)" in text and "bodies[i].pos" in text


@pytest.mark.parametrize(
    "source",
    [
        SCALE.replace("s: float", "twice: float").replace(" * s\n", " * twice\n"),  # a parameter named as a function
        SCALE.replace("twice(a[i])", "twice(x=a[i])").replace("def scale", "def x"),  # a keyword named as one
    ],
)
def test_a_renaming_that_cannot_be_consistent_is_refused(source):
    assert rename_apart(source, "__r0") is None
