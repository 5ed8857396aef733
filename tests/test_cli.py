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


def test_existing_folder_needs_overwrite(tmp_path, capsys):
    out = tmp_path / "o"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    assert main(["build", "--out", str(out), *TINY, "--verify", "none"]) == 2
    assert "pass --overwrite" in capsys.readouterr().err
    assert (out / "keep.txt").read_text() == "mine"


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
    import builder.dataset.records as records

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
