"""Where a build's files go: a local folder, or any fsspec URL (``s3://``, ``gs://``, ``memory://``...).

Every file is committed atomically. Locally it is written under a temporary name beside its final one and
renamed; the temporary name is fixed per file, so a retry of a killed task overwrites what the killed attempt
left, and ``sweep`` removes any that remain. On an object store the key appears only when its upload completes.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from builder.errors import TransientError

TMP_SUFFIX = ".tmp"


def is_url(spec: str) -> bool:
    return "://" in spec and not spec.startswith("file://")


def local_path(spec: str) -> Path:
    return Path(spec[len("file://") :] if spec.startswith("file://") else spec)


class LocalStore:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    def put(self, rel: str, data: bytes, before_commit: Callable[[], None] | None = None) -> None:
        final = self.root / rel
        final.parent.mkdir(exist_ok=True)  # not parents: a stopped build's removed folder must stay removed
        tmp = final.with_name(f".{final.name}{TMP_SUFFIX}")
        with open(tmp, "wb") as f:
            f.write(data)
        if before_commit:
            before_commit()
        os.replace(tmp, final)

    def get(self, rel: str) -> bytes | None:
        try:
            return (self.root / rel).read_bytes()
        except FileNotFoundError:
            return None

    def remove(self, rel: str) -> None:
        target = self.root / rel
        if target.is_dir():
            shutil.rmtree(target)
        else:
            target.unlink(missing_ok=True)

    def move(self, src: str, dst: str) -> None:
        os.replace(self.root / src, self.root / dst)

    def sweep(self) -> None:
        """Remove temporary files a killed task left."""
        for tmp in self.root.rglob(f".*{TMP_SUFFIX}"):
            tmp.unlink(missing_ok=True)

    def files(self) -> list[str]:
        """Every file under the root (relative, sorted), hidden ones included; a symbolic link is a file, never
        followed."""
        out = []
        for top, dirs, names in os.walk(self.root):  # followlinks=False: a link to a folder is listed in dirs
            rel = Path(top).relative_to(self.root)
            links = [d for d in dirs if os.path.islink(os.path.join(top, d))]
            out += [(rel / n).as_posix() for n in [*names, *links]]
        return sorted(out)


class FsspecStore:
    def __init__(self, url: str):
        import fsspec

        self.url = url.rstrip("/")
        self.fs, self.root = fsspec.core.url_to_fs(self.url)

    def _key(self, rel: str) -> str:
        return f"{self.root}/{rel}"

    def put(self, rel: str, data: bytes, before_commit: Callable[[], None] | None = None) -> None:
        if before_commit:
            before_commit()
        try:
            self.fs.pipe_file(self._key(rel), data)  # one upload: the key exists only once it is whole
        except OSError as exc:
            raise TransientError(f"writing {self.url}/{rel}: {exc}") from exc

    def get(self, rel: str) -> bytes | None:
        try:
            return self.fs.cat_file(self._key(rel))
        except FileNotFoundError:
            return None

    def remove(self, rel: str) -> None:
        if self.fs.exists(self._key(rel)):
            self.fs.rm(self._key(rel), recursive=True)

    def move(self, src: str, dst: str) -> None:
        self.put(dst, self.get(src))  # a copy, then the old key goes: an object store has no atomic rename
        self.remove(src)

    def sweep(self) -> None:
        pass  # nothing is ever half-written under a final key

    def exists(self) -> bool:
        return self.fs.exists(self.root)

    def files(self) -> list[str]:
        if not self.fs.exists(self.root):
            return []
        prefix = self.root.rstrip("/") + "/"
        return sorted(p[len(prefix) :] for p in self.fs.find(self.root) if p.startswith(prefix))

    def is_empty(self) -> bool:
        return not self.fs.exists(self.root) or not self.fs.ls(self.root)

    def remove_all(self) -> None:
        if self.fs.exists(self.root):
            self.fs.rm(self.root, recursive=True)


def open_store(spec: str) -> LocalStore | FsspecStore:
    return FsspecStore(spec) if is_url(spec) else LocalStore(local_path(spec))
