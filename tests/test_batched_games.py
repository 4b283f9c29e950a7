"""`BatchedGames` against scalar Games stepped one at a time: for both engines, every preset
and autoreset mode the same seeds and actions give identical seats, masks, observations,
rewards, ended games and replays at every step; an illegal action in one row changes no row.
(tests/test_batched_kernels.py plays thousands more games through the array engine.)"""

from __future__ import annotations

import numpy as np
import pytest

from baohuang_env import PASS, Game, IllegalActionError, get_rules
from baohuang_env.batched.games import AUTORESET_MODES, ENGINES, BatchedGames, game_seed, random_legal
from baohuang_env.encoding import Encoder
from baohuang_env.game import PLAY, ROLE
from baohuang_env.rules import PRESETS


def seed_of(seed: int, k: int) -> int:
    """The documented seed of a row's k-th game, written out independently of the module."""
    return seed if k == 0 else int(np.random.SeedSequence([seed, k]).generate_state(1, np.uint64)[0] >> np.uint64(1))


class Reference:
    """The batch's documented semantics, one scalar Game per row stepped in a plain loop."""

    def __init__(self, rules, mode: str, seeds) -> None:
        self.rules, self.mode, self.encoder = rules, mode, Encoder(rules)
        self.rows = [[int(s), 0, Game(rules, seed=int(s)), -1] for s in seeds]  # reset seed, k, game, last mover

    def reset_row(self, b: int, seed: int) -> None:
        self.rows[b] = [seed, 0, Game(self.rules, seed=seed), -1]

    def _next_game(self, row) -> None:
        row[1] += 1
        row[2] = Game(self.rules, seed=seed_of(row[0], row[1]))

    def step(self, actions) -> list:
        ended = []
        for b, row in enumerate(self.rows):
            game = row[2]
            if game.is_over:
                if self.mode == "next_step":
                    self._next_game(row)
                continue
            row[3] = game.current_player
            game.step(int(actions[b]))
            if game.is_over:
                ended.append((b, game.result, game.to_replay()))
                if self.mode == "same_step":
                    self._next_game(row)
        return ended

    def shown(self, b: int) -> tuple[int, np.ndarray, np.ndarray]:
        """(seat, mask, observation) that row b must show."""
        game = self.rows[b][2]
        if game.is_over:
            mask = np.zeros(game.num_actions, np.int8)
            mask[PASS] = 1
            return -1, mask, self.encoder.encode(game, self.rows[b][3])
        return game.current_player, game.legal_mask(), self.encoder.encode(game, game.current_player)


def assert_same(step, ref: Reference, ref_ended: list) -> None:
    for b in range(len(ref.rows)):
        seat, mask, obs = ref.shown(b)
        assert step.seat[b] == seat
        assert step.mask[b].tobytes() == mask.tobytes()  # byte comparisons: fast enough for every row
        assert step.obs[b].tobytes() == obs.tobytes()
    assert [(b, r, rec) for b, r, rec in step.ended] == ref_ended
    rewards = np.zeros((len(ref.rows), 5), np.float32)
    for b, result, _ in ref_ended:
        rewards[b] = result.scores
    np.testing.assert_array_equal(step.rewards, rewards)
    np.testing.assert_array_equal(step.terminated, np.isin(np.arange(len(ref.rows)), [b for b, _, _ in ref_ended]))


def random_rows(rng, masks: np.ndarray) -> np.ndarray:
    """A uniformly random legal action of every mask row, row by row."""
    return np.array([(legal := m.view(bool).nonzero()[0])[rng.integers(legal.size)] for m in masks])


