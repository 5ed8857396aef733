"""Where a build is written and how it is committed.

A local folder is built in a hidden staging sibling (``.NAME.partial-KEY``, KEY naming the options and the
generator: ``manifest.build_key``) and renamed into place at the end, so an interrupted or failed build never
leaves a half-written folder. A build stopped by a signal keeps the staging folder when it holds finished shards,
and the next run of the same options continues it (``continuing``): no finished shard is thrown away. An
fsspec URL (``s3://``, ``gs://``...) is written in place, key by key, with ``manifest.json`` last; there only
``--resume`` keeps and continues.

An existing output is replaced only when it is empty or a finished build of this tool (``manifest.read``) holding
no file its manifest does not list, and never when it is the root, the home directory, the current directory or
one of its parents. ``--resume`` on a finished folder of the same options repairs it in place (``repair``): only
the shards whose files are missing or changed are built again.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

from builder.build_options import BuildRequest
from builder.dataset import manifest
from builder.dataset.shards import DONE
from builder.dataset.storage import TMP_SUFFIX, FsspecStore, LocalStore, is_url, local_path
from builder.errors import OutputExists, OutputUnusable


def _foreign(store) -> list[str]:
    """Files in an output that no build of this tool wrote there (the manifest's files, its completion records
    and its temporary files are the tool's)."""
    doc = manifest.read(store)
    listed = {f.get("path") for f in doc["files"] if isinstance(f, dict)} if doc else set()
    listed.add(manifest.NAME)
    return [
        p
        for p in store.files()
        if p not in listed and not p.startswith(f"{DONE}/") and not p.rsplit("/", 1)[-1].endswith(TMP_SUFFIX)
    ]


def ownership(store, given: str, request: BuildRequest, overwrite: bool, resume: bool) -> dict | None:
    """Check that a non-empty output may be used; return its manifest when ``--resume`` repairs it in place.

    Raises ``OutputExists`` (exit 2, nothing touched) for a folder this tool did not write, or for one it wrote
    when neither --overwrite nor a matching --resume was given.
    """
    doc = manifest.read(store)
    if doc is None:
        raise OutputExists(
            f"output folder {given!r} exists and is not a dataset folder written by warp-cuda-ir (it holds no "
            "manifest.json of ours); refusing to touch it: choose another --out"
        )
    foreign = _foreign(store)
    if foreign:
        raise OutputExists(
            f"output folder {given!r} holds {len(foreign)} files its manifest.json does not list (first: "
            f"{foreign[0]!r}); refusing to replace it: move them out or choose another --out"
        )
    if resume and manifest.same_build(doc, request):
        return doc
    if overwrite:
        return None
    other = " with other options or generator" if resume else ""
    raise OutputExists(f"output folder {given!r} holds a warp-cuda-ir build{other}; pass --overwrite to replace it")


def protected(path: Path) -> str | None:
    """Why ``path`` may never be replaced, or None: the root, the home directory, the current directory and its
    parents (replacing them would take the working directory, or everything, with them)."""
    real = Path(os.path.realpath(path))
    cwd = Path(os.path.realpath(os.getcwd()))
    if real == real.parent:
        return "the root directory"
    if real == Path(os.path.realpath(Path.home())):
        return "the home directory"
    if real == cwd:
        return "the current directory"
    if real in cwd.parents:
        return "a parent of the current directory"
    return None


class LocalDestination:
    def __init__(self, out: str, request: BuildRequest, overwrite: bool, resume: bool):
        if not out.strip():
            raise OutputUnusable("--out is empty: name the dataset folder to write (default warp_cuda_ir)")
        self.given = out
        self.path = Path(os.path.abspath(local_path(out)))
        self.repair = self._check(request, overwrite, resume)
        self.continuing = False
        if self.repair is not None:  # repaired in place: each rebuilt file is committed atomically on its own
            self.staging = None
            self.spec, self.store = str(self.path), LocalStore(self.path)
            return
        # named by the options, not at random: a run of the same command finds what a stopped one finished
        self.staging = self.path.parent / f".{self.path.name}.partial-{manifest.build_key(request)}"
        self.spec = str(self.staging)
        self.store = LocalStore(self.staging)

    keeps_finished = True  # a stopped build's finished shards stay for the next run of the same options

    def create(self) -> None:
        """Called inside the build's try block, so a signal landing right after it still finds it cleaned up."""
        if self.staging is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.continuing = self.staging.is_dir()  # a stopped run of these options left it: its shards are reused
            self.staging.mkdir(exist_ok=True)
        except OSError as exc:
            raise OutputUnusable(f"cannot write the output folder {self.given!r}: {exc.strerror or exc}") from None

    def _check(self, request: BuildRequest, overwrite: bool, resume: bool) -> dict | None:
        p = self.path
        if not (p.exists() or p.is_symlink()):
            return None
        why = protected(p)
        if why:
            raise OutputExists(f"output folder {self.given!r} is {why}; refusing to replace it: choose another --out")
        if p.is_symlink():
            raise OutputExists(f"output path {self.given!r} is a symbolic link; pass the folder it points to")
        if not p.is_dir():
            raise OutputExists(f"output path {self.given!r} exists and is a file, not a folder; choose another --out")
        if not any(p.iterdir()):
            return None
        return ownership(LocalStore(p), self.given, request, overwrite, resume)

    def local_folder(self) -> Path | None:
        """The folder the card is rendered in; None in a repair, which renders aside and writes what changed."""
        return self.staging

    def commit(self) -> None:
        if self.staging is None:
            return
        if not (self.path.exists() or self.path.is_symlink()):
            os.replace(self.staging, self.path)
            return
        trash = self.path.parent / f".{self.path.name}.old-{uuid.uuid4().hex[:8]}"
        os.replace(self.path, trash)
        os.replace(self.staging, self.path)
        shutil.rmtree(trash, ignore_errors=True)  # an empty folder or a build of ours (checked in _check)

    def discard(self) -> None:
        if self.staging is not None:  # never the folder being repaired
            shutil.rmtree(self.staging, ignore_errors=True)

    def kept(self) -> str:
        return self.spec

    def finished_shards(self) -> int:
        """Completion records in the staging folder: the shards a stopped build leaves for the next run."""
        return finished_shards(self.store) if self.staging is not None and self.staging.is_dir() else 0


def finished_shards(store) -> int:
    return sum(1 for p in store.files() if p.startswith(f"{DONE}/"))


class UrlDestination:
    def __init__(self, out: str, request: BuildRequest, overwrite: bool, resume: bool):
        try:
            self.store = FsspecStore(out)
        except (ImportError, ValueError) as exc:
            raise OutputUnusable(f"cannot write to {out!r}: {exc}") from None
        self.spec = out
        self.repair = None
        empty = self.store.is_empty()
        # an interrupted --resume run left completion records and no manifest: it continues where it stopped
        continuing = resume and not empty and self.store.get(manifest.NAME) is None and self._has_records()
        if not empty and not continuing:
            self.repair = ownership(self.store, out, request, overwrite, resume)
        self.replace = not empty and not continuing and self.repair is None
        self.created = False
        self.continuing = continuing

    keeps_finished = False  # written in place: without --resume a stopped build leaves nothing there

    def _has_records(self) -> bool:
        return any(p.startswith(f"{DONE}/") for p in self.store.files())

    def create(self) -> None:
        self.created = True
        if self.replace:
            self.store.remove_all()

    def local_folder(self) -> None:
        return None

    def commit(self) -> None:
        pass  # manifest.json, written last, marks the folder complete

    def discard(self) -> None:
        if self.created and self.repair is None:  # never what was there before this build was allowed to replace
            self.store.remove_all()

    def kept(self) -> str:
        return self.spec

    def finished_shards(self) -> int:
        return finished_shards(self.store) if self.created else 0


def open_destination(
    out: str, request: BuildRequest, overwrite: bool, resume: bool
) -> LocalDestination | UrlDestination:
    """Check the output (raises before anything is written) and say how the build will write it."""
    if is_url(out):
        return UrlDestination(out, request, overwrite, resume)
    return LocalDestination(out, request, overwrite, resume)
