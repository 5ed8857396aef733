"""Pieces of the card's body: statistics formatting, the example rows, the regenerate command and the schema table."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from builder import GENERATOR_VERSION
from builder.built_folder import BuiltFolder
from builder.configs import CONFIGS, REGISTRY, spec
from builder.folder_format import infer_categories
from builder.grammar.policy import CATEGORIES
from builder.schema import FIELD_DOCS, FIELDS, SPLITS, columns


def share(table: pa.Table, column: str) -> float | None:
    if column not in table.column_names:
        return None  # the config has no such column (gpu_match outside gpu-verified)
    col = table.column(column)
    if col.null_count == len(col) or len(col) == 0:
        return None
    return pc.sum(pc.cast(pc.fill_null(col, False), pa.int64())).as_py() / len(col)


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def quantiles(values: list[int]) -> str:
    if not values:
        return "n/a"
    v = sorted(values)

    def q(p: float) -> int:
        return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]

    return f"min {v[0]}, median {q(0.5)}, p90 {q(0.9)}, max {v[-1]}"


_CODE_SPAN = re.compile(r"(`[^`]*`)")
_INLINE = re.compile(r"([\\*_\[\]<>|~])")  # what starts emphasis, links, HTML or a table cell inside a line


def md_escape(text: str) -> str:
    """Text for a Markdown table cell, shown as written: ``__global__`` is not bold, ``<T>`` not a tag; inside a
    code span only the cell separator needs its backslash."""
    parts = _CODE_SPAN.split(text)
    return "".join(p.replace("|", "\\|") if i % 2 else _INLINE.sub(r"\\\1", p) for i, p in enumerate(parts))


def md_code(text: str) -> str:
    """Text for a code span in a table cell."""
    return text.replace("|", "\\|")


def example(folder: BuiltFolder, cfg: str) -> str:
    splits = folder.files[cfg]
    split = "train" if "train" in splits else next(iter(splits))
    row = folder.first_row(cfg, split, ["id", "python_source", "ir", "target", "pass", "entry_point"])
    if row is None:
        return "_(no rows)_\n"
    lang = "cuda" if row["target"] == "cuda" else "cpp"
    return (
        f"Row `{row['id']}` ({row['target']} {row['pass']}, entry point `{row['entry_point']}`):\n\n"
        f"```python\n{row['python_source'].rstrip()}\n```\n\n```{lang}\n{row['ir'].rstrip()}\n```\n"
    )


def regenerate(per_config: dict[str, pa.Table], folder: BuiltFolder, request) -> str:
    """The build command that makes these files again (``per_config``: the generated configs' statistics)."""
    from builder.build_options import BuildOptions

    files = folder.files
    configs = list(per_config) + [c for c in CONFIGS if spec(c).shipped and c in files]
    real = BuildOptions("real")  # the real config's own options, read off the build when it is known
    if request:
        o = request.options
        seed, sizes, cats, verify = o.seed, [o.num_train, o.num_validation, o.num_test], o.categories, o.verify
        default_rps = type(o).__dataclass_fields__["rows_per_shard"].default
        shards = f"--num-shards {o.num_shards}" if o.num_shards else ""
        if not shards and o.rows_per_shard != default_rps:
            shards = f"--rows-per-shard {o.rows_per_shard}"
        configs = list(request.configs)
        real = o
    elif not per_config:  # only shipped kernels: their rows carry no seed or sizes
        seed, sizes, cats = 0, [], CATEGORIES
        first = configs[0]
        shards = f"--num-shards {max(len(fs) for fs in files[first].values())}"
        row = folder.first_row(first, next(iter(files[first])), ["verify"])
        verify = row["verify"] if row else "compile"
    else:
        t = next(iter(per_config.values()))
        seed = pc.min(t.column("seed")).as_py() if t.num_rows else 0
        sizes = []
        for s in SPLITS:
            idx = t.filter(pc.equal(t.column("split"), s)).column("index")
            sizes.append((pc.max(idx).as_py() + 1) if len(idx) else 0)
        train = t.filter(pc.equal(t.column("split"), "train"))
        train = train if train.num_rows else t
        cats = infer_categories(train.column("index").to_pylist(), train.column("category").to_pylist())
        verify = (t.column("verify").to_pylist() or ["execute"])[0]
        generated = {cfg: fs for cfg, fs in files.items() if not _shipped(cfg)}
        counts = {sp: len(fs) for cfg_files in generated.values() for sp, fs in cfg_files.items()}
        shards = _shard_flag({s: (n, counts[s]) for s, n in zip(SPLITS, sizes) if s in counts})
    cmd = [f"warp-cuda-ir build --configs {','.join(configs)}"]
    derived = [c for c in configs if spec(c).derived]
    if any(not _shipped(c) for c in configs):  # the shipped configs have no seed, sizes or categories
        cmd[0] += f" --seed {seed}"
    if any(not _shipped(c) and c not in derived for c in configs):
        cmd.append(f"--num-train {sizes[0]} --num-validation {sizes[1]} --num-test {sizes[2]}")
        if tuple(cats) != tuple(CATEGORIES):
            cmd.append(f"--categories {','.join(cats)}")
    if derived:  # variants of a built real folder's train kernels: that folder, how many, of how many kernels
        defaults = BuildOptions("derived")
        flags = [f"--real-data {real.real_data or 'REAL_FOLDER'}"]
        flags += [f"--num-derived {real.num_derived}"] if real.num_derived != defaults.num_derived else []
        flags += [f"--derived-kernels {real.derived_kernels}"] if real.derived_kernels else []
        cmd.append(" ".join(flags))
    if any(_shipped(c) for c in configs):
        defaults = BuildOptions(real.config).real_sources
        if real.real_sources != defaults:
            cmd.append(f"--real-sources {','.join(real.real_sources)}")
        if real.real_modules:
            cmd.append(f"--real-modules {real.real_modules}")
    cmd.append(" ".join(x for x in (shards, f"--verify {verify} --out warp_cuda_ir") if x))
    return " \\\n    ".join(cmd)


def _shipped(config: str) -> bool:
    """Rows a package ships (a folder's other configs, unknown here, are not)."""
    return config in REGISTRY and spec(config).shipped


def _shard_flag(found: dict[str, tuple[int, int]]) -> str:
    """The flag that reproduces the shard counts found, ``{split: (size, shards)}``: shard boundaries depend only
    on a split's size and its shard count, so matching the counts pins the bytes."""
    from builder.build_options import BuildOptions

    def per_rows(rps: int) -> bool:
        return all(k == -(-n // rps) for n, k in found.values())

    default_rps = BuildOptions.__dataclass_fields__["rows_per_shard"].default
    if per_rows(default_rps):
        return ""
    if len({k for _, k in found.values()}) == 1:
        return f"--num-shards {next(iter(found.values()))[1]}"
    n, k = max(found.values())
    rps = -(-n // k)
    return f"--rows-per-shard {rps}" if per_rows(rps) else f"--num-shards {k}"


def project_urls(pyproject: Path | None = None) -> dict[str, str]:
    """The builder's ``[project.urls]``: read from the source tree's pyproject.toml when the card is rendered from
    one (an editable install's metadata is as old as the install), else from the installed package's metadata."""
    pyproject = pyproject or Path(__file__).resolve().parents[1] / "pyproject.toml"
    if pyproject.is_file():
        try:
            import tomllib
        except ModuleNotFoundError:  # Python 3.10
            import tomli as tomllib

        project = tomllib.loads(pyproject.read_text()).get("project", {})
        if project.get("name") == "warp-cuda-ir":
            return dict(project.get("urls", {}))
    from importlib import metadata

    try:
        entries = metadata.metadata("warp-cuda-ir").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return {}
    return {k.strip(): v.strip() for k, v in (e.split(",", 1) for e in entries if "," in e)}


def source_url(urls: dict[str, str]) -> str:
    """Where the builder's source lives: its repository, else its home page; empty when pyproject names none."""
    return urls.get("Repository") or urls.get("Homepage") or next(iter(urls.values()), "")


def builder_line(urls: dict[str, str]) -> str:
    """Where the ``warp-cuda-ir`` command comes from: the builder's package, its version and its source."""
    from importlib import metadata

    try:
        version = metadata.version("warp-cuda-ir")
    except metadata.PackageNotFoundError:  # rendered from a source tree that was not installed
        version = ""
    where = f"its repository, {source_url(urls)}," if source_url(urls) else "its source tree"
    package = f"`warp-cuda-ir` {version}".rstrip()
    return (
        f"`warp-cuda-ir` is the command of the warp_cuda_ir builder, the Python package {package} "
        f"(kernel generator {GENERATOR_VERSION}); install it from {where} with `pip install .`"
    )


def builder_doc(urls: dict[str, str], path: str) -> str:
    """A document of the builder, named with the address of its source when pyproject gives one."""
    url = source_url(urls)
    return f"`{path}` in the builder's source ({url})" if url else f"`{path}` in the builder's source"


def schema_table() -> str:
    """The columns as a Markdown table: name, type, the configs that have it, description (the card and
    docs/schema.md)."""
    rows = [
        f"| `{k}` | `{md_code(feature_str(FIELDS[k][0]))}` | {configs_with(k)} | {md_escape(doc)} |"
        for k, doc in FIELD_DOCS.items()
    ]
    return "\n".join(["| column | type | configs | description |", "|---|---|---|---|", *rows])


def configs_with(column: str) -> str:
    """The configs that have a column: all, or the ones named."""
    have = [c for c in CONFIGS if column in columns(c)]
    return "all" if len(have) == len(CONFIGS) else ", ".join(have)


def feature_str(feature) -> str:
    import datasets

    if isinstance(feature, datasets.Value):
        return feature.dtype
    if isinstance(feature, (datasets.Sequence, datasets.List)):
        inner = getattr(feature, "feature", None)
        return f"list<{feature_str(inner)}>"
    if isinstance(feature, list) and feature:
        return f"list<{feature_str(feature[0])}>"
    return type(feature).__name__
