"""The benchmark harness: throughput of the builder against the bare-Warp floor, measured in one run on the same
kernels (``scripts/bench.py`` runs it).

    python scripts/bench.py --rows 120

(a) bare Warp per config: the one build + codegen that config's output needs (the floor);
(b) end-to-end rows/s per config through the datasets builder, writing Parquet (verify=none);
(c) num_proc=1 vs 2; (d) per config, verify=execute rows/s next to the bare compile floor
(batched NVRTC + CPU compile + launches on the same kernels, no bookkeeping; fresh caches);
(e) resident memory while one process generates ``--memory-rows`` cuda-backward rows (``--memory-verify``,
    default none; ``execute`` also compiles and runs every kernel on the CPU);
(f) generator statistics over ``--stats-rows`` train rows (programs only, no Warp): distinct normalized
shapes in the first 1,000, mean non-empty Python lines, distinct Warp builtins overall;
(g) ``--only ray``: the same build with ``--engine local --num-proc 2`` and ``--engine ray`` on two 1-CPU local
Ray nodes, the wall-time ratio, the scheduling overhead per shard, and whether the folders are byte-identical;
(h) ``--only versions --against REV,REV``: the same build (the default configs, ``--version-rows`` programs of each
split size's share, verify=execute, one process) with this tree's code and with each git revision's (checked out
in a temporary worktree), one after the other in one run: wall time, CPU seconds of the build process and rows
per CPU-second, and each ratio against this tree, so a generator change shows its cost on the same machine;
(i) ``--only derived-floor --real-data REAL``: windows of ``--derived-kernels`` source kernels of ``derived`` (one
starting at each of ``--derived-windows``), built by the builder's own row function at verify=compile and
verify=execute, next to the floor on the same variants: Warp's codegen of each variant in this process (its package
imported once) and each translation unit compiled alone by Warp's bundled compilers (NVRTC, and Clang at the
builder's optimization level), with no bookkeeping, no batching and no runs.
Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

from builder.build_options import BuildOptions
from builder.configs import UNITS
from builder.grammar.policy import CATEGORIES
from builder.grammar.sample import sample
from builder.sources.drawn.records import emitted_configs, generated_rows
from builder.warp_backend import codegen, verify
from warp_cuda_ir import WarpCudaIR


def timed(fn, *args):
    """(seconds, ``fn(*args)``): arguments bound at the call, so a loop's values are the ones timed."""
    t = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t, out


def with_rows(programs, config: str) -> list:
    """The programs that have a ``config`` row (a kernel without an adjoint has no cuda-backward row)."""
    return [p for p in programs if emitted_configs(p, (config,))]


def bare_floor(programs, config: str) -> tuple[float, int]:
    """Seconds for Warp's build + codegen of the programs' ``config`` units, and how many there were."""
    target = UNITS[config].target
    programs = with_rows(programs, config)

    def run():
        for k, p in enumerate(programs):
            module, _ = codegen.load_sources([("bench", p.source)], f"bench_floor_{k}")
            codegen.translation_unit(module, target, p.block_dim)
            codegen.release(module)

    return timed(run)[0], len(programs)


def builder_rows(
    config: str, n: int, num_proc: int, verify_level: str, out: Path, num_shards: int = 4
) -> tuple[float, int]:
    """Seconds for the datasets builder to build ``n`` programs' ``config`` rows to Parquet, and the rows."""

    def run():
        b = WarpCudaIR(
            config_name=config,
            cache_dir=str(out / f"{config}-{num_proc}-{verify_level}"),
            seed=0,
            num_train=n,
            num_validation=0,
            num_test=0,
            num_shards=num_shards,
            verify=verify_level,
        )
        b.download_and_prepare(num_proc=num_proc if num_proc > 1 else None)
        ds = b.as_dataset(split="train")
        ds.to_parquet(str(out / f"{config}-{num_proc}-{verify_level}.parquet"))
        return len(ds)

    return timed(run)


