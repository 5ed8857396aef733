import datasets
import pytest

from builder.cli import main
from builder.errors import GeneratorBug

TINY = ["--num-train", "4", "--num-validation", "2", "--num-test", "2", "--num-shards", "2", "--on-invalid", "error"]


@pytest.mark.parametrize(
    "argv, match",
    [
        (["--configs", "cuda-sideways"], "unknown config 'cuda-sideways'"),
        (["--categories", "vector,bogus"], "unknown categories"),
        (["--num-train", "-3"], "num_train must be a non-negative integer"),
        (["--num-train", "0", "--num-validation", "0", "--num-test", "0"], "at least one split"),
        (["--num-proc", "0"], "--num-proc must be a positive integer"),
        (["--verify", "sometimes"], "unknown verify level"),
        (["--num-train", "many"], "invalid int value"),
        (["--seed", "99999999999999999999999"], "seed must be a non-negative integer at most 9223372036854775807"),
        (["--seed", str(2**63)], "seed must be a non-negative integer at most 9223372036854775807"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, match, capsys, tmp_path):
    with pytest.raises(SystemExit) if "many" in argv else _nothing():
        code = main(["build", "--out", str(tmp_path / "o"), *argv])
        assert code == 2
    err = capsys.readouterr().err.strip()
    assert match in err and len(err.splitlines()) == 1
    assert not (tmp_path / "o").exists()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_an_existing_folder_of_the_user_is_refused_even_with_overwrite(tmp_path, capsys):
    out = tmp_path / "o"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    for overwrite in ([], ["--overwrite"]):
        assert main(["build", "--out", str(out), *TINY, "--verify", "none", *overwrite]) == 2
        assert "not a dataset folder written by warp-cuda-ir" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["keep.txt"] and (out / "keep.txt").read_text() == "mine"


def test_folder_loads_offline_with_datasets(tmp_path, monkeypatch):
    out = tmp_path / "warp_cuda_ir"
    assert main(["build", "--out", str(out), *TINY, "--configs", "cuda-forward,cuda-backward"]) == 0
    assert sorted(p.name for p in (out / "cuda-forward").iterdir()) == [
        "test-00000-of-00002.parquet",
        "test-00001-of-00002.parquet",
        "train-00000-of-00002.parquet",
        "train-00001-of-00002.parquet",
        "validation-00000-of-00002.parquet",
        "validation-00001-of-00002.parquet",
    ]
    assert not list(tmp_path.glob(".warp_cuda_ir.partial-*"))
    monkeypatch.chdir(tmp_path)
    ds = datasets.load_dataset("warp_cuda_ir", "cuda-forward")
    assert ds["train"].num_rows == 4 and ds["test"].num_rows == 2
    assert all(ds["train"]["compiled"]) and all(ds["train"]["executed"])
    stream = datasets.load_dataset("warp_cuda_ir", "cuda-backward", split="train", streaming=True)
    assert [r["pass"] for r in stream] == ["backward"] * 4
    # --overwrite replaces the folder atomically
    assert main(["build", "--out", str(out), *TINY, "--configs", "cpu", "--verify", "none", "--overwrite"]) == 0
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["cpu"]


def test_generator_bug_is_one_line_exit_1_and_writes_nothing(tmp_path, capsys, monkeypatch):
    import builder.sources.drawn.records as records

    def broken(seed, split, index, categories):
        raise GeneratorBug(seed, split, index, "k", "boom")

    monkeypatch.setattr(records, "sample", broken)
    out = tmp_path / "o"
    assert main(["build", "--out", str(out), *TINY, "--configs", "cpu"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "warp-cuda-ir: error: GeneratorBug: generator bug at seed=0 split=train index=0 kernel='k': boom"
    assert not out.exists() and not list(tmp_path.glob(".o.partial-*"))


def test_generator_bug_in_a_worker_process_is_one_line_exit_1(tmp_path):
    """With --num-proc 2 the error crosses a process boundary (raised in a spawned worker by an injected fault)."""
    from tests.dataset.helpers import SMALL, leftovers, run

    faults = tmp_path / "faults"
    faults.mkdir()
    (faults / "bug@train-00001-of-00002").touch()
    out = tmp_path / "o"
    r = run(
        tmp_path, "--out", str(out), *SMALL, "--num-shards", "2", "--num-proc", "2", WARP_CUDA_IR_FAULTS=str(faults)
    )
    assert r.returncode == 1, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert (
        last
        == "warp-cuda-ir: error: GeneratorBug: generator bug at seed=0 split=train index=3 kernel='?': injected fault"
    )
    assert "Traceback" not in r.stderr
    assert not out.exists() and leftovers(tmp_path) == []


USAGE_ERRORS = [
    ["build", "--seed", str(2**63)],
    ["build", "--num-proc", "0"],
    ["build", "--out", ""],
    ["build", "--out", "mine", "--overwrite"],
    ["build", "--configs", "cpu,cpu"],
    ["validate", "nothere"],
    ["push", "--repo-id", "a/b", "--folder", "nothere", "--dry-run"],
]


def test_usage_errors_are_reported_before_warp_is_imported(tmp_path):
    """One line on stderr and exit 2, with no output of Warp's (its driver warning comes with its import and
    initialisation): each error in a fresh interpreter, which then says whether Warp was imported."""
    import subprocess
    import sys

    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    code = "import sys\nfrom builder.cli import main\nrc = main(sys.argv[1:])\nprint(rc, 'warp' in sys.modules)\n"
    for argv in USAGE_ERRORS:
        r = subprocess.run([sys.executable, "-c", code, *argv], cwd=tmp_path, capture_output=True, text=True)
        assert r.stdout.split() == ["2", "False"], (argv, r.stdout, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and "error" in r.stderr, (argv, r.stderr)
    assert (tmp_path / "mine" / "notes.txt").read_text() == "mine"
