"""A shipped module is imported in a child forked by the worker that builds its shard; that child must never outlive
the worker. The build stops its workers on an interrupt (SIGINT or SIGTERM to the build's own process), and an orphan
import child kept the worker's exit pipe open: the build waited for it forever (found stopping a `real` build)."""

from __future__ import annotations

import faulthandler
import multiprocessing as mp
import os
import signal
import tempfile
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")


def _hanging_worker(pid_file: str) -> None:
    # the worker is killed, so the Warp kernel cache it makes cannot remove itself: make it in the test's folder
    tempfile.tempdir = str(Path(pid_file).parent)
    from builder.shipped.modules import modules
    from builder.warp_backend import shipped_import

    def hang(name: str) -> None:  # an import that never returns, as a slow module's does for minutes
        Path(pid_file).write_text(str(os.getpid()))
        time.sleep(600)

    shipped_import._import_through_package = hang  # inherited by the child the worker forks
    shipped_import.collect(modules(("warp-nn",))[0], timeout=600)


def _dead(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_an_import_child_dies_with_the_worker_that_forked_it(tmp_path):
    pid_file = tmp_path / "child.pid"
    worker = mp.get_context("fork").Process(target=_hanging_worker, args=(str(pid_file),))
    worker.start()
    deadline = time.monotonic() + 120
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pid_file.exists(), "the import child never started"
    child = int(pid_file.read_text())
    assert not _dead(child)
    os.kill(worker.pid, signal.SIGKILL)  # as the build ends a worker: no chance to clean up after itself
    worker.join()
    deadline = time.monotonic() + 10
    while not _dead(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    if not _dead(child):
        os.kill(child, signal.SIGKILL)
        pytest.fail("the import child outlived its worker")


@pytest.mark.parametrize(
    "import_module, reason",
    [
        (lambda name: os._exit(3), "import crashed (exit 3)"),  # a module that ends its process while imported
        # or crashes it (pytest's fault handler, inherited, would print the child's stack into the test log)
        (lambda name: (faulthandler.disable(), os.kill(os.getpid(), signal.SIGSEGV)), "import crashed (exit -11)"),
        (lambda name: time.sleep(600), "import timed out"),
    ],
)
def test_a_module_child_that_crashes_or_hangs_is_counted_and_the_next_module_still_collects(
    monkeypatch, import_module, reason
):
    """The per-package importer forks each module's child: a child that dies or hangs costs that module only,
    with the reason the worker's own child gave, and the importer goes on to the package's next module."""
    from builder.shipped.modules import modules
    from builder.warp_backend import shipped_import

    first, second = modules(("warp-nn",))[:2]
    real_import = shipped_import._import_through_package
    monkeypatch.setattr(
        shipped_import, "_import_through_package", lambda n: import_module(n) if n == first.name else real_import(n)
    )
    with shipped_import.Collector(timeout=5) as collector:
        assert collector.collect(first, ("cuda-forward",)).skipped == reason
        after = collector.collect(second, ("cuda-forward",))
    assert after.skipped == "" and after.module == second