def compile_floor(programs, config: str) -> tuple[float, int]:
    """The compilers alone for ``config``: batched NVRTC (CUDA configs) + CPU compile + launches."""
    programs = with_rows(programs, config)
    units = [
        codegen.emit("bench", p.source, f"bench_cf_{k}", (config,), block_dim=p.block_dim)[config]
        for k, p in enumerate(programs)
    ]

    def run():
        items = [verify.Item("bench", p, u.tu, k) for k, (p, u) in enumerate(zip(programs, units))]
        if UNITS[config].target == "cuda":
            verify.compile_cuda(items, 16)
        verify.execute_cpu(items, 16)

    return timed(run)[0], len(programs)


def rss_mib() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def memory_profile(n: int, verify_level: str) -> list[tuple[int, float]]:
    """RSS after k rows, for k at 10%, 25%, 50%, 75% and 100% of the rows of ``n`` programs (flat: no leak)."""
    total = len(with_rows([sample(1, "train", i, CATEGORIES)[0] for i in range(n)], "cuda-backward"))
    marks, out = {max(1, total * p // 100) for p in (10, 25, 50, 75, 100)}, []
    with tempfile.TemporaryDirectory() as evidence:
        opts = BuildOptions(
            config="cuda-backward",
            seed=1,
            num_train=n,
            num_validation=0,
            num_test=0,
            verify=verify_level,
            evidence_dir=evidence,
        )
        for k, _ in enumerate(generated_rows(opts, "train", 0, n), start=1):
            if k in marks:
                out.append((k, rss_mib()))
                print(f"(e) {k} rows: {out[-1][1]:.0f} MiB", file=sys.stderr, flush=True)  # long runs show progress
    return out


def generator_stats(n: int) -> str:
    from builder.grammar.normalize import builtins_used, normalized_sha256

    programs = [sample(0, "train", i, CATEGORIES)[0] for i in range(n)]
    first = programs[:1000]
    shapes = len({normalized_sha256(p.source) for p in first})
    lines = sum(sum(1 for x in p.source.splitlines() if x.strip()) for p in first) / len(first)
    used = set().union(*(builtins_used(p.source) for p in programs))
    return (
        f"| (f) distinct normalized shapes in the first {len(first)} rows | {shapes} |\n"
        f"| (f) mean non-empty Python lines in the first {len(first)} rows | {lines:.1f} |\n"
        f"| (f) distinct Warp builtins over {n} rows | {len(used)} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(prog="bench.py", description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=120)
    ap.add_argument("--execute-rows", type=int, default=32)
    ap.add_argument("--memory-rows", type=int, default=2000)
    ap.add_argument("--memory-verify", choices=("none", "execute"), default="none")
    ap.add_argument("--scaling-rows", type=int, default=240)
    ap.add_argument("--stats-rows", type=int, default=10000)
    ap.add_argument(
        "--only", choices=("memory", "stats", "ray", "versions", "derived-floor"), help="just (e), (f), (g), (h) or (i)"
    )
    ap.add_argument("--real-data", default="", help="(i): a built folder with real's train split")
    ap.add_argument("--derived-windows", default="300,2520,3240", help="(i): first source kernel of each window")
    ap.add_argument("--derived-kernels", type=int, default=8, help="(i): source kernels per window")
    ap.add_argument("--against", default="", help="(h): comma-separated git revisions to compare this tree with")
    ap.add_argument(
        "--version-rows",
        type=int,
        default=200,
        help="(h): train programs (plus a tenth for each of validation and test)",
    )
    ap.add_argument("--ray-rows", type=int, default=96, help="(g): train rows of the engine comparison")
    ap.add_argument("--ray-rows-per-shard", type=int, default=8, help="(g): rows per shard")
    ap.add_argument("--ray-verify", choices=("none", "compile", "execute"), default="compile")
    args = ap.parse_args()
    if args.only == "derived-floor":
        if not args.real_data:
            ap.error("--only derived-floor needs --real-data (a built folder with real's train split)")
        windows = [int(w) for w in args.derived_windows.split(",") if w]
        from builder.bench.derived import derived_comparison
        from builder.errors import ConfigError

        try:
            print(derived_comparison(args.real_data, windows, args.derived_kernels))
        except ConfigError as exc:
            ap.exit(2, f"bench.py: {exc}\n")
        return
    if args.only == "versions":
        print(version_comparison([r for r in args.against.split(",") if r], args.version_rows))
        return
    if args.only == "ray":
        print(engine_comparison(args.ray_rows, args.ray_rows_per_shard, args.ray_verify))
        return
    if args.only == "stats":
        print("| generator statistic | value |\n|---|---|\n" + generator_stats(args.stats_rows))
        return
    memory = memory_profile(args.memory_rows, args.memory_verify)
    if args.only == "memory":
        print_memory(memory, args.memory_verify)
        print(f"\npeak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
        return
    stats = generator_stats(args.stats_rows)
    n = args.rows
    t_gen, sampled = timed(lambda: [sample(0, "train", i, CATEGORIES)[0] for i in range(n)])
    lines = ["| measurement | rows/s | ratio |", "|---|---|---|", f"| generation only (sample) | {n / t_gen:.1f} | |"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for cfg in ("cuda-forward", "cuda-backward", "cpu"):
            bare_floor(sampled[:2], cfg)  # warm-up: imports, Warp's first build
            t, units = bare_floor(sampled, cfg)
            floor = units / t
            t, built = builder_rows(cfg, n, 1, "none", out)
            r = built / t
            lines.append(
                f"| {cfg}: (a) bare Warp build + codegen vs (b) builder, verify=none | {floor:.1f} vs "
                f"{r:.1f} | (b)/(a) = {r / floor:.2f} |"
            )
        ns = args.scaling_rows
        t1, built1 = builder_rows("cuda-forward", ns, 1, "none", out / "p")
        t2, built2 = builder_rows("cuda-forward", ns, 2, "none", out / "p")
        r1, r2 = built1 / t1, built2 / t2
        lines.append(f"| (c) cuda-forward, num_proc=2 vs 1 | {r2:.1f} vs {r1:.1f} | scaling {r2 / r1:.2f}x |")
        m = args.execute_rows
        for cfg in ("cuda-forward", "cuda-backward", "cpu"):
            compile_floor(sampled[:1], cfg)  # warm-up: compiler start-up, prologue detection
            t, units = compile_floor(sampled[:m], cfg)
            floor_c = units / t
            # one shard, so the builder compiles full batches of 16 as the floor does (and as a default build
            # does: its shards hold over a thousand rows); small shards would measure partial batches
            t, built = builder_rows(cfg, m, 1, "execute", out / "e", num_shards=1)
            r = built / t
            lines.append(
                f"| (d) {cfg}: bare compile floor vs verify=execute | {floor_c:.2f} vs {r:.2f} | "
                f"{r / floor_c:.2f} of compile floor |"
            )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("\n".join(lines))
    print_memory(memory, args.memory_verify)
    print("\n| generator statistic | value |\n|---|---|\n" + stats)
    print(f"\npeak RSS of the benchmark process: {rss:.0f} MiB (rows={n}, scaling rows={ns}, execute rows={m})")


def version_comparison(revisions: list[str], n: int) -> str:
    """(h) The default build of ``n`` train programs with this tree and with each revision, in one run."""
    import json
    import os
    import signal
    import subprocess

    # SIGTERM unwinds like Ctrl-C, so the worktrees and the temporary folder go with it
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    root = Path(__file__).resolve().parents[1]
    argv = ["build", "--num-train", str(n), "--num-validation", str(n // 10), "--num-test", str(n // 10)]
    argv += ["--num-proc", "1"]
    rows_ = []
    with tempfile.TemporaryDirectory(prefix="bench_versions_") as tmp:
        trees = [("this tree", root)]
        for rev in revisions:
            tree = Path(tmp) / f"tree_{len(trees)}"
            subprocess.run(
                ["git", "-C", str(root), "worktree", "add", "--detach", str(tree), rev], check=True, capture_output=True
            )
            trees.append((rev, tree))
        try:
            for label, tree in trees:
                out = Path(tmp) / f"out_{len(rows_)}"
                env = {**os.environ, "PYTHONPATH": str(tree)}
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "builder.cli", *argv, "--out", str(out)],
                    cwd=tree,
                    env=env,
                    check=True,
                    capture_output=True,
                )
                wall = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                doc = json.loads((out / "manifest.json").read_text())
                rows = sum(f["rows"] for f in doc["files"] if f["path"].endswith(".parquet"))
                rows_.append((label, doc.get("generator_version"), wall, cpu, rows))
        finally:
            for _, tree in trees[1:]:
                subprocess.run(
                    ["git", "-C", str(root), "worktree", "remove", "--force", str(tree)],
                    check=False,
                    capture_output=True,
                )
    base = rows_[0][4] / rows_[0][3]
    lines = [
        "| code | generator | wall s | CPU s | rows | rows per CPU-second | this tree / it |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, gen, wall, cpu, rows in rows_:
        rate = rows / cpu
        lines.append(f"| {label} | {gen} | {wall:.0f} | {cpu:.0f} | {rows} | {rate:.2f} | {base / rate:.2f} |")
    return "\n".join(lines)


def engine_comparison(n: int, rows_per_shard: int, verify_level: str) -> str:
    """(g) The same build with ``--engine local --num-proc 2`` and ``--engine ray`` on two 1-CPU local nodes."""
    from ray.cluster_utils import Cluster

    from builder.cli import main as cli

    argv = ["build", "--num-train", str(n), "--num-validation", "0", "--num-test", "0", "--configs", "cpu"]
    argv += ["--verify", verify_level, "--rows-per-shard", str(rows_per_shard)]
    shards = -(-n // rows_per_shard)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        t_local, rc = timed(lambda: cli([*argv, "--num-proc", "2", "--out", str(out / "local")]))
        assert rc == 0
        t_up, cluster = timed(lambda: _two_nodes(Cluster))
        try:
            ray_argv = [*argv, "--engine", "ray", "--address", cluster.address, "--out", str(out / "ray")]
            t_ray, rc = timed(lambda: cli(ray_argv))
            assert rc == 0
            per_task = _task_overhead(cluster.address, 2 * shards)
        finally:
            cluster.shutdown()
        same = _tree(out / "local") == _tree(out / "ray")
    return (
        f"| (g) {n} cpu rows, {shards} shards, verify={verify_level} | seconds | rows/s |\n|---|---|---|\n"
        f"| local engine, --num-proc 2 | {t_local:.1f} | {n / t_local:.2f} |\n"
        f"| ray engine, 2 local nodes x 1 CPU | {t_ray:.1f} | {n / t_ray:.2f} |\n"
        f"| ray / local wall time | {t_ray / t_local:.2f} | |\n"
        f"| ray scheduling overhead per shard (no-op task, warm workers) | {per_task:.3f} | |\n"
        f"| cluster start (not in the ray time) | {t_up:.1f} | |\n"
        f"| byte-identical folders | {same} | |"
    )


def _two_nodes(cluster_cls):
    c = cluster_cls(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    c.add_node(num_cpus=1)
    c.wait_for_nodes()
    return c


def _task_overhead(address: str, tasks: int) -> float:
    """Seconds per task of a no-op task on warm workers (as shard tasks run after each worker's first)."""
    import ray

    @ray.remote(num_cpus=1)
    def noop() -> int:
        import builder.dataset.shards  # noqa: F401 - imported once per worker, as a shard task does

        return 0

    ray.init(address=address, include_dashboard=False, configure_logging=False)
    try:
        ray.get([noop.remote() for _ in range(2)])  # warm-up
        t, _ = timed(lambda: ray.get([noop.remote() for _ in range(tasks)]))
    finally:
        ray.shutdown()
    return t * 2 / tasks  # two nodes run two at a time


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def print_memory(memory: list[tuple[int, float]], verify_level: str) -> None:
    print(f"\n(e) resident memory while generating cuda-backward rows in one process (verify={verify_level}):\n")
    print("| rows generated | RSS (MiB) |\n|---|---|")
    print("\n".join(f"| {k} | {mib:.0f} |" for k, mib in memory))
