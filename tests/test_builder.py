import pytest

from builder.build_options import BuildOptions
from builder.errors import ConfigError, GPURequired
from builder.grammar.policy import CATEGORIES
from builder.grammar.sample import sample
from builder.schema import features
from tests.conftest import has_cuda
from warp_cuda_ir import WarpCudaIR

SMALL = dict(seed=3, num_train=6, num_validation=2, num_test=2, num_shards=3, verify="none")


def _rows(ds):
    return [dict(r) for r in ds]


def test_num_proc_and_streaming_give_identical_rows(tmp_path):
    one = WarpCudaIR(config_name="cuda-backward", cache_dir=str(tmp_path / "a"), **SMALL)
    one.download_and_prepare()
    two = WarpCudaIR(config_name="cuda-backward", cache_dir=str(tmp_path / "b"), **SMALL)
    two.download_and_prepare(num_proc=2)
    stream = WarpCudaIR(config_name="cuda-backward", cache_dir=str(tmp_path / "c"), **SMALL).as_streaming_dataset()
    for split in ("train", "validation", "test"):
        a = _rows(one.as_dataset(split=split))
        assert a == _rows(two.as_dataset(split=split)) == _rows(stream[split])
        # every row in order, but for kernels declared without an adjoint (no backward row)
        n = SMALL[f"num_{split}"]
        with_adjoint = [i for i in range(n) if sample(SMALL["seed"], split, i, CATEGORIES).program.backward]
        assert [r["index"] for r in a] == with_adjoint
    assert one.info.features == features("cuda-backward")


def test_rows_follow_the_schema_and_configs_share_programs(tmp_path):
    rows = {}
    for cfg in ("cuda-forward", "cuda-backward", "cpu"):
        b = WarpCudaIR(config_name=cfg, cache_dir=str(tmp_path / cfg), **SMALL)
        b.download_and_prepare()
        rows[cfg] = _rows(b.as_dataset(split="train"))
    backward = {r["index"]: r for r in rows["cuda-backward"]}
    assert len(rows["cuda-forward"]) == len(rows["cpu"]) == SMALL["num_train"] and backward
    for fwd, cpu in zip(rows["cuda-forward"], rows["cpu"]):
        assert fwd["python_source"] == cpu["python_source"]
        bwd = backward.get(fwd["index"])
        if bwd is None:  # declared @wp.kernel(enable_backward=False): no adjoint, no backward row
            assert "enable_backward=False" in fwd["python_source"]
        else:
            assert bwd["python_source"] == fwd["python_source"] and bwd["pass"] == "backward"
            assert f"{bwd['kernel_name']}_cuda_kernel_backward(" in bwd["ir"]
        # @wp.kernel(launch_bounds=N) adds __launch_bounds__(N) to the signature
        head = fwd["ir"].replace("__launch_bounds__(256) ", "")
        assert head.startswith(f'extern "C" __global__ void {fwd["kernel_name"]}_cuda_kernel_forward(')
        assert f"{cpu['kernel_name']}_cpu_kernel_forward(" in cpu["ir"]
        assert (fwd["target"], fwd["pass"], cpu["target"]) == ("cuda", "forward", "cpu")
        assert list(fwd) == list(features("cuda-forward")) and list(cpu) == list(features("cpu"))


def test_no_normalized_program_crosses_splits(tmp_path):
    b = WarpCudaIR(
        config_name="cpu", cache_dir=str(tmp_path), seed=9, num_train=40, num_validation=15, num_test=15, verify="none"
    )
    b.download_and_prepare()
    seen = {s: {r["normalized_sha256"] for r in b.as_dataset(split=s)} for s in ("train", "validation", "test")}
    assert not (seen["train"] & seen["validation"]) and not (seen["train"] & seen["test"])
    assert not (seen["validation"] & seen["test"])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(num_train=-1), "num_train must be a non-negative integer"),
        (dict(num_train=0, num_validation=0, num_test=0), "at least one split"),
        (dict(categories=("vector", "nope")), "unknown categories"),
        (dict(verify="maybe"), "unknown verify level"),
        (dict(on_invalid="warn"), "unknown on_invalid"),
        (dict(num_shards=-1), "num_shards must be a positive integer"),
        (dict(rows_per_shard=0), "rows_per_shard must be a positive integer"),
        (dict(seed=-4), "seed must be a non-negative integer"),
        (dict(seed=2**63), "seed must be a non-negative integer at most 9223372036854775807"),
    ],
)
def test_bad_config_keywords_fail_clearly(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        WarpCudaIR(config_name="cpu", **kwargs)


def test_unknown_config_lists_valid_ones():
    with pytest.raises(ConfigError, match="valid: cuda-forward, cuda-backward, cpu, gpu-verified"):
        BuildOptions(config="ptx")


@pytest.mark.skipif(has_cuda(), reason="checks the no-GPU error")
def test_gpu_verified_refuses_without_a_gpu(tmp_path):
    b = WarpCudaIR(config_name="gpu-verified", cache_dir=str(tmp_path), **SMALL)
    with pytest.raises(GPURequired, match="requires a CUDA GPU"):
        b.download_and_prepare()


def test_a_build_request_is_one_set_of_options_for_several_configs():
    from builder.build_options import BuildOptions, BuildRequest
    from builder.errors import ConfigError

    req = BuildRequest.of("cpu,real", num_train=3, seed=5)
    assert req.configs == ("cpu", "real") and req.options == BuildOptions("cpu", num_train=3, seed=5)
    assert [o.config for o in req] == ["cpu", "real"] and {o.seed for o in req} == {5}
    assert req.public() == {"configs": ["cpu", "real"], **req.options.public()}
    with pytest.raises(ConfigError, match="configs repeat"):
        BuildRequest.of(("cpu", "cpu"))
    with pytest.raises(ConfigError, match="at least one config"):
        BuildRequest.of("")
    with pytest.raises(ConfigError, match="unknown config 'gpu'"):
        BuildRequest.of("cpu,gpu")
