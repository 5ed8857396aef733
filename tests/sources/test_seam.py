"""Every config has one row source, and what the schema says of a config's rows agrees with its source."""

from __future__ import annotations

import pytest

from builder.schema import CONFIGS, columns, drawn_from_seed
from builder.sources import SOURCES, source_of


def test_every_config_has_exactly_one_source():
    owners = {config: [s.name for s in SOURCES if config in s.configs] for config in CONFIGS}
    assert all(len(names) == 1 for names in owners.values()), owners


@pytest.mark.parametrize("config", CONFIGS)
def test_rows_that_carry_a_seed_are_the_rows_a_source_regenerates(config):
    # the card and the evaluator read this from the schema (they import no source); the validator asks the source
    assert drawn_from_seed(config) == source_of(config).regenerates
    assert drawn_from_seed(config) == ("index" in columns(config))
