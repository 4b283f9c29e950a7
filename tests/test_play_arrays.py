"""The array engine against the scalar `Game`: thousands of random games of every preset
stepped through `BatchedGames(engine="arrays")` (the play phase on the compiled kernels of
`baohuang_env.play_arrays`) and `engine="games"` (every row a `Game`, itself pinned step by
step to scalar Games in tests/test_batched.py), with the same seeds and actions, show
identical seats, masks, observations, rewards, results and replays at every step."""

from __future__ import annotations

import numpy as np
import pytest

from baohuang_env import Game, get_rules
from baohuang_env.actions import DECISION_ID
from baohuang_env.batched import BatchedGames, random_legal
from baohuang_env.play_arrays import MAX_ACTIONS, PlayArrays
from baohuang_env.rules import PRESETS

APPLY_WIND = DECISION_ID["APPLY_WIND"]


def play_both(preset: str, rows: int, games: int, seed: int) -> dict[str, int]:
    """Step both engines side by side until `games` games ended; returns what was seen."""
    rules = get_rules(preset)
    rng = np.random.default_rng(seed)
    seeds = [int(s) for s in rng.integers(2**40, size=rows)]
    arrays = BatchedGames(rules, rows, autoreset="same_step", engine="arrays")
    scalar = BatchedGames(rules, rows, autoreset="same_step", engine="games")
    a, g = arrays.reset(seeds), scalar.reset(seeds)
    seen = {"games": 0, "steps": 0, "apply_wind": 0, "follow": 0, "void_or_surrender": 0, "records": 0}
    while seen["games"] < games:
        np.testing.assert_array_equal(a.seat, g.seat)
        assert np.array_equal(a.mask, g.mask), np.flatnonzero((a.mask != g.mask).any(axis=1))
        assert a.obs.tobytes() == g.obs.tobytes(), np.flatnonzero((a.obs != g.obs).any(axis=1))
        np.testing.assert_array_equal(a.rewards, g.rewards)
        np.testing.assert_array_equal(a.terminated, g.terminated)
        assert [(b, r, rec) for b, r, rec in a.ended] == [(b, r, rec) for b, r, rec in g.ended]
        for _b, result, record in a.ended:
            seen["void_or_surrender"] += result.end != "played"
            if seen["records"] < 20:  # a few replays rebuilt in full
                assert Game.from_replay(record).result == result
                seen["records"] += 1
        seen["games"] += len(a.ended)
        if seen["steps"] % (rows * 50) == 0:  # the rows' roles, without a Game rebuilt
            assert [arrays.roles(b) for b in range(rows)] == [
                (game.phase, game.emperor, game.guard) for game in scalar.games]
        actions = random_legal(g.mask, rng)
        seen["apply_wind"] += int((actions == APPLY_WIND).sum() if rules.catch_wind == "apply" else 0)
        seen["follow"] += int(g.mask[:, 0].sum())
        seen["steps"] += rows
        a, g = arrays.step(actions), scalar.step(actions)
    for b in range(rows):  # a row mid-game rebuilds as its Game
        assert arrays.games[b].to_replay() == scalar.games[b].to_replay()
    return seen


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_thousands_of_games_step_the_same_through_both_engines(preset):
    seen = play_both(preset, rows=128, games=1000, seed=sorted(PRESETS).index(preset))
    assert seen["games"] >= 1000
    assert seen["follow"] > seen["steps"] // 3  # most masks answer a play on the table
    if get_rules(preset).catch_wind == "apply":
        assert seen["apply_wind"] > 0  # qingdao: applying for the wind was taken, through the kernels


def test_a_row_keeps_its_game_exactly_through_the_arrays():
    rules = get_rules("weihai")
    batch = BatchedGames(rules, 3, engine="arrays")
    step = batch.reset([4, 5, 6])
    rng = np.random.default_rng(3)
    for _ in range(60):
        step = batch.step(random_legal(step.mask, rng))
    for b in range(3):
        game = batch.games[b]
        assert game.current_player == step.seat[b]
        assert game.legal_mask().tobytes() == step.mask[b].tobytes()
        assert batch.encoder.encode(game, game.current_player).tobytes() == step.obs[b].tobytes()
        assert Game.from_replay(game.to_replay()).to_replay() == game.to_replay()


def test_only_a_game_in_its_play_phase_moves_to_the_arrays():
    rules = get_rules("jj")
    arrays = PlayArrays(rules, 2, BatchedGames(rules, 1).encoder)
    with pytest.raises(ValueError, match="only a game in its play phase moves to the arrays, not one in 'role'"):
        arrays.load([0], [Game(rules, seed=1)])
    assert MAX_ACTIONS >= 216 * 6  # at most 216 plays, each answered by at most 5 passes
