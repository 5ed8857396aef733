"""Every config has one row source, and what the schema says of a config's rows agrees with its source."""

from __future__ import annotations

import pytest

from builder.configs import CONFIGS, spec
from builder.schema import columns
from builder.sources import SOURCES, source_of


def test_every_config_has_exactly_one_source():
    owners = {config: [s.name for s in SOURCES if config in s.configs] for config in CONFIGS}
    assert all(len(names) == 1 for names in owners.values()), owners


@pytest.mark.parametrize("config", CONFIGS)
def test_rows_that_carry_a_seed_are_the_seeded_configs_and_the_source_is_the_named_one(config):
    # the card and the evaluator ask the registry (they import no source); the source is the one the spec names
    assert source_of(config).name == spec(config).source and config in source_of(config).configs
    assert spec(config).seeded == ("index" in columns(config)) == ("seed" in columns(config))
