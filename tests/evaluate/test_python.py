"""``evaluate`` on predicted Warp Python (``{"id": ..., "python": ...}``): Warp loads the prediction in the sandbox,
its kernel must have the row's signature, and it runs on the reference's inputs. Hostile modules are contained as
hostile IR is: their code runs at import, inside the child's sandbox."""

from __future__ import annotations

import json
import os
import time

import pytest

from builder.cli import main
from builder.errors import EvaluationInputError
from builder.evaluate import predictions
from tests.evaluate.test_attacks import Listener
from tests.evaluate.test_evaluate import _rows, _write

pytestmark = pytest.mark.slow


def _kernel_first_line(source: str, name: str) -> int:
    """Index of the first body line of kernel ``name`` (the line after its ``def``, past a multi-line head)."""
    lines = source.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith(f"def {name}("))
    return next(n for n in range(start, len(lines)) if lines[n].rstrip().endswith(":")) + 1


def _returns_at_once(source: str, name: str) -> str:
    """The kernel with ``return`` as its first statement: it writes nothing."""
    lines = source.splitlines()
    n = _kernel_first_line(source, name)
    indent = lines[n][: len(lines[n]) - len(lines[n].lstrip())]
    return "\n".join([*lines[:n], f"{indent}return", *lines[n:]]) + "\n"


def _hostile(prefix: str, source: str) -> str:
    """``prefix`` run at import, before the row's own module."""
    return prefix + "\n" + source


@pytest.fixture(scope="module")
def python_report(folder, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("eval_python")
    rows = _rows(folder, "cpu")
    first = rows[0]
    outside = tmp / "outside"
    outside.mkdir()
    (outside / "victim").write_text("keep me")
    victim = str(outside / "victim")
    listener = Listener()
    os.environ["WCIR_TEST_SECRET"] = "do not leak"
    cases = {f"reference {n}": {"id": r["id"], "python": r["python_source"]} for n, r in enumerate(rows)}
    src, name = first["python_source"], first["kernel_name"]
    cases |= {
        "writes nothing": {"id": first["id"], "python": _returns_at_once(src, name)},
        "undefined name": {"id": first["id"], "python": src.replace("wp.tid()", "wp.tid() + undefined_name", 1)},
        "renamed argument": {"id": first["id"], "python": src.replace(first["arg_names"][0], "renamed_arg")},
        "not python": {"id": first["id"], "python": "def (:\n"},
        "writes outside": {
            "id": first["id"],
            "python": _hostile(
                f"import os\nfor act in (lambda: open({victim!r}, 'w').write('x'), lambda: os.remove({victim!r})):\n"
                "    try:\n        act()\n    except OSError:\n        pass",
                src,
            ),
        },
        "connects": {
            "id": first["id"],
            "python": _hostile(
                f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {listener.port}), 2).sendall(b'x')\n"
                "except OSError:\n    pass",
                src,
            ),
        },
        "reads the environment": {
            "id": first["id"],
            "python": _hostile("import os\nassert 'WCIR_TEST_SECRET' not in os.environ, 'the secret leaked'", src),
        },
        "forks and sleeps": {
            "id": first["id"],
            "python": _hostile("import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(600)", src),
        },
        "spins": {"id": first["id"], "python": _hostile("while True:\n    pass", src)},
    }
    pred, out = tmp / "pred.jsonl", tmp / "report.json"
    _write(pred, list(cases.values()))
    argv = ["evaluate", "--data", str(folder), "--config", "cpu", "--split", "test", "--predictions", str(pred)]
    start = time.monotonic()
    try:
        assert main([*argv, "--out", str(out), "--num-proc", "2", "--timeout", "30"]) == 0
    finally:
        received = listener.close()
        del os.environ["WCIR_TEST_SECRET"]
    report = json.loads(out.read_text())
    return report, dict(zip(cases, report["results"])), outside, received, time.monotonic() - start


def test_the_references_own_source_loads_compiles_and_matches(python_report):
    report, results, *_ = python_report
    refs = [r for case, r in results.items() if case.startswith("reference")]
    assert refs and all(r["exact_match"] and r["loaded"] and r["compiled"] and r["functional"] for r in refs)
    assert report["loaded"] < 1.0 and "loaded" in report["by_category"][next(iter(report["by_category"]))]


def test_what_warp_rejects_is_named_by_its_error_class(python_report):
    _, results, *_ = python_report
    undefined = results["undefined name"]
    assert (undefined["loaded"], undefined["compiled"], undefined["functional"]) == (False, False, False)
    assert undefined["reason"] == "not loaded (WarpCodegenKeyError)" and "undefined_name" in undefined["detail"]


def test_a_wrong_signature_or_unparsable_source_is_rejected_before_warp(python_report):
    _, results, *_ = python_report
    assert results["renamed argument"]["reason"] == "static: argument names differ from the reference"
    assert results["not python"]["reason"] == "static: not valid Python"
    assert results["renamed argument"]["loaded"] is False


def test_a_kernel_that_writes_nothing_compiles_but_is_not_functional(python_report):
    _, results, *_ = python_report
    r = results["writes nothing"]
    assert r["loaded"] and r["compiled"]
    assert r["not_scored"] or (r["functional"] is False and r["reason"] == "wrong output")


def test_hostile_modules_are_contained(python_report):
    _, results, outside, received, wall = python_report
    assert (outside / "victim").read_text() == "keep me" and received == []
    for case in ("writes outside", "connects", "reads the environment", "forks and sleeps"):
        assert results[case]["loaded"] and results[case]["functional"], (case, results[case])
    assert results["spins"]["reason"] == "timeout"
    assert wall < 300  # the forked sleeper died with its sandbox: the evaluation did not wait 600 s for it


def test_a_line_holds_exactly_one_of_ir_and_python(tmp_path):
    path = tmp_path / "p.jsonl"
    for line in ({"id": "a", "ir": "x", "python": "y"}, {"id": "a"}):
        path.write_text(json.dumps(line) + "\n")
        with pytest.raises(EvaluationInputError, match="exactly one of 'ir' and 'python'"):
            predictions.read(path)
    path.write_text(json.dumps({"id": "a", "python": "import warp"}) + "\n")
    (p,) = predictions.read(path)
    assert p.python and p.ir == "import warp"
