"""Validate a built warp_cuda_ir folder (or a Hub repo) before publishing it.

    python scripts/validate.py FOLDER_OR_REPO_ID [--config NAME] [--json PATH]
                               [--determinism-sample K] [--seed-for-sampling S]

Every check reports counts and the first few offending ids. Exit 0 when all
checks pass, 1 when any fails, 2 (one line on stderr) for bad arguments.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from builder.errors import UsageError  # noqa: E402
from builder.grammar.policy import CATEGORIES  # noqa: E402
from builder.schema import CONFIGS, SPLITS, TARGETS, features  # noqa: E402

MAX_OFFENDERS = 5
NEAR_DUP_THRESHOLD = 0.9
NEAR_DUP_CAP = 2000  # rows per split fed to MinHash
SHINGLE = 5
TEXT_COLUMNS = ("python_source", "ir", "module_source")


@dataclass
class Check:
    name: str
    config: str
    status: str  # pass | fail | info | skip
    message: str
    count: int = 0
    offenders: list[str] = field(default_factory=list)
    data: dict = field(default_factory=dict)


@dataclass
class Report:
    source: str
    configs: dict[str, dict[str, int]]
    checks: list[Check]
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not any(c.status == "fail" for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if c.status == "fail"]

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "ok": self.ok,
            "seconds": round(self.seconds, 2),
            "configs": self.configs,
            "checks": [asdict(c) for c in self.checks],
        }

    def summary(self) -> str:
        lines = [
            f"validate {self.source}: "
            + ", ".join(
                f"{cfg} ({', '.join(f'{s}={n}' for s, n in sizes.items())})" for cfg, sizes in self.configs.items()
            )
        ]
        for c in self.checks:
            where = f"{c.config}:" if c.config else ""
            line = f"  {c.status.upper():4} {where}{c.name}: {c.message}"
            if c.offenders:
                line += f" [first: {', '.join(c.offenders)}]"
            lines.append(line)
        fails = self.failures
        lines.append(
            f"{'OK' if not fails else 'FAILED'}: {len(self.checks) - len(fails)}/{len(self.checks)} checks "
            f"passed or informational in {self.seconds:.1f}s"
            + (f"; failed: {', '.join(f'{c.config}:{c.name}' for c in fails)}" if fails else "")
        )
        return "\n".join(lines)


# ---------------------------------------------------------------- loading


def _split_files(folder: Path) -> dict[str, dict[str, list[Path]]]:
    out: dict[str, dict[str, list[Path]]] = {}
    for cfg_dir in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for split in SPLITS:
            files = sorted(cfg_dir.glob(f"{split}-*.parquet"))
            if files:
                out.setdefault(cfg_dir.name, {})[split] = files
    return out


def _is_repo_id(source: str) -> bool:
    return bool(re.fullmatch(r"[\w.-]+/[\w.-]+", source)) and not Path(source).exists()


def load(source: str, config: str | None) -> tuple[dict[str, dict[str, pa.Table]], dict[str, dict[str, list[str]]]]:
    """``{config: {split: table}}`` and the shard names each table came from."""
    path = Path(source)
    if path.is_dir():
        files = _split_files(path)
        if not files:
            raise UsageError(f"{source!r} holds no CONFIG/SPLIT-*.parquet shards")
        if config:
            if config not in files:
                raise UsageError(f"config {config!r} not in {source!r}; present: {', '.join(files)}")
            files = {config: files[config]}
        tables, shards = {}, {}
        for cfg, splits in files.items():
            tables[cfg], shards[cfg] = {}, {}
            for split, fs in splits.items():
                parts = [pq.read_table(f) for f in fs]
                try:
                    tables[cfg][split] = pa.concat_tables(parts, promote_options="default")
                except (pa.ArrowInvalid, TypeError):
                    tables[cfg][split] = parts[0]
                shards[cfg][split] = [f"{cfg}/{f.name}" for f in fs]
                for f, t in zip(fs, parts):
                    if t.schema.remove_metadata() != parts[0].schema.remove_metadata():
                        shards[cfg].setdefault("_mismatch", []).append(f"{cfg}/{f.name}")
        return tables, shards
    if path.exists() or not _is_repo_id(source):
        raise UsageError(f"{source!r} is neither a dataset folder nor a Hub repo id (ORG/NAME)")
    import datasets

    try:
        names = [config] if config else datasets.get_dataset_config_names(source)
        tables = {}
        for cfg in names:
            dd = datasets.load_dataset(source, cfg)
            tables[cfg] = {s: dd[s].data.table for s in SPLITS if s in dd}
    except Exception as exc:  # noqa: BLE001 - any load failure is a usage problem for this tool
        raise UsageError(f"cannot load {source!r}: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}") from exc
    return tables, {cfg: {} for cfg in tables}


# ---------------------------------------------------------------- helpers


def _ids(table: pa.Table, mask) -> list[str]:
    return table.filter(mask).column("id").slice(0, MAX_OFFENDERS).to_pylist()


def _concat(tables: dict[str, pa.Table], columns: list[str]) -> pa.Table:
    # a config has only its own columns (builder.schema.features): gpu_match exists in gpu-verified alone
    return pa.concat_tables([t.select([c for c in columns if c in t.schema.names]) for t in tables.values()])


def _sha(text: str | None) -> str:
    return hashlib.sha256((text or "").encode()).hexdigest()


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]", text)


def _shingles(text: str) -> set[bytes]:
    toks = _tokens(text)
    return {" ".join(toks[i : i + SHINGLE]).encode() for i in range(max(1, len(toks) - SHINGLE + 1))}


def infer_categories(table: pa.Table) -> tuple[str, ...]:
    """The build's category cycle: the default one if the rows fit it, else read off the data."""
    idx = table.column("index").to_pylist()
    cat = table.column("category").to_pylist()
    if all(c == CATEGORIES[i % len(CATEGORIES)] for i, c in zip(idx, cat)):
        return tuple(CATEGORIES)
    distinct = sorted(set(cat))
    by_index = dict(zip(idx, cat))
    ordered = tuple(by_index.get(i, "") for i in range(len(distinct)))
    if "" not in ordered and all(c == ordered[i % len(ordered)] for i, c in zip(idx, cat)):
        return ordered
    return tuple(distinct)


