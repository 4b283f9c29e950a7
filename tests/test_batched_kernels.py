"""The array engine against the scalar `Game`: thousands of random games of every preset
stepped through `BatchedGames(engine="arrays")` (the play phase on the compiled kernels of
`baohuang_env.batched.kernels`) and `engine="games"` (every row a `Game`, itself pinned step by
step to scalar Games in tests/test_batched_games.py), with the same seeds and actions, show
identical seats, masks, observations, rewards, results and replays at every step."""

from __future__ import annotations

import numpy as np
import pytest

from baohuang_env import Game, get_rules
from baohuang_env.actions import DECISION_ID
from baohuang_env.batched.games import BatchedGames, random_legal
from baohuang_env.batched.kernels import MAX_ACTIONS, PlayArrays
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


def drive_random(preset: str, rows: int, seed: int, fused: bool) -> tuple[dict, list]:
    """Every row played to its end by five `RandomAgent`s but one seat per row (`until`, the
    "learner", whose moves come from the row's own generator): with `fused`, the other seats'
    play-phase moves by `BatchedGames.play_random`, else one `act` per move. Returns what
    each row's learner saw at each of its decisions and every game's end, and the agents'
    generator states."""
    from baohuang_env.agent import NO_OBSERVATION, RandomAgent
    from baohuang_env.batched.draws import state_addresses

    rules = get_rules(preset)
    batch = BatchedGames(rules, rows, autoreset="none", engine="arrays")
    agents = [[RandomAgent(seed * 1000 + 5 * b + s) for s in range(5)] for b in range(rows)]
    learners = [np.random.default_rng(seed * 1000 + 900 + b) for b in range(rows)]
    until = np.arange(rows, dtype=np.int64) % 5
    states = np.zeros((rows, 5), dtype=np.uint64)
    for b in range(rows):
        others = [s for s in range(5) if s != until[b]]
        states[b, others] = state_addresses([agents[b][s].rng for s in others])  # the learner's stays 0: never read
    step = batch.reset([seed * 100 + b for b in range(rows)])
    seen: dict = {b: [] for b in range(rows)}
    ended = []
    for _ in range(20_000):
        ended += [(b, result, record) for b, result, record in step.ended]
        live = np.flatnonzero(step.seat >= 0)
        if not live.size:
            break
        if fused:
            rows_ = live[(step.seat[live] != until[live]) & batch.in_play_phase(live)]
            if rows_.size:
                step = batch.play_random(rows_, until[rows_], states[rows_])
                continue
        acts = np.zeros(rows, dtype=np.int64)
        for b in live.tolist():
            seat, mask = int(step.seat[b]), step.mask[b]
            if seat == until[b]:
                seen[b].append((step.obs[b].tobytes(), mask.tobytes()))
                legal = np.flatnonzero(mask)
                acts[b] = legal[learners[b].integers(legal.size)]
            else:
                acts[b] = agents[b][seat].act(NO_OBSERVATION, mask)
        step = batch.step(acts, rows=live)
    else:
        raise AssertionError("the games did not end")
    generators = [agent.rng.bit_generator.state for row in agents for agent in row]
    return seen, [sorted(ended, key=lambda e: e[0]), generators, [batch.games[b].to_replay() for b in range(rows)]]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_players_moved_in_one_call_play_as_each_move_alone(preset):
    """`BatchedGames.play_random` makes the moves `RandomAgent.act` would make at each turn,
    with the same draws from each agent's generator: the learners see the same decisions,
    the games end the same, the generators end in the same state."""
    seed = sorted(PRESETS).index(preset)
    fused_seen, fused_end = drive_random(preset, 24, seed, fused=True)
    alone_seen, alone_end = drive_random(preset, 24, seed, fused=False)
    assert fused_seen == alone_seen
    assert fused_end == alone_end
    assert len(fused_end[0]) == 24 and sum(map(len, fused_seen.values())) > 24 * 10


def test_kth_legal_is_the_kth_nonzero_entry():
    from baohuang_env.batched.kernels import kth_legal, legal_counts

    rng = np.random.default_rng(2)
    masks = (rng.random((300, 4036)) < rng.random((300, 1)) * 0.05).astype(np.uint8)  # some rows empty
    masks[::50, -1] = 1  # a legal id in the last, partial block
    counts = legal_counts(masks)
    np.testing.assert_array_equal(counts, masks.sum(axis=1))
    for k in (0, 1, 7, 63, 64, 200):
        picks = kth_legal(masks, np.full(300, k))
        expected = [np.flatnonzero(m)[k] if k < c else -1 for m, c in zip(masks, counts, strict=True)]
        np.testing.assert_array_equal(picks, expected)
    last = kth_legal(masks, np.maximum(counts - 1, 0))
    np.testing.assert_array_equal(last[counts > 0], [np.flatnonzero(m)[-1] for m in masks[counts > 0]])


def test_play_random_checks_its_arguments_and_leaves_role_phase_rows_alone():
    from baohuang_env.agent import RandomAgent
    from baohuang_env.batched.draws import state_addresses

    rules = get_rules("jj")
    games = BatchedGames(rules, 3, engine="games")
    games.reset([1, 2, 3])
    with pytest.raises(ValueError, match="needs engine 'arrays'"):
        games.play_random([0], [0], np.zeros((1, 5), dtype=np.uint64))
    batch = BatchedGames(rules, 3, engine="arrays")
    with pytest.raises(RuntimeError, match="reset"):
        batch.play_random([0], [0], np.zeros((1, 5), dtype=np.uint64))
    step = batch.reset([1, 2, 3])
    with pytest.raises(ValueError, match="5 generator states per row"):
        batch.play_random([0, 1], [0, 0], np.zeros((2, 4), dtype=np.uint64))
    assert not batch.in_play_phase([0, 1, 2]).any()  # a deal starts in its role phase
    agents = [RandomAgent(s) for s in range(5)]
    states = np.tile(state_addresses([a.rng for a in agents]), (3, 1))
    before = [a.rng.bit_generator.state for a in agents]
    after = batch.play_random([0, 1, 2], step.seat, states)
    np.testing.assert_array_equal(after.seat, step.seat)  # nothing moved, nothing drawn
    assert [a.rng.bit_generator.state for a in agents] == before
