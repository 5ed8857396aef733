"""Where a build is written and how it is committed.

A local folder is built in a hidden staging sibling (``.NAME.partial-*``) and renamed into place at the end, so
an interrupted or failed build never leaves a half-written folder; under ``--resume`` the staging folder is
named by the options (``manifest.build_key``) and kept when the build stops, so the next run continues it. An
fsspec URL (``s3://``, ``gs://``...) is written in place, key by key, with ``manifest.json`` last.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

from builder.dataset.storage import FsspecStore, LocalStore, is_url, local_path
from builder.errors import OutputExists, OutputUnusable


class LocalDestination:
    def __init__(self, out: str, key: str, overwrite: bool, resume: bool):
        self.given = out
        self.path = Path(os.path.abspath(local_path(out)))
        self._check(overwrite)
        self.resume = resume
        suffix = key if resume else uuid.uuid4().hex[:8]
        self.staging = self.path.parent / f".{self.path.name}.partial-{suffix}"
        self.spec = str(self.staging)
        self.store = LocalStore(self.staging)

    def create(self) -> None:
        """Called inside the build's try block, so a signal landing right after it still finds it cleaned up."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.staging.mkdir(exist_ok=self.resume)
        except OSError as exc:
            raise OutputUnusable(f"cannot write the output folder {self.given!r}: {exc.strerror or exc}") from None

    def _check(self, overwrite: bool) -> None:
        p = self.path
        if overwrite or not (p.exists() or p.is_symlink()):
            return
        if not p.is_dir():
            raise OutputExists(f"output path {self.given!r} exists and is a file, not a folder; pass --overwrite")
        if any(p.iterdir()):
            raise OutputExists(f"output folder {self.given!r} exists and is not empty; pass --overwrite to replace it")

    def local_folder(self) -> Path:
        return self.staging

    def commit(self) -> None:
        if not (self.path.exists() or self.path.is_symlink()):
            os.replace(self.staging, self.path)
            return
        trash = self.path.parent / f".{self.path.name}.old-{uuid.uuid4().hex[:8]}"
        os.replace(self.path, trash)
        os.replace(self.staging, self.path)
        if trash.is_dir() and not trash.is_symlink():
            shutil.rmtree(trash, ignore_errors=True)
        else:
            trash.unlink(missing_ok=True)

    def discard(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)

    def kept(self) -> str:
        return str(self.staging)


class UrlDestination:
    def __init__(self, out: str, overwrite: bool, resume: bool):
        try:
            self.store = FsspecStore(out)
        except (ImportError, ValueError) as exc:
            raise OutputUnusable(f"cannot write to {out!r}: {exc}") from None
        self.spec = out
        self.replace = not self.store.is_empty() and not resume
        if self.replace and not overwrite:
            raise OutputExists(f"output {out!r} exists and is not empty; pass --overwrite to replace it")
        self.created = False

    def create(self) -> None:
        self.created = True
        if self.replace:
            self.store.remove_all()

    def local_folder(self) -> None:
        return None

    def commit(self) -> None:
        pass  # manifest.json, written last, marks the folder complete

    def discard(self) -> None:
        if self.created:  # never what was there before this build was allowed to replace it
            self.store.remove_all()

    def kept(self) -> str:
        return self.spec


def open_destination(out: str, key: str, overwrite: bool, resume: bool) -> LocalDestination | UrlDestination:
    return UrlDestination(out, overwrite, resume) if is_url(out) else LocalDestination(out, key, overwrite, resume)