# ---------------------------------------------------------------- checks


def check_schema(cfg: str, tables: dict[str, pa.Table], shards: dict) -> list[Check]:
    import datasets

    FEATURES = features(cfg)  # noqa: N806 - the schema is per config
    expected = FEATURES.arrow_schema
    problems, offenders = [], []
    for split, t in tables.items():
        names = t.schema.names
        extra = [n for n in names if n not in FEATURES]
        missing = [n for n in FEATURES if n not in names]
        if extra or missing:
            problems.append(f"{split}: extra columns {extra}, missing {missing}")
            continue
        if names != list(FEATURES):
            problems.append(f"{split}: column order differs from the schema")
        for f in expected:
            if not t.schema.field(f.name).type.equals(f.type):
                problems.append(f"{split}: {f.name} is {t.schema.field(f.name).type}, expected {f.type}")
        try:
            feats = datasets.Features.from_arrow_schema(t.schema)
            if feats != FEATURES and not problems:
                problems.append(f"{split}: features differ from builder.schema.features(config)")
        except Exception as exc:  # noqa: BLE001
            problems.append(f"{split}: unreadable features ({exc})")
    for name in shards.get("_mismatch", []):
        problems.append(f"shard {name} has a different schema from its split's first shard")
        offenders.append(name)
    if problems:
        return [Check("schema", cfg, "fail", "; ".join(problems[:4]), len(problems), offenders[:MAX_OFFENDERS])]
    return [Check("schema", cfg, "pass", f"{len(FEATURES)} columns equal builder.schema.features(config) exactly")]


