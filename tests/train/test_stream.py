"""The stream a run trains on: a resumed run continues it without repeating or skipping rows."""

from __future__ import annotations

import itertools

import pytest

from builder.errors import ConfigError
from builder.train.stream import RowStream, rank_from_env
from tests.train.conftest import TRAIN_ROWS

pytestmark = pytest.mark.slow  # builds the tiny folder (once a session) and streams it


def _ids(stream, n: int) -> list[str]:
    return [row["id"] for row in itertools.islice(iter(stream), n)]


def _interrupted(folder, buffer: int, first: int, then: int) -> list[str]:
    """Read ``first`` rows, checkpoint, rebuild the stream as a restarted process would, read ``then`` more."""
    before = RowStream(str(folder), "cpu", seed=3, buffer_size=buffer)
    ids = _ids(before, first)
    state = before.state_dict()
    after = RowStream(str(folder), "cpu", seed=3, buffer_size=buffer)
    after.load_state_dict(state)
    return ids + _ids(after, then)


def test_resume_without_shuffle_reads_exactly_the_uninterrupted_sequence(tiny):
    whole = _ids(RowStream(str(tiny), "cpu", seed=3, buffer_size=0), 70)  # into the second epoch
    assert _interrupted(tiny, 0, 25, 45) == whole
    assert _interrupted(tiny, 0, 55, 15) == whole  # a checkpoint in the second epoch
    assert sorted(whole[:TRAIN_ROWS]) == sorted(set(whole[:TRAIN_ROWS]))


def test_resume_with_shuffle_differs_from_the_epoch_only_within_the_buffer(tiny):
    buffer = 8
    epoch = _ids(RowStream(str(tiny), "cpu", seed=3, buffer_size=buffer), TRAIN_ROWS)
    assert len(set(epoch)) == TRAIN_ROWS
    before = RowStream(str(tiny), "cpu", seed=3, buffer_size=buffer)
    first = _ids(before, 15)
    after = RowStream(str(tiny), "cpu", seed=3, buffer_size=buffer)
    after.load_state_dict(before.state_dict())
    rest = []
    for row in after:  # the rest of the interrupted epoch
        if after.epoch:
            break
        rest.append(row["id"])
    assert first == epoch[:15]
    seen = first + rest
    assert set(seen) <= set(epoch)
    assert len(seen) - len(set(seen)) <= buffer, "rows seen twice beyond the shuffle buffer"
    assert TRAIN_ROWS - len(set(seen)) <= buffer, "rows skipped beyond the shuffle buffer"


def test_shuffle_is_seeded(tiny):
    one = _ids(RowStream(str(tiny), "cpu", seed=3, buffer_size=8), TRAIN_ROWS)
    assert one == _ids(RowStream(str(tiny), "cpu", seed=3, buffer_size=8), TRAIN_ROWS)
    assert one != _ids(RowStream(str(tiny), "cpu", seed=4, buffer_size=8), TRAIN_ROWS)


def test_ranks_read_disjoint_halves(tiny, monkeypatch):
    halves = []
    for rank in (0, 1):
        monkeypatch.setenv("RANK", str(rank))
        monkeypatch.setenv("WORLD_SIZE", "2")
        halves.append(set(_ids(RowStream(str(tiny), "cpu", 3, 8, *rank_from_env()), TRAIN_ROWS // 2)))
    assert not halves[0] & halves[1]
    assert len(halves[0] | halves[1]) == TRAIN_ROWS


@pytest.mark.parametrize("rank, world", [("2", "2"), ("x", "1"), ("-1", "1")])
def test_bad_rank_environment(monkeypatch, rank, world):
    monkeypatch.setenv("RANK", rank)
    monkeypatch.setenv("WORLD_SIZE", world)
    with pytest.raises(ConfigError, match="RANK"):
        rank_from_env()


def test_missing_folder_is_one_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot stream"):
        RowStream(str(tmp_path / "nowhere"), "cpu", 0, 0)


def test_train_rows_keeps_the_same_first_rows_in_every_epoch(tiny):
    first = set(_ids(RowStream(str(tiny), "cpu", seed=3, buffer_size=0), 10))
    part = RowStream(str(tiny), "cpu", seed=3, buffer_size=8, rows=10)
    three_epochs = _ids(part, 30)
    assert part.epoch == 2
    for epoch in range(3):
        assert set(three_epochs[epoch * 10 : (epoch + 1) * 10]) == first
    assert three_epochs[:10] != three_epochs[10:20], "each epoch has its own order"


def test_mix_draws_its_share_of_written_rows_of_the_same_target_seeded(tiny, written):
    mix = (str(written), "real", 0.5)
    rows = list(itertools.islice(RowStream(str(tiny), "cpu", seed=5, buffer_size=0, mix=mix), 400))
    mixed = [r for r in rows if r["id"].startswith("real/train/")]
    assert all((r["target"], r["pass"]) == ("cpu", "forward") for r in rows), "only the config's target and pass"
    assert 0.35 < len(mixed) / len(rows) < 0.65, len(mixed)
    # the small side repeats; an epoch still reads every generated row
    assert {r["id"] for r in rows if r["id"].startswith("cpu/")} >= set(_ids(RowStream(str(tiny), "cpu", 5, 0), 40))
    again = [r["id"] for r in itertools.islice(RowStream(str(tiny), "cpu", seed=5, buffer_size=0, mix=mix), 400)]
    assert again == [r["id"] for r in rows], "same seed, same order"


def test_mix_options_validate_themselves():
    from builder.train.options import TrainOptions

    with pytest.raises(ConfigError, match="go together"):
        TrainOptions(data="d", out="o", mix_config="real")
    with pytest.raises(ConfigError, match="cannot mix in config 'cpu'"):
        TrainOptions(data="d", out="o", mix_config="cpu", mix_share=0.2)
    for share in (1.5, -0.2):
        with pytest.raises(ConfigError, match=r"in \(0, 1\]"):
            TrainOptions(data="d", out="o", mix_config="real", mix_share=share)
    assert TrainOptions(data="d", out="o", mix_config="real", mix_share=1.0).mix_share == 1.0  # written code only


def test_a_share_of_one_reads_written_rows_only_every_epoch(tiny, written):
    stream = RowStream(str(tiny), "cpu", seed=5, buffer_size=0, mix=(str(written), "real", 1.0))
    epoch = [r["id"] for r in stream.ds]  # one pass: it ends (interleaving at a probability of 0 would not)
    assert epoch and all(i.startswith("real/train/") and i.endswith("/cpu") for i in epoch)
    rows = [r["id"] for r in itertools.islice(stream, 2 * len(epoch))]
    assert rows == epoch * 2 and stream.epoch == 1
