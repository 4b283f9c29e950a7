"""The engine's batch entry point (`baohuang_env.batched.masks`): exactly `game.legal_mask()` for every
game of a batch, in every preset, in every phase, including games that are over."""

from __future__ import annotations

import random

import numpy as np
import pytest

from baohuang_env import PRESETS, Game, get_rules
from baohuang_env.batched.masks import legal_actions, legal_masks
from baohuang_env.game import OVER, PLAY, ROLE


@pytest.mark.parametrize("preset", list(PRESETS))
def test_batch_masks_equal_the_engines_over_random_games(preset):
    """Twelve random games stepped side by side (finished ones stay in the batch) until all
    are over; at every step every row equals that game's own mask and legal actions."""
    rules = get_rules(preset)
    games = [Game(rules, seed=1000 + k) for k in range(12)]
    rng = random.Random(preset)
    out = np.full((len(games), games[0].num_actions), 7, dtype=np.int8)
    phases = set()
    while not all(g.is_over for g in games):
        masks = legal_masks(games, out=out)
        assert masks is out and masks.dtype == np.int8
        ids = legal_actions(games)
        for b, game in enumerate(games):
            phases.add(game.phase)
            assert np.array_equal(masks[b], game.legal_mask()), (preset, game.seed, game.phase)
            assert np.array_equal(ids[b], game.legal_actions())
            if not game.is_over:
                game.step(rng.choice(ids[b].tolist()))
    assert phases == {ROLE, PLAY, OVER}
    fresh = legal_masks(games)  # allocated when no `out` is given
    assert fresh.shape == (len(games), games[0].num_actions) and not fresh.any()


def test_qingdao_wind_answers_come_from_the_engine():
    """qingdao adds APPLY_WIND to some play-phase masks: the batch has it exactly where
    `game.legal_mask()` has it, and it is reached in these games."""
    from baohuang_env.actions import DECISION_ID

    wind = DECISION_ID["APPLY_WIND"]
    rules = get_rules("qingdao")
    rng = random.Random(5)
    seen = 0
    for seed in range(40):
        game = Game(rules, seed=seed)
        while not game.is_over:
            [row] = legal_masks([game])
            assert np.array_equal(row, game.legal_mask())
            seen += int(row[wind])
            game.step(rng.choice(game.legal_actions().tolist()))
    assert seen > 0


def test_mixed_rule_objects_and_an_empty_batch():
    """Games whose rules come from separate `get_rules` calls (equal, not the same object);
    no games, no rows."""
    games = [Game(get_rules("jj"), seed=s) for s in range(6)]
    for g in games:
        while g.phase != PLAY:
            g.step(int(g.legal_actions()[0]))
    masks = legal_masks(games)
    assert all(np.array_equal(masks[b], g.legal_mask()) for b, g in enumerate(games))
    assert legal_masks([]).shape == (0, 0) and legal_actions([]) == []