def check_rows(cfg: str, tables: dict[str, pa.Table]) -> list[Check]:
    out = []
    t = _concat(tables, ["id", "config", "split", "kernel_name", "pass", *TEXT_COLUMNS, "source_sha256", "ir_sha256"])
    # non-empty text
    bad = None
    for col in TEXT_COLUMNS:
        m = pc.or_kleene(pc.is_null(t.column(col)), pc.equal(pc.utf8_length(pc.fill_null(t.column(col), "")), 0))
        bad = m if bad is None else pc.or_(bad, m)
    n = pc.sum(pc.cast(bad, pa.int64())).as_py() or 0
    out.append(
        Check(
            "non_empty",
            cfg,
            "fail" if n else "pass",
            f"{n} rows with empty python_source/ir/module_source" if n else "no empty python_source/ir/module_source",
            n,
            _ids(t, bad) if n else [],
        )
    )
    # config/split columns agree with where the row is stored
    loc_bad = []
    for split, st in tables.items():
        m = pc.or_(pc.not_equal(st.column("config"), cfg), pc.not_equal(st.column("split"), split))
        loc_bad += _ids(st, m) if pc.any(m).as_py() else []
    out.append(
        Check(
            "placement",
            cfg,
            "fail" if loc_bad else "pass",
            f"rows whose config/split columns disagree with their shard: {len(loc_bad)}+"
            if loc_bad
            else "every row's config and split match the shard it is stored in",
            len(loc_bad),
            loc_bad[:MAX_OFFENDERS],
        )
    )
    # unique ids
    counts = pc.value_counts(t.column("id"))
    dup = [v["values"] for v in counts.to_pylist() if v["counts"] > 1]
    out.append(
        Check(
            "unique_ids",
            cfg,
            "fail" if dup else "pass",
            f"{len(dup)} ids occur more than once" if dup else f"{t.num_rows} ids, all unique",
            len(dup),
            dup[:MAX_OFFENDERS],
        )
    )
    # the IR holds the function named after the kernel for this target and pass
    missing = []
    for rid, name, pass_, ir in zip(*(t.column(c).to_pylist() for c in ("id", "kernel_name", "pass", "ir"))):
        suffix = TARGETS[cfg][2] if cfg in TARGETS else f"_cuda_kernel_{pass_}"
        if not ir or not re.search(rf"\b{re.escape(f'{name}{suffix}')}\s*\(", ir):
            missing.append(rid)
    out.append(
        Check(
            "ir_function",
            cfg,
            "fail" if missing else "pass",
            f"{len(missing)} rows whose ir lacks KERNEL{{suffix}}(...)"
            if missing
            else "every ir defines the kernel's function for its target and pass",
            len(missing),
            missing[:MAX_OFFENDERS],
        )
    )
    # hashes recorded in the row match its text
    bad_hash = []
    for rid, src, ir, ss, irs in zip(
        *(t.column(c).to_pylist() for c in ("id", "python_source", "ir", "source_sha256", "ir_sha256"))
    ):
        if _sha(src) != ss or _sha(ir) != irs:
            bad_hash.append(rid)
    out.append(
        Check(
            "hashes",
            cfg,
            "fail" if bad_hash else "pass",
            f"{len(bad_hash)} rows whose source_sha256/ir_sha256 do not match their text"
            if bad_hash
            else "source_sha256 and ir_sha256 match every row",
            len(bad_hash),
            bad_hash[:MAX_OFFENDERS],
        )
    )
    return out


def check_duplicates(cfg: str, tables: dict[str, pa.Table]) -> list[Check]:
    out = []
    # gpu-verified holds two rows (forward, backward) per program: count programs, not rows
    per_split = {
        s: t.filter(pc.equal(t.column("pass"), "forward")) if cfg == "gpu-verified" else t for s, t in tables.items()
    }
    within = {}
    offenders = []
    for split, t in per_split.items():
        col = t.column("normalized_sha256")
        n_dup = t.num_rows - len(pc.unique(col))
        within[split] = round(n_dup / t.num_rows, 4) if t.num_rows else 0.0
        if n_dup:
            vc = [v["values"] for v in pc.value_counts(col).to_pylist() if v["counts"] > 1]
            offenders += _ids(t, pc.is_in(col, pa.array(vc)))
    total = sum(int(r * per_split[s].num_rows + 0.5) for s, r in within.items())
    out.append(
        Check(
            "duplicates_within_split",
            cfg,
            "info",
            "exact normalized duplicates within a split: "
            + ", ".join(f"{s}={100 * r:.2f}%" for s, r in within.items()),
            total,
            offenders[:MAX_OFFENDERS],
            {"rate": within},
        )
    )
    seen: dict[str, str] = {}
    cross = []
    for split, t in per_split.items():
        for rid, h in zip(t.column("id").to_pylist(), t.column("normalized_sha256").to_pylist()):
            if h in seen and seen[h] != split:
                cross.append(rid)
        for h in t.column("normalized_sha256").to_pylist():
            seen.setdefault(h, split)
    out.append(
        Check(
            "duplicates_across_splits",
            cfg,
            "fail" if cross else "pass",
            f"{len(cross)} rows share normalized_sha256 with a row in another split"
            if cross
            else "no normalized program appears in two splits",
            len(cross),
            cross[:MAX_OFFENDERS],
        )
    )
    out.append(_near_duplicates(cfg, per_split))
    return out


