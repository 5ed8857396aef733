"""A shard draws and emits each program once for every config of units in the build (``GeneratedSource.shard_rows``):
what a config's files hold must not depend on which configs are built with it, nor on the process count."""

from __future__ import annotations

from builder.cli import main


def _parquet(folder, config: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / config).glob("*.parquet"))}


def test_configs_built_together_write_the_files_each_writes_built_alone(tmp_path):
    # verify=execute: the evidence (compile batches and their PTX, CPU runs) is shared across configs as well
    args = ["--num-train", "20", "--num-validation", "4", "--num-test", "0", "--rows-per-shard", "12"]
    together = tmp_path / "together"
    configs = ("cuda-forward", "cuda-backward", "cpu")
    assert main(["build", *args, "--configs", ",".join(configs), "--num-proc", "2", "--out", str(together)]) == 0
    for config in configs:
        alone = tmp_path / config
        assert main(["build", *args, "--configs", config, "--out", str(alone)]) == 0
        assert _parquet(alone, config) == _parquet(together, config), config
        assert _parquet(alone, config)


def test_rows_left_out_are_counted_by_reason_in_the_shard_summary_and_reported(capsys):
    """Seed 0's train program 174 has an output its inputs leave constant: it is left out, and the shard's summary
    (what a build's report reads, resumed shards included) says why, per config."""
    from builder.build_options import BuildOptions
    from builder.sources.drawn import GeneratedSource
    from builder.sources.plan import Shard

    source, summary = GeneratedSource(), {}
    options = tuple(BuildOptions(config=c, num_train=180) for c in ("cpu", "cuda-forward"))
    rows = list(source.shard_rows(options, Shard("train", 0, 1, 172, 177), summary))
    assert sorted({(c, r["index"]) for c, r in rows}) == [
        (c, i) for c in ("cpu", "cuda-forward") for i in (172, 173, 175, 176)
    ]
    assert summary == {"left_out": {"cpu": {"degenerate outputs": 1}, "cuda-forward": {"degenerate outputs": 1}}}
    capsys.readouterr()
    source.report([summary, {}, summary], "cpu")
    assert capsys.readouterr().err == "warp_cuda_ir cpu: 2 invalid rows left out (degenerate outputs: 2)\n"


def test_what_a_build_left_out_is_in_its_manifest_its_card_and_its_last_lines(tmp_path, capsys):
    """Seed 36's train program 3 has an output its inputs leave constant: each config built with it says so."""
    import json

    out = tmp_path / "o"
    args = ["--seed", "36", "--num-train", "5", "--num-validation", "0", "--num-test", "0", "--out", str(out)]
    assert main(["build", *args, "--configs", "cpu,cuda-forward"]) == 0
    err = capsys.readouterr().err
    for config in ("cpu", "cuda-forward"):
        assert f"warp_cuda_ir {config}: 1 invalid rows left out (degenerate outputs: 1)" in err
    left_out = {"cpu": {"degenerate outputs": 1}, "cuda-forward": {"degenerate outputs": 1}}
    assert json.loads((out / "manifest.json").read_text())["left_out"] == left_out
    card = (out / "README.md").read_text()
    assert "| `cpu` | 4 | 1 | degenerate outputs: 1 |" in card and "| `cuda-forward` | 4 | 1 |" in card


def test_a_shard_builds_its_cpu_evidence_once_in_batches_across_its_chunks(monkeypatch):
    """The CPU build and run of a shard's programs is made once, for all of them (not chunk by chunk, where programs
    defining the same name filled small batches), and every row gets the evidence a build of its chunk alone got."""
    from builder.build_options import BuildOptions
    from builder.sources.drawn import GeneratedSource, records
    from builder.sources.plan import Shard
    from builder.warp_backend import verify

    calls, real = [], verify.execute_cpu
    monkeypatch.setattr(verify, "execute_cpu", lambda items, size: (calls.append(len(items)), real(items, size)))
    monkeypatch.setattr(records, "CHUNK", 4)  # two chunks and a half in a shard of 10 programs
    opts = BuildOptions(config="cpu", num_train=10)
    shard = list(GeneratedSource().shard_rows((opts,), Shard("train", 0, 1, 0, 10), {}))
    assert calls == [10]
    chunked = [row for lo in range(0, 10, 4) for _, row in records.unit_rows((opts,), "train", lo, min(lo + 4, 10))]
    assert [row for _, row in shard] == chunked and len(chunked) >= 9
