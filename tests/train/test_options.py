"""Run options validate themselves and say what is allowed."""

from __future__ import annotations

import pytest

from builder.errors import ConfigError
from builder.train.options import ModelOptions, TrainOptions


@pytest.mark.parametrize(
    "change, match",
    [
        ({"config": "real"}, "cannot train on config 'real'"),
        ({"config": "gpu-verified"}, "valid: cuda-forward, cuda-backward, cpu"),
        ({"max_steps": 0}, "max_steps must be a positive integer"),
        ({"batch_size": 2.5}, "batch_size must be a positive integer"),
        ({"buffer_size": -1}, "buffer_size must be a non-negative integer"),
        ({"max_prompt": 512, "max_length": 512}, "max_prompt .* must be below max_length"),
        ({"max_minutes": -1.0}, "max_minutes must be >= 0"),
        ({"lr": 0.0}, "lr must be > 0"),
    ],
)
def test_bad_train_options(change, match):
    with pytest.raises(ConfigError, match=match):
        TrainOptions(data="d", out="o", **change)


@pytest.mark.parametrize(
    "change, match",
    [
        ({"heads": 3}, r"heads \(3\) must divide hidden \(256\)"),
        ({"layers": 0}, "layers must be a positive integer"),
        ({"vocab_size": 100}, "vocab_size must be at least 300"),
        ({"intermediate": -1}, "intermediate must be a non-negative integer"),
    ],
)
def test_bad_model_options(change, match):
    with pytest.raises(ConfigError, match=match):
        ModelOptions(**change)


def test_options_round_trip_through_their_dict():
    opts = TrainOptions(data="d", out="o", model=ModelOptions(layers=2, hidden=64, heads=2))
    assert TrainOptions(**opts.to_dict()) == opts
    assert ModelOptions(hidden=96).mlp_width == 256  # 8/3 x 96 = 256, a multiple of 64
