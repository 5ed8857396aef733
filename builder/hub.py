"""Publish a built folder as a Hugging Face Hub dataset repo: validate, render the card, upload.

Nothing is built here: a missing folder fails at once and says how to build it. The folder is read once
(``BuiltFolder``), and validated and its card rendered from that read. Every failure is a ``PushError`` whose
``code`` says at which step it stopped.
"""

from __future__ import annotations

import os
import re
import tempfile
from fnmatch import fnmatch
from pathlib import Path

from builder.built_folder import BuiltFolder
from builder.checks.fidelity import FIDELITY_SAMPLE
from builder.errors import CorruptShard, PushError, UsageError

IGNORE_PATTERNS = ["*.lock", ".cache/*", "*.tmp"]
EXIT_USAGE, EXIT_INVALID, EXIT_AUTH, EXIT_NETWORK, EXIT_UPLOAD = 2, 4, 5, 6, 7
_TRANSPORT_WORDS = ("connect", "timeout", "transport")


def planned_files(folder: Path) -> list[str]:
    """Files upload_folder would send, relative to the folder, after ignore_patterns."""
    out = []
    for f in sorted(folder.rglob("*")):
        rel = f.relative_to(folder).as_posix()
        if not f.is_file() or rel.startswith(".") or "/." in rel or any(fnmatch(rel, p) for p in IGNORE_PATTERNS):
            continue
        out.append(rel)
    return out


def commit_message(report) -> str:
    sizes = "; ".join(f"{cfg}: " + ", ".join(f"{s}={n}" for s, n in sp.items()) for cfg, sp in report.configs.items())
    return f"Upload warp_cuda_ir ({sizes})"


def open_folder(folder: Path) -> BuiltFolder:
    """The built folder, read; never builds one (a push of a typo must not start a long build)."""
    how = f"build it first with `warp-cuda-ir build --out {folder}`"
    if not folder.exists():
        raise PushError(f"{str(folder)!r} does not exist; {how}", EXIT_USAGE)
    if not folder.is_dir():
        raise PushError(f"{str(folder)!r} is not a folder; {how}", EXIT_USAGE)
    try:
        return BuiltFolder.open(folder)
    except UsageError as exc:
        raise PushError(f"{str(folder)!r} holds no CONFIG/SPLIT-*.parquet shards; {how}", EXIT_USAGE) from exc


def _token() -> str | None:
    from huggingface_hub import get_token

    return os.environ.get("HF_TOKEN") or get_token()


def _network_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [OSError, ConnectionError, TimeoutError]
    for mod, name in (("requests", "RequestException"), ("httpx", "HTTPError"), ("httpx", "TransportError")):
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
    fidelity_sample: int = FIDELITY_SAMPLE,
) -> str:
    """Validate, render and upload; return the dataset URL (a dry run prints the plan and returns it)."""
    from builder.validate import validate

    if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo_id):
        raise PushError(f"--repo-id must look like ORG/NAME, got {repo_id!r}", EXIT_USAGE)
    folder = Path(folder)
    built = open_folder(folder)
    token = None if dry_run else _token()
    if not dry_run and not token:
        raise PushError("no Hugging Face token: set HF_TOKEN or run `hf auth login`", EXIT_AUTH)
    try:
        report = validate(built, fidelity_sample=fidelity_sample, progress=True)  # minutes: say what runs
    except UsageError as exc:
        raise PushError(f"cannot validate {folder}: {exc}", EXIT_USAGE) from exc
    except CorruptShard as exc:
        raise PushError(f"refusing to push {folder}: {exc}", EXIT_INVALID) from exc
    if not report.ok:
        raise PushError(f"refusing to push {folder}: validation failed: {report.failure_line()[:500]}", EXIT_INVALID)
    message = commit_message(report)
    url_base = os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")
    url = f"{url_base}/datasets/{repo_id}"
    config = built.configs[0]
    if dry_run:
        files = _dry_run_files(built, repo_id)
        pr = " as a pull request" if create_pr else ""
        print(
            f"dry run: would create dataset repo {repo_id} (private={private}) and upload {len(files)} files "
            f"to revision {revision or 'main'}{pr}:"
        )
        print("\n".join(f"  {f}" for f in files))
        print(f"commit message: {message}")
        print(f"dataset URL: {url}")
        print(f'load with: load_dataset("{repo_id}", "{config}")')
        return url
    from dataset_card.render import render

    render(built, repo_id=repo_id)  # the published card names the repo it is loaded from
    files = planned_files(folder)
    info = _upload(token, repo_id, folder, private, revision, create_pr, message, url_base)
    pr = getattr(info, "pr_url", None)
    print(f"pushed {len(files)} files to {url}" + (f" (pull request: {pr})" if pr else ""))
    print(f'load with: load_dataset("{repo_id}", "{config}")')
    return url


def _dry_run_files(folder: BuiltFolder, repo_id: str) -> list[str]:
    """What a push would upload: the folder's files with the card rendered for the repo, rendered aside, since a
    dry run writes nothing into the folder."""
    from dataset_card.render import render

    with tempfile.TemporaryDirectory(prefix="warp_cuda_ir_card_") as aside:
        render(folder, repo_id=repo_id, out=Path(aside))
        return sorted(set(planned_files(folder.path)) | set(planned_files(Path(aside))))


def _upload(token, repo_id, folder, private, revision, create_pr, message, url_base):
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    api = HfApi(token=token)
    try:
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        if revision and not create_pr:
            api.create_branch(repo_id, repo_type="dataset", branch=revision, exist_ok=True)
        return api.upload_folder(
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
        detail = str(exc).splitlines()[0][:200]
        raise PushError(f"the Hub rejected the upload (HTTP {status}): {detail}", EXIT_UPLOAD) from exc
    except Exception as exc:  # noqa: BLE001 - requests/httpx transport errors: one line, no traceback
        detail = str(exc).splitlines()[0][:200] if str(exc) else ""
        kind = type(exc).__name__.lower()
        if not isinstance(exc, _network_errors()) and not any(w in kind for w in _TRANSPORT_WORDS):
            raise PushError(f"upload failed: {type(exc).__name__}: {detail}", EXIT_UPLOAD) from exc
        raise PushError(f"cannot reach {url_base}: {type(exc).__name__}: {detail}", EXIT_NETWORK) from exc
