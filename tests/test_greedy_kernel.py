"""The greedy bot's play-phase rule twice, pinned together: `GreedyAgent.act` (reading a
seat's observation) and the compiled `_greedy_move` that `BatchedGames.play_greedy` runs
inside the array engine's kernel loop (baohuang_env/batched/kernels.py says why both exist).
Seeded games of every preset, each row with one random seat so the greedy seats meet
positions greedy play alone would not make, are played both ways: a move at a time through
`GreedyAgent.act`, and the greedy seats' play phase in compiled calls; every game's actions
are the same."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.greedy import GreedyAgent
from baohuang_env import get_rules
from baohuang_env.agent import RandomAgent
from baohuang_env.batched.games import BatchedGames
from baohuang_env.batched.kernels import GREEDY_SPEND_AT, greedy_tables
from baohuang_env.rules import PRESETS


def drive(preset: str, rows: int, seed: int, compiled: bool) -> tuple[list[list[int]], int]:
    """One game per row, seat `b % 6` of row b random (none where that is 5), the others
    greedy; `compiled`: the greedy seats' play-phase moves by `play_greedy` (until the random
    seat is to act). Returns each row's actions and the greedy play-phase decisions made
    through `GreedyAgent.act` (0 when compiled)."""
    rules = get_rules(preset)
    greedy = GreedyAgent(rules)
    randoms = [RandomAgent(seed * 1000 + b) for b in range(rows)]
    until = np.array([b % 6 if b % 6 < 5 else -1 for b in range(rows)], dtype=np.int64)
    batch = BatchedGames(rules, rows, autoreset="none")
    step = batch.reset([int(s) for s in np.random.default_rng(seed).integers(2**40, size=rows)])
    actions = np.zeros(rows, dtype=np.int64)
    records: dict[int, list[int]] = {}
    decisions = 0
    while True:
        records |= {b: record["actions"] for b, _result, record in step.ended}
        live = np.flatnonzero(step.seat >= 0)
        if compiled and live.size:
            play = live[batch.in_play_phase(live)]
            if play.size:
                step = batch.play_greedy(play, until[play])
                records |= {b: record["actions"] for b, _result, record in step.ended}
                live = np.flatnonzero(step.seat >= 0)
        if not live.size:
            return [records[b] for b in range(rows)], decisions
        playing = batch.in_play_phase(live)
        for b, in_play in zip(live.tolist(), playing.tolist(), strict=True):
            agent = randoms[b] if step.seat[b] == until[b] else greedy
            actions[b] = agent.act(step.obs[b], step.mask[b])
            decisions += agent is greedy and in_play
        step = batch.step(actions, live)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_compiled_greedy_players_make_the_greedy_bots_moves(preset):
    seed = 70 + sorted(PRESETS).index(preset)
    stepped, decisions = drive(preset, rows=48, seed=seed, compiled=False)
    compiled, _ = drive(preset, rows=48, seed=seed, compiled=True)
    for b, (a, c) in enumerate(zip(stepped, compiled, strict=True)):
        first = next((i for i, (x, y) in enumerate(zip(a, c, strict=False)) if x != y), min(len(a), len(c)))
        assert a == c, f"row {b}: action {first} differs (GreedyAgent {a[first:][:1]}, kernel {c[first:][:1]})"
    assert decisions >= 3000


def test_the_bot_and_the_kernel_read_one_set_of_tables():
    rules = get_rules("jj")
    bot = GreedyAgent(rules)
    assert bot.SPEND_AT == GREEDY_SPEND_AT
    assert greedy_tables(rules) is greedy_tables(get_rules("jj"))  # built once per rule set
    np.testing.assert_array_equal(bot._cost, greedy_tables(rules).cost)


def test_play_greedy_needs_the_array_engine_and_a_seat_per_row():
    games = BatchedGames(get_rules("jj"), 2, engine="games")
    games.reset([1, 2])
    with pytest.raises(ValueError, match="engine 'arrays'"):
        games.play_greedy([0, 1])
    arrays = BatchedGames(get_rules("jj"), 2)
    arrays.reset([1, 2])
    with pytest.raises(ValueError, match="a seat per row"):
        arrays.play_greedy([0, 1], [0])
