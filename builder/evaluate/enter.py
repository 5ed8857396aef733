"""The child's side of the sandbox: join a job's namespaces (made by bubblewrap, see ``isolation``), then fork.

``join`` returns only in a grandchild that lives in all of the holder's namespaces, PID namespace included (a
process joins a PID namespace only through its children), with no capabilities, no way to gain any
(``no_new_privs``), a process limit, no file descriptor but 0-2, and a kill signal should its parent die. The
process that called ``join`` only waits for the grandchild and exits as it did, so the parent's view of exit
status and signals is unchanged. Joining needs a single-threaded caller: the fork server's children are.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
from pathlib import Path

from builder.errors import SandboxUnavailable
from builder.evaluate.isolation import SAFE_ENV

_NAMESPACES = {  # CLONE_NEW* flags, all joined at once through the holder's pidfd
    "user": 0x10000000,
    "mnt": 0x00020000,
    "net": 0x40000000,
    "ipc": 0x08000000,
    "uts": 0x04000000,
    "pid": 0x20000000,
    "cgroup": 0x02000000,
}
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 1, 24, 38, 47, 4
_CAPABILITY_V3 = 0x20080522
MAX_PROCESSES = 128  # RLIMIT_NPROC; the kernel does not apply it to uid 0, for which the PID namespace bounds it

_libc = ctypes.CDLL(None, use_errno=True)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _check(result: int, what: str) -> None:
    if result != 0:
        raise SandboxUnavailable(f"{what}: {os.strerror(ctypes.get_errno())}")


def join(holder_pid: int, cwd: Path) -> None:
    """Move into ``holder_pid``'s namespaces; returns in the grandchild only (the caller's process exits)."""
    _check_environment()
    pidfd = os.pidfd_open(holder_pid)
    try:
        _check(_libc.setns(pidfd, sum(_NAMESPACES.values())), "setns into the sandbox")
    finally:
        os.close(pidfd)
    os.chdir(cwd)  # joining a mount namespace moves the working directory to its root
    pid = os.fork()
    if pid == 0:
        _drop_privileges()
        return
    _exit_as(pid)


def _check_environment() -> None:
    """The environment block a prediction could read (``/proc/self/environ``) holds only ``SAFE_ENV``: refuse to
    run it otherwise (a fork server started some other way than ``sandbox._ensure_server``)."""
    names = {v.split(b"=", 1)[0].decode() for v in Path("/proc/self/environ").read_bytes().split(b"\0") if v}
    extra = sorted(names - set(SAFE_ENV))
    if extra:
        raise SandboxUnavailable(f"the child's environment was not scrubbed: {', '.join(extra)}")


def _drop_privileges() -> None:
    """The capabilities that joining gave inside the sandbox's user namespace (enough to remount it writable)
    are dropped for good, before any of the prediction's code runs."""
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG")
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # the fork server's sockets stay with the parent
    last = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    for cap in range(last + 1):
        _check(_libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"dropping capability {cap}")
    _check(_libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clearing ambient capabilities")
    _check(_libc.capset(ctypes.byref(_CapHeader(_CAPABILITY_V3, 0)), (_CapData * 2)()), "capset")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS")
    resource.setrlimit(resource.RLIMIT_NPROC, (MAX_PROCESSES, MAX_PROCESSES))


def _exit_as(pid: int) -> None:
    """Wait for the grandchild and end this process the same way (its exit status, or its signal)."""
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if status < 0:
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    os._exit(status if status >= 0 else 128 - status)
