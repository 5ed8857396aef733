"""Publish the warp_cuda_ir folder to the Hugging Face Hub.

    python scripts/push_to_hub.py --repo-id ORG/NAME [--folder warp_cuda_ir] [--private]
                                  [--revision BRANCH] [--create-pr] [--dry-run]

Builds the folder if it is missing, validates it (a failing folder is never
pushed), renders the card, then creates the dataset repo and uploads the
folder. Every failure is one line on stderr and a non-zero exit.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from fnmatch import fnmatch
from pathlib import Path

from builder.errors import PushError, UsageError

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "scripts"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

IGNORE_PATTERNS = ["*.lock", ".cache/*", "*.tmp"]
EXIT_USAGE, EXIT_BUILD, EXIT_INVALID, EXIT_AUTH, EXIT_NETWORK, EXIT_UPLOAD = 2, 3, 4, 5, 6, 7


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        print(f"push_to_hub: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="push_to_hub.py", description=__doc__.splitlines()[0])
    p.add_argument("--repo-id", required=True, help="ORG/NAME of the dataset repo")
    p.add_argument("--folder", default="warp_cuda_ir")
    p.add_argument("--private", action="store_true")
    p.add_argument("--revision", default=None, help="branch to push to (default: main)")
    p.add_argument("--create-pr", action="store_true", help="open a pull request instead of committing")
    p.add_argument("--dry-run", action="store_true", help="do everything except network calls")
    p.add_argument("--determinism-sample", type=int, default=50)
    return p


def planned_files(folder: Path) -> list[str]:
    """Files upload_folder would send, relative to the folder, after ignore_patterns."""
    out = []
    for f in sorted(folder.rglob("*")):
        if not f.is_file():
            continue
        rel = f.relative_to(folder).as_posix()
        if rel.startswith(".") or "/." in rel or any(fnmatch(rel, pat) for pat in IGNORE_PATTERNS):
            continue
        out.append(rel)
    return out


def commit_message(report) -> str:
    sizes = "; ".join(f"{cfg}: " + ", ".join(f"{s}={n}" for s, n in sp.items()) for cfg, sp in report.configs.items())
    return f"Upload warp_cuda_ir ({sizes})"


def ensure_folder(folder: Path) -> None:
    if folder.is_dir() and any(folder.glob("*/*.parquet")):
        return
    if folder.exists() and not folder.is_dir():
        raise PushError(f"{folder} exists and is not a folder", EXIT_USAGE)
    print(f"push_to_hub: {folder} not built yet; building it with the default options")
    from builder.cli import main as cli_main

    rc = cli_main(["build", "--out", str(folder)] + (["--overwrite"] if folder.exists() else []))
    if rc != 0:
        raise PushError(f"building {folder} failed (exit {rc})", EXIT_BUILD)


def _token() -> str | None:
    from huggingface_hub import get_token

    return os.environ.get("HF_TOKEN") or get_token()


def _network_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [OSError, ConnectionError, TimeoutError]
    for mod, name in (
        ("requests", "RequestException"),
        ("httpx", "HTTPError"),
        ("httpx", "TransportError"),
        ("httpx2", "TransportError"),
    ):
        try:
            errors.append(getattr(__import__(mod), name))
        except (ImportError, AttributeError):
            pass
    return tuple(errors)


def push(
    repo_id: str,
    folder: Path,
    private: bool = False,
    revision: str | None = None,
    create_pr: bool = False,
    dry_run: bool = False,
    determinism_sample: int = 50,
) -> str:
    """Build if needed, validate, render, and upload; return the dataset URL (or the plan on a dry run)."""
    from validate import validate

    if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo_id):
        raise PushError(f"--repo-id must look like ORG/NAME, got {repo_id!r}", EXIT_USAGE)
    folder = Path(folder)
    token = None if dry_run else _token()
    if not dry_run and not token:
        raise PushError("no Hugging Face token: set HF_TOKEN or run `hf auth login`", EXIT_AUTH)
    ensure_folder(folder)
    try:
        report = validate(folder, determinism_sample=determinism_sample)
    except UsageError as exc:
        raise PushError(f"cannot validate {folder}: {exc}", EXIT_INVALID) from exc
    if not report.ok:
        failed = "; ".join(f"{(c.config + ':') if c.config else ''}{c.name}: {c.message}" for c in report.failures)
        raise PushError(f"refusing to push {folder}: validation failed: {failed[:500]}", EXIT_INVALID)
    from dataset_card.render import render

    render(folder)
    files = planned_files(folder)
    message = commit_message(report)
    url_base = os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")
    url = f"{url_base}/datasets/{repo_id}"
    if dry_run:
        print(
            f"dry run: would create dataset repo {repo_id} (private={private}) and upload {len(files)} files "
            f"to revision {revision or 'main'}{' as a pull request' if create_pr else ''}:"
        )
        for f in files:
            print(f"  {f}")
        print(f"commit message: {message}")
        print(f"dataset URL: {url}")
        print(f'load with: load_dataset("{repo_id}", "cuda-forward")')
        return url
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    api = HfApi(token=token)
    try:
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        if revision and not create_pr:
            api.create_branch(repo_id, repo_type="dataset", branch=revision, exist_ok=True)
        info = api.upload_folder(
            folder_path=str(folder),
            repo_id=repo_id,
            repo_type="dataset",
            revision=revision,
            create_pr=create_pr,
            commit_message=message,
            ignore_patterns=IGNORE_PATTERNS,
        )
    except HfHubHTTPError as exc:
        status = getattr(getattr(exc, "response", None), "status_code", "?")
        raise PushError(
            f"the Hub rejected the upload (HTTP {status}): {str(exc).splitlines()[0][:200]}", EXIT_UPLOAD
        ) from exc
    except Exception as exc:  # noqa: BLE001 - requests/httpx(-compatible) transport errors: one line, no traceback
        detail = str(exc).splitlines()[0][:200] if str(exc) else ""
        kind = type(exc).__name__.lower()
        if not isinstance(exc, _network_errors()) and not any(w in kind for w in ("connect", "timeout", "transport")):
            raise PushError(f"upload failed: {type(exc).__name__}: {detail}", EXIT_UPLOAD) from exc
        raise PushError(f"cannot reach {url_base}: {type(exc).__name__}: {detail}", EXIT_NETWORK) from exc
    pr = getattr(info, "pr_url", None)
    print(f"pushed {len(files)} files to {url}" + (f" (pull request: {pr})" if pr else ""))
    print(f'load with: load_dataset("{repo_id}", "cuda-forward")')
    return url


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        push(
            args.repo_id,
            Path(args.folder),
            args.private,
            args.revision,
            args.create_pr,
            args.dry_run,
            args.determinism_sample,
        )
    except PushError as exc:
        print(f"push_to_hub: error: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print("push_to_hub: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