def _near_duplicates(cfg: str, per_split: dict[str, pa.Table]) -> Check:
    from datasketch import MinHash, MinHashLSH

    rng = random.Random(0)
    lsh = MinHashLSH(threshold=NEAR_DUP_THRESHOLD, num_perm=64)
    sketches: dict[str, list[tuple[str, MinHash]]] = {}
    for split, t in per_split.items():
        rows = list(zip(t.column("id").to_pylist(), t.column("python_source").to_pylist()))
        if len(rows) > NEAR_DUP_CAP:
            rows = rng.sample(rows, NEAR_DUP_CAP)
        sk = []
        for rid, src in rows:
            m = MinHash(num_perm=64, seed=1)
            m.update_batch(list(_shingles(src or "")))
            sk.append((rid, m))
            lsh.insert(f"{split}\t{len(sk)}\t{rid}", m)  # position keeps keys unique when ids repeat
        sketches[split] = sk
    hits, checked = [], 0
    for split, sk in sketches.items():
        for rid, m in sk:
            checked += 1
            if any(key.split("\t", 1)[0] != split for key in lsh.query(m)):
                hits.append(rid)
    rate = len(hits) / checked if checked else 0.0
    return Check(
        "near_duplicates_across_splits",
        cfg,
        "info",
        f"{len(hits)}/{checked} sampled rows have a MinHash (Jaccard>={NEAR_DUP_THRESHOLD}, "
        f"{SHINGLE}-token shingles) neighbour in another split ({100 * rate:.2f}%)",
        len(hits),
        hits[:MAX_OFFENDERS],
        {"rate": round(rate, 4), "sampled": checked},
    )


def check_content(cfg: str, tables: dict[str, pa.Table]) -> list[Check]:
    out = []
    t = _concat(
        tables,
        [
            "id",
            "index",
            "category",
            "builtins",
            "verify",
            "compiled",
            "executed",
            "outputs_finite",
            "outputs_nondegenerate",
            "grads_finite",
            "gpu_match",
        ],
    )
    cats = infer_categories(t)
    counts = Counter(t.column("category").to_pylist())
    unknown = sorted(c for c in counts if c not in CATEGORIES)
    bad_ids = _ids(t, pc.is_in(t.column("category"), pa.array(unknown, pa.string()))) if unknown else []
    msg = ", ".join(f"{c}={counts.get(c, 0)}" for c in cats)
    out.append(
        Check(
            "category_balance",
            cfg,
            "fail" if unknown else "info",
            (f"unknown categories {unknown}; " if unknown else "") + f"counts over {len(cats)} categories: {msg}",
            len(counts),
            bad_ids,
            {"counts": dict(counts), "categories": list(cats)},
        )
    )
    builtins = Counter(b for bs in t.column("builtins").to_pylist() for b in sorted(set(bs or [])))
    by_rows = dict(sorted(builtins.items(), key=lambda kv: (-kv[1], kv[0])))  # same JSON under any hash seed
    out.append(
        Check(
            "builtin_coverage",
            cfg,
            "info",
            f"{len(builtins)} distinct builtins",
            len(builtins),
            [],
            {"builtins": by_rows},
        )
    )
    # verification evidence
    levels = set(t.column("verify").to_pylist())
    shares = {}
    problems: list[str] = []
    bad = None
    evidence = ("compiled", "executed", "outputs_finite", "outputs_nondegenerate", "grads_finite")
    for col in evidence + (("gpu_match",) if cfg == "gpu-verified" else ()):
        c = pc.fill_null(t.column(col), False)
        shares[col] = round(pc.sum(pc.cast(c, pa.int64())).as_py() / t.num_rows, 4) if t.num_rows else 0.0
    required = []
    if levels & {"compile", "execute"}:
        required.append("compiled")
    if "execute" in levels:
        required += ["executed", "outputs_finite", "outputs_nondegenerate", "grads_finite"]
    if cfg == "gpu-verified":
        required.append("gpu_match")
    for col in required:
        m = pc.invert(pc.fill_null(t.column(col), False))
        if col not in ("compiled", "gpu_match"):  # execution evidence is only required of execute rows
            m = pc.and_(m, pc.equal(t.column("verify"), "execute"))
        if pc.any(m).as_py():
            problems.append(f"{col}={100 * shares[col]:.1f}%")
            bad = m if bad is None else pc.or_(bad, m)
    msg = f"verify={','.join(sorted(levels))}: " + ", ".join(f"{k}={100 * v:.1f}%" for k, v in shares.items())
    out.append(
        Check(
            "verification",
            cfg,
            "fail" if problems else "pass",
            (f"required 100% but {', '.join(problems)}; " if problems else "") + msg,
            len(problems),
            _ids(t, bad) if bad is not None else [],
            {"shares": shares},
        )
    )
    return out