def run_differential(preset: str, mode: str, rows: int, steps: int, seed: int,
                     engine: str = "arrays") -> tuple[int, bool]:
    """Step the batch and the reference side by side; returns (games ended, whether some step
    had rows in the role phase and rows in play)."""
    rules = get_rules(preset)
    rng = np.random.default_rng(seed)
    seeds = [int(s) for s in rng.integers(2**40, size=rows)]
    batch, ref = BatchedGames(rules, rows, autoreset=mode, engine=engine), Reference(rules, mode, seeds)
    assert batch.autoreset == mode
    step = batch.reset(seeds)
    assert_same(step, ref, [])
    ended, mixed = 0, False
    for t in range(steps):
        if mode == "none" and t % 150 == 149:  # restart the ended rows by hand
            done = [b for b in range(rows) if step.seat[b] < 0]
            new = [int(s) for s in rng.integers(2**40, size=len(done))]
            step = batch.reset_rows(done, new)
            for b, s in zip(done, new, strict=True):
                ref.reset_row(b, s)
            assert_same(step, ref, [])
        actions = random_rows(rng, step.mask)
        waiting = step.seat < 0
        actions[waiting] = rng.integers(batch.num_actions, size=int(waiting.sum()))  # ignored: any id will do
        step = batch.step(actions)
        ref_ended = ref.step(actions)
        assert_same(step, ref, ref_ended)
        ended += len(ref_ended)
        phases = {row[2].phase for row in ref.rows}  # the batch's, as the seats and masks show
        mixed |= ROLE in phases and PLAY in phases
    for b, row in enumerate(ref.rows):
        assert batch.games[b].to_replay() == row[2].to_replay()
        assert Game.from_replay(batch.games[b].to_replay()).to_replay() == row[2].to_replay()
    return ended, mixed


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("mode", AUTORESET_MODES)
def test_batch_equals_scalar_games_step_by_step(preset, mode, engine):
    rows, steps = (24, 700) if mode != "none" else (16, 450)  # ~280 steps a game: 60 games, or 20 and restarts
    ended, mixed = run_differential(preset, mode, rows, steps, seed=len(preset) * 7 + AUTORESET_MODES.index(mode),
                                    engine=engine)
    assert ended >= rows  # every row played at least one whole game
    assert mixed  # rows in the role phase next to rows in play


@pytest.mark.parametrize("engine", ENGINES)
def test_one_row_works(engine):
    ended, _ = run_differential("jj", "same_step", rows=1, steps=700, seed=5, engine=engine)
    assert ended >= 2


def test_game_seeds_follow_from_the_reset_seed():
    assert game_seed(123, 0) == 123
    assert [game_seed(123, k) for k in (1, 2)] == [seed_of(123, 1), seed_of(123, 2)]
    assert len({game_seed(123, k) for k in range(50)}) == 50 and all(0 <= game_seed(9, k) < 2**63 for k in range(9))


@pytest.mark.parametrize("engine", ENGINES)
def test_an_illegal_action_in_one_row_changes_no_row(engine):
    rules = get_rules("jj")
    batch = BatchedGames(rules, 6, engine=engine)
    step = batch.reset(range(6))
    rng = np.random.default_rng(1)
    for _ in range(40):  # into the play phase
        step = batch.step(random_rows(rng, step.mask))
    before = [g.to_replay() for g in batch.games]
    actions = random_rows(rng, step.mask)
    bad = actions.copy()
    bad[3] = int(np.flatnonzero(step.mask[3] == 0)[-1])
    with pytest.raises(IllegalActionError, match=r"^row 3: seat") as err:
        batch.step(bad)
    assert err.value.row == 3 and err.value.seat == step.seat[3]
    assert [g.to_replay() for g in batch.games] == before
    out_of_range = actions.copy()
    out_of_range[0] = batch.num_actions
    with pytest.raises(IllegalActionError, match=r"^row 0: "):
        batch.step(out_of_range)
    assert [g.to_replay() for g in batch.games] == before
    after = batch.step(actions)  # the legal actions still apply, to every row
    assert [g.actions[-1] for g in batch.games if not g.is_over] == [
        a for a, g in zip(actions, batch.games, strict=True) if not g.is_over]
    assert not after.mask.flags.writeable


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="autoreset"):
        BatchedGames("jj", 2, autoreset="sometimes")
    with pytest.raises(ValueError, match=r"engine 'numpy' is not supported; use one of \('arrays', 'games'\)"):
        BatchedGames("jj", 2, engine="numpy")
    batch = BatchedGames("jj", 2)
    with pytest.raises(RuntimeError, match="reset"):
        batch.step(np.zeros(2, int))
    with pytest.raises(ValueError, match="one seed per row"):
        batch.reset([1])
    batch.reset([1, 2])
    with pytest.raises(TypeError, match="integer action ids"):
        batch.step(np.zeros(2, float))


