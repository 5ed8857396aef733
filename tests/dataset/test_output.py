"""Output paths, temporary files, options from one source, and what a build says about its size."""

import subprocess
import sys

import pytest

from builder.build_options import BuildOptions, cli_default, user_fields
from builder.cli import main
from builder.commands.build import request_from
from tests.dataset.helpers import SMALL, env_for, leftovers, run, start


@pytest.mark.parametrize("overwrite", [[], ["--overwrite"]])
def test_a_file_in_the_way_is_called_a_file_and_never_replaced(overwrite, tmp_path, capsys):
    f = tmp_path / "F"
    f.write_text("mine")
    assert main(["build", "--out", str(f), *SMALL, *overwrite]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"warp-cuda-ir: error: output path {str(f)!r} exists and is a file, not a folder; choose another --out"
    )
    assert f.read_text() == "mine"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("where", ["under_a_file", "proc"])
def test_an_unwritable_output_is_exit_2_naming_the_path_given(where, tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    out = str(tmp_path / "afile" / "o") if where == "under_a_file" else "/proc/warp_cuda_ir_no/o"
    assert main(["build", "--out", out, *SMALL]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"warp-cuda-ir: error: cannot write the output folder {out!r}: ") and "\n" not in err
    assert ".partial" not in err


@pytest.mark.parametrize("num_proc", [1, 2])
def test_the_datasets_builder_leaves_nothing_in_tmp(tmp_path, num_proc):
    """A process pool's workers are terminated, not shut down, so their exit handlers never run: what they
    write must live where the builder removes it."""
    code = (
        "from warp_cuda_ir import WarpCudaIR\n"
        "b = WarpCudaIR(config_name='cpu', cache_dir='hf', num_train=4, num_validation=1, num_test=1,\n"
        "               verify='compile', num_shards=2)\n"
        f"b.download_and_prepare(num_proc={num_proc})\n"
        "assert b.as_dataset(split='train').num_rows == 4\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env_for(tmp_path), capture_output=True)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    assert leftovers(tmp_path) == []


def test_cli_arguments_and_builder_config_come_from_build_options():
    from builder.cli import parser
    from warp_cuda_ir import WarpCudaIRConfig

    args = parser().parse_args(["build"])
    config = WarpCudaIRConfig(name="cpu")
    for f in user_fields():
        assert getattr(args, f.name) == cli_default(f), f.name
        assert getattr(config, f.name) == f.default, f.name
    assert next(iter(request_from(args))) == BuildOptions(config="cuda-forward")
    assert config.options == BuildOptions(config="cpu")
    # the same parsing on both sides: a trailing comma is accepted by both
    cli = request_from(parser().parse_args(["build", "--categories", "vector,", "--configs", "cpu"])).options
    from warp_cuda_ir import WarpCudaIR

    assert cli.categories == WarpCudaIR(config_name="cpu", categories="vector,").config.options.categories


def test_help_says_what_bounds_parallelism(capsys):
    with pytest.raises(SystemExit):
        main(["build", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "at most as many processes or Ray tasks as it has shards" in out
    assert "--rows-per-shard" in out and "--engine {local,ray}" in out


def test_num_proc_beyond_the_shards_is_said_and_a_summary_line_ends_the_build(tmp_path):
    r = run(tmp_path, "--out", str(tmp_path / "o"), *SMALL, "--num-proc", "5")
    assert r.returncode == 0, r.stderr
    assert "warning: --num-proc 5 but only 3 shards to build: at most 3 processes work" in r.stderr
    assert r.stderr.count("Could not find or load the NVIDIA CUDA driver") <= 1  # once, not once per worker
    assert "built 3 shards, 10 rows x 1 configs" in r.stderr


def test_num_shards_beyond_the_rows_is_said_in_one_line(tmp_path, capsys):
    assert main(["build", "--out", str(tmp_path / "o"), *SMALL, "--num-shards", "100000"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "--num-shards" in line]
    assert warnings == [
        "warp-cuda-ir: warning: --num-shards 100000 but the largest split has 6 rows: a split has at most one shard "
        "per row, so at most 6 shards each"
    ]
    assert len(list((tmp_path / "o" / "cpu").glob("train-*.parquet"))) == 6


def test_a_build_of_hours_says_so_before_it_starts(tmp_path):
    import signal

    proc = start(tmp_path, "--out", str(tmp_path / "o"), "--num-train", "1000000", "--configs", "cpu")
    first = ""
    for line in proc.stderr:
        if line.startswith("warp-cuda-ir: warning:"):
            first = line
            break
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert "about 1002000 rows to build" in first and "that is about" in first, first + err
    assert proc.returncode == 143 and leftovers(tmp_path) == []