def check_determinism(all_tables: dict[str, dict[str, pa.Table]], k: int, seed: int) -> Check:
    if k <= 0:
        return Check("determinism", "", "skip", "--determinism-sample 0")
    from builder.dataset.records import sample
    from builder.warp_backend import codegen

    population = []
    cats_by_cfg = {}
    for cfg, tables in all_tables.items():
        cols = ["index", "category"]
        cats_by_cfg[cfg] = infer_categories(_concat(tables, cols))
        for split, t in tables.items():
            population += [(cfg, split, i) for i in range(t.num_rows)]
    picks = random.Random(seed).sample(population, min(k, len(population)))
    mismatches: list[str] = []
    details: list[str] = []
    by_program: dict[tuple, object] = {}
    for cfg, split, i in picks:
        columns = ["id", "seed", "index", "pass", "kernel_name", "normalized_sha256", "entry_point", *TEXT_COLUMNS]
        row = all_tables[cfg][split].slice(i, 1).select(columns).to_pylist()[0]
        key = (row["seed"], split, row["index"], cats_by_cfg[cfg])
        try:
            if key not in by_program:
                drawn = sample(row["seed"], split, row["index"], cats_by_cfg[cfg])
                program, nsha = drawn.program, drawn.normalized_sha256
                emitted = codegen.emit(
                    f"seed={row['seed']} split={split} index={row['index']}",
                    program.source,
                    f"wcir_{split}_{row['index']}",
                    ("cuda-forward", "cuda-backward", "cpu"),
                )
                by_program[key] = (program, nsha, emitted)
            program, nsha, emitted = by_program[key]
        except Exception as exc:  # noqa: BLE001 - a row that cannot be regenerated is a failure, not a crash
            mismatches.append(row["id"])
            details.append(f"{row['id']}: {type(exc).__name__}")
            continue
        unit = emitted[cfg if cfg in TARGETS else f"cuda-{row['pass']}"]
        diff = [
            name
            for name, want in (
                ("python_source", program.source),
                ("ir", unit.ir),
                ("module_source", unit.tu),
                ("entry_point", unit.entry),
                ("normalized_sha256", nsha),
            )
            if row[name] != want
        ]
        if diff:
            mismatches.append(row["id"])
            details.append(f"{row['id']}: {','.join(diff)}")
    if mismatches:
        return Check(
            "determinism",
            "",
            "fail",
            f"{len(mismatches)}/{len(picks)} regenerated rows differ ({'; '.join(details[:3])})",
            len(mismatches),
            mismatches[:MAX_OFFENDERS],
        )
    return Check(
        "determinism",
        "",
        "pass",
        f"{len(picks)} sampled rows regenerate byte for byte (python_source, ir, module_source)",
        len(picks),
    )