def test_encode_many_writes_the_rows_of_encode():
    rules = get_rules("qingdao")
    games = [Game(rules, seed=s) for s in range(4)]
    rng = np.random.default_rng(2)
    for i, g in enumerate(games):  # states from the deal into play
        while len(g.actions) < 30 * i and not g.is_over:
            g.step(int(random_rows(rng, g.legal_mask()[None])[0]))
    assert {g.phase for g in games} >= {ROLE, PLAY}
    enc, seats = Encoder(rules), [0, 3, 4, 1]
    out = np.full((4, enc.size), np.nan, np.float32)
    assert enc.encode_many(games, seats, out) is out
    assert [row.tobytes() for row in out] == [enc.encode(g, s).tobytes() for g, s in zip(games, seats, strict=True)]


def test_random_legal_picks_every_legal_action_of_each_row_and_nothing_else():
    masks = np.zeros((3, 50), np.int8)
    masks[0, [0]] = masks[1, [3, 7, 49]] = masks[2, 10:20] = 1
    rng = np.random.default_rng(0)
    picks = np.array([random_legal(masks, rng) for _ in range(400)])
    assert [sorted(set(picks[:, b])) for b in range(3)] == [[0], [3, 7, 49], list(range(10, 20))]


@pytest.mark.parametrize("engine", ENGINES)
def test_stepping_some_rows_leaves_the_others_and_any_seat_can_be_observed(engine):
    rules = get_rules("lianzhong_simple")
    batch = BatchedGames(rules, 4, engine=engine, observe=False)
    step = batch.reset([11, 12, 13, 14])
    rng = np.random.default_rng(4)
    for t in range(80):  # into the play phase, odd rows stepped only every third step
        rows = [0, 2] if t % 3 else [0, 1, 2, 3]
        before = [batch.games[b].to_replay() for b in (1, 3)]
        actions = random_rows(rng, step.mask)
        stepped = [[*batch.games[b].actions, int(actions[b])] for b in rows]
        step = batch.step(actions, rows=rows)
        assert [batch.games[b].actions for b in rows] == stepped
        if rows == [0, 2]:
            assert [batch.games[b].to_replay() for b in (1, 3)] == before
        for b in range(4):  # the masks shown are every row's own, stepped or not
            assert step.mask[b].tobytes() == batch.games[b].legal_mask().tobytes()
    enc = Encoder(rules)
    seats = [4, 0, 3, 1]
    assert [row.tobytes() for row in batch.observe(range(4), seats)] == [
        enc.encode(batch.games[b], s).tobytes() for b, s in enumerate(seats)]
    with pytest.raises(ValueError, match=r"one seat in 0\.\.4 per row"):
        batch.observe([0, 1], [0, 5])


def test_random_agents_moved_in_a_batch_draw_what_each_would_alone():
    from baohuang_env.agent import NO_OBSERVATION, RandomAgent, act_each

    rng = np.random.default_rng(5)
    masks = (rng.random((40, 300)) < 0.05).astype(np.int8)
    masks[:, 7] = 1
    alone, batched = [RandomAgent(s) for s in range(40)], [RandomAgent(s) for s in range(40)]
    for _ in range(3):
        expected = [a.act(NO_OBSERVATION, m) for a, m in zip(alone, masks, strict=True)]
        assert RandomAgent.act_many(batched, masks) == expected
    mixed = [RandomAgent(s) if s % 4 else Greedy() for s in range(40)]  # other agents keep their place
    again = [RandomAgent(s) if s % 4 else Greedy() for s in range(40)]
    assert act_each(mixed, masks, lambda js: None) == [a.act(NO_OBSERVATION, m) for a, m in zip(again, masks,
                                                                                                 strict=True)]


class Greedy:
    """A mask-only agent that is not a RandomAgent: the highest legal id."""

    uses_observation = False

    def act(self, observation, action_mask) -> int:
        return int(np.flatnonzero(action_mask)[-1])
