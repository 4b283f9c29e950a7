"""`Encoder.encode_many` (a batch, written slice by slice from arrays) against
`Encoder.encode` (one game, joined from byte pieces): the two forms write the same
observation, so every row must be byte for byte the single-game vector. States come from
seeded random games of every preset, every seat's view of every state (role phase, play
phase and the ended game), shuffled so that one batch mixes phases and presets' states."""

from __future__ import annotations

import random

import numpy as np
import pytest

from baohuang_env import Game, get_rules
from baohuang_env.encoding import Encoder
from baohuang_env.game import OVER, PLAY, ROLE
from baohuang_env.rules import PRESETS

#: Batch sizes the states are cut into, in turn (1 and 7: small and odd; 200: training-sized).
BATCH_SIZES = (1, 7, 200, 33)
GAMES_PER_PRESET = 4


def every_view(rules, games: int, seed: int) -> list[tuple[Game, int]]:
    """(game, seat) for every seat's view of every state of `games` random deals, the ended
    state included (where every seat, the last mover among them, is observed)."""
    rng = random.Random(seed)
    views = []
    for g in range(games):
        game = Game(rules, seed=seed * 1000 + g)
        while True:
            views += [(game.copy(), seat) for seat in range(5)]
            if game.is_over:
                break
            game.step(rng.choice(game.legal_actions().tolist()))
    rng.shuffle(views)
    return views


def assert_rows_match(enc: Encoder, views: list[tuple[Game, int]]) -> None:
    """Encode `views` in batches of `BATCH_SIZES` (seats as a list, then as an array, into a
    given `out`) and compare every row with `encode`."""
    start, turn = 0, 0
    while start < len(views):
        batch = views[start:start + BATCH_SIZES[turn % len(BATCH_SIZES)]]
        games, seats = [g for g, _ in batch], [s for _, s in batch]
        if turn % 2:
            out = np.full((len(batch) + 2, enc.size), np.nan, dtype=np.float32)
            rows = enc.encode_many(games, np.array(seats), out[1:-1])
            assert np.isnan(out[0]).all() and np.isnan(out[-1]).all()  # nothing outside `out` is written
        else:
            rows = enc.encode_many(games, seats)
        assert rows.shape == (len(batch), enc.size) and rows.dtype == np.float32
        for row, (game, seat) in zip(rows, batch, strict=True):
            expected = enc.encode(game, seat)
            if row.tobytes() != expected.tobytes():
                wrong = [name for name, a, n in enc.slices if row[a:a + n].tobytes() != expected[a:a + n].tobytes()]
                pytest.fail(f"{enc.rules.preset} seat {seat} in phase {game.phase}: slices {wrong} differ")
        start += len(batch)
        turn += 1


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_encode_many_rows_are_encode(preset):
    rules = get_rules(preset)
    views = every_view(rules, GAMES_PER_PRESET, seed=len(preset))
    phases = {game.phase for game, _ in views}
    assert {ROLE, PLAY, OVER} <= phases and len(views) > 1000
    assert_rows_match(Encoder(rules), views)


def test_encode_many_empty_and_mismatched():
    enc = Encoder(get_rules("jj"))
    assert enc.encode_many([], []).shape == (0, enc.size)
    with pytest.raises(ValueError):
        enc.encode_many([Game(enc.rules, seed=1)], [0, 1])