def check_card(folder: Path, all_tables: dict[str, dict[str, pa.Table]], config: str | None) -> Check:
    readme = folder / "README.md"
    if not readme.is_file():
        return Check("card", "", "fail", "README.md is missing")
    try:
        from datasets.info import DatasetInfosDict
        from datasets.utils.metadata import MetadataConfigs
        from huggingface_hub import DatasetCard

        card = DatasetCard.load(readme)
        if not card.data.to_dict():
            return Check("card", "", "fail", "README.md has no YAML front matter")
        configs = MetadataConfigs.from_dataset_card_data(card.data)
        infos = DatasetInfosDict.from_dataset_card_data(card.data)
    except Exception as exc:  # noqa: BLE001 - any parse failure is the finding
        return Check("card", "", "fail", f"README.md does not parse: {type(exc).__name__}: {str(exc)[:200]}")
    problems = []
    for cfg, tables in all_tables.items():
        if cfg not in configs:
            problems.append(f"config {cfg} missing from configs")
            continue
        files = configs[cfg].get("data_files", [])
        listed = {d["split"] for d in files} if isinstance(files, list) else set()
        if listed != set(tables):
            problems.append(f"{cfg}: data_files splits {sorted(listed)} != {sorted(tables)}")
        info = infos.get(cfg)
        if info is None or not info.splits:
            problems.append(f"{cfg}: no dataset_info splits")
            continue
        for split, t in tables.items():
            got = info.splits[split].num_examples if split in info.splits else None
            if got != t.num_rows:
                problems.append(f"{cfg}/{split}: card says {got} examples, data has {t.num_rows}")
        if info.features is not None and info.features != features(cfg):
            problems.append(f"{cfg}: card features differ from builder.schema.features(config)")
    if not config:
        extra = sorted(set(configs) - set(all_tables))
        if extra:
            problems.append(f"card lists configs without data: {extra}")
    if problems:
        return Check("card", "", "fail", "; ".join(problems[:4]), len(problems))
    return Check("card", "", "pass", "README.md parses; configs, data_files and split counts match the data")


# ---------------------------------------------------------------- driver


def validate(
    source: str | Path, config: str | None = None, determinism_sample: int = 50, seed_for_sampling: int = 0
) -> Report:
    """Run every check on a folder or Hub repo id; raise UsageError for bad arguments."""
    start = time.perf_counter()
    source = str(source)
    if config is not None and config not in CONFIGS:
        raise UsageError(f"unknown config {config!r}; valid: {', '.join(CONFIGS)}")
    if determinism_sample < 0:
        raise UsageError(f"--determinism-sample must be >= 0, got {determinism_sample}")
    tables, shards = load(source, config)
    checks: list[Check] = []
    for cfg, splits in tables.items():
        if cfg not in CONFIGS:
            checks.append(Check("config_name", cfg, "fail", f"unknown config directory {cfg!r}"))
            continue
        schema = check_schema(cfg, splits, shards.get(cfg, {}))
        checks += schema
        if cfg == "real":
            continue  # shipped kernels: no seed or index to regenerate from; builder.real.decontam checks them
        if schema[0].status == "fail" and any(c not in t.schema.names for t in splits.values() for c in features(cfg)):
            continue  # columns are missing: the other checks cannot run
        checks += check_rows(cfg, splits)
        checks += check_duplicates(cfg, splits)
        checks += check_content(cfg, splits)
    good = {
        c: s
        for c, s in tables.items()
        if c in CONFIGS and c != "real" and all(n in t.schema.names for t in s.values() for n in features(c))
    }
    checks.append(check_determinism(good, determinism_sample, seed_for_sampling))
    if Path(source).is_dir():
        checks.append(check_card(Path(source), tables, config))
    else:
        checks.append(Check("card", "", "skip", "Hub repo: the card is parsed by load_dataset itself"))
    sizes = {cfg: {s: t.num_rows for s, t in splits.items()} for cfg, splits in tables.items()}
    return Report(source, sizes, checks, time.perf_counter() - start)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        print(f"validate: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def main(argv: list[str] | None = None) -> int:
    p = _Parser(prog="validate.py", description=__doc__.splitlines()[0])
    p.add_argument("source", help="dataset folder or Hub repo id (ORG/NAME)")
    p.add_argument("--config", default=None)
    p.add_argument("--json", default=None, help="write the full report here")
    p.add_argument("--determinism-sample", type=int, default=50)
    p.add_argument("--seed-for-sampling", type=int, default=0)
    args = p.parse_args(argv)
    os.environ.setdefault("HF_DATASETS_OFFLINE", os.environ.get("HF_HUB_OFFLINE", "0"))
    try:
        report = validate(args.source, args.config, args.determinism_sample, args.seed_for_sampling)
    except UsageError as exc:
        print(f"validate: error: {exc}", file=sys.stderr)
        return 2
    print(report.summary())
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_dict(), indent=2))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
