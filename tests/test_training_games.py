"""The training-games driver both trainers play through (`agents.training.training_games`), and the
batched scoring of the DMC actors: the batch gives the same choices as one decision at a time."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.nets.action_features import ActionFeatures
from agents.nets.advice import advice_size
from agents.dmc.agent import DMCAgent
from agents.nets.networks import ActionScorer, NumpyScorer
from agents.training.opponents import OpponentMix
from agents.training.training_games import TRAIN_SEEDS, TrainingGames
from baohuang_env import Game, get_rules
from baohuang_env.batched.games import BatchedGames, random_legal
from baohuang_env.encoding import Encoder
from baohuang_env.game import PLAY

RULES = get_rules("jj")


def test_a_turn_moves_every_game_once_and_forced_and_bot_moves_come_chosen():
    games = TrainingGames(RULES, 8, OpponentMix({"self": 1.0, "random": 1.0}), np.random.default_rng(4))
    rng = np.random.default_rng(5)
    ended = 0
    for _ in range(600):
        turn = games.turn()
        before = [len(g.actions) for g in games.games]
        chosen = turn.actions >= 0
        assert (chosen[turn.counts == 1]).all() and not chosen[turn.learner].any()
        for b in np.flatnonzero(chosen):
            assert turn.masks[b, turn.actions[b]] == 1
        ids, counts = turn.legal_ids(turn.learner)
        assert counts.tolist() == [int(turn.masks[b].sum()) for b in turn.learner]
        assert ids.tolist() == [a for b in turn.learner for a in np.flatnonzero(turn.masks[b]).tolist()]
        turn.actions[turn.learner] = random_legal(turn.masks[turn.learner], rng)
        done = {row for row, _table, _result in games.advance(turn)}
        ended += len(done)
        for b, game in enumerate(games.games):  # one move each, or a new deal
            assert b in done or len(game.actions) == before[b] + 1
    assert ended >= 8


def test_an_opponent_takes_one_side_once_the_roles_are_fixed_and_keeps_no_learner_records():
    games = TrainingGames(RULES, 6, OpponentMix({"greedy": 1.0}), np.random.default_rng(7))
    rng = np.random.default_rng(8)
    finished = []
    while len(finished) < 12:
        turn = games.turn()
        for b in turn.learner.tolist():
            game, table = games.games[b], games.tables[b]
            assert table.controllers[game.current_player] is None
            table.records[game.current_player].append(game.phase)
        turn.actions[turn.learner] = random_legal(turn.masks[turn.learner], rng)
        finished += games.advance(turn)
    for _row, table, result in finished:
        if not result.roles or PLAY not in [p for r in table.records for p in r]:
            continue  # ended in the role phase: nobody took a side
        ours = table.learner_seats
        theirs = [s for s in range(5) if s not in ours]
        side = {s: result.roles[s] in ("emperor", "guard", "solo") for s in range(5)}
        assert ours and theirs and len({side[s] for s in ours}) == 1  # one whole side each
        assert {side[s] for s in theirs} == {not side[ours[0]]}
        assert all(not table.records[s] for s in range(5) if s not in ours)


def test_training_deals_come_from_the_training_seed_range():
    games = TrainingGames(RULES, 4, OpponentMix({"self": 1.0}), np.random.default_rng(1))
    seeds = {g.seed for g in games.games}
    assert len(seeds) == 4 and all(TRAIN_SEEDS[0] <= s < TRAIN_SEEDS[1] for s in seeds)


def test_a_snapshot_mix_without_a_pool_is_refused_with_why():
    with pytest.raises(ValueError, match="snapshot pool"):
        TrainingGames(RULES, 2, OpponentMix({"snapshots": 1.0}), np.random.default_rng(0))


def test_a_shared_opponent_plays_every_game_in_one_call_and_makes_the_per_seat_agents_moves():
    """A DMC checkpoint of the mix played as one frozen agent for every game (`shared`, the
    DMC actors' path): its decisions come as `Turn.snapshots` groups and no per-seat agents
    are built; and its greedy choices in one call are the moves the per-seat agents make one
    at a time (the driver without `shared`), so the two paths play alike."""
    spec = "dmc:agents/pretrained/dmc_kickstart_jj.pt"
    frozen = DMCAgent.from_checkpoint("agents/pretrained/dmc_kickstart_jj.pt", RULES)
    mix = OpponentMix({"self": 1.0, spec: 3.0})

    def frozen_moves(games, turn, rows):  # what the DMC actor does (`Collector._snapshot_moves`)
        legal, counts = turn.legal_ids(rows)
        return frozen.act_many(games.observe(rows), turn.masks[rows], legal, counts)

    rng = np.random.default_rng(4)
    per_seat = TrainingGames(RULES, 6, mix, np.random.default_rng(3))
    compared = 0
    for _ in range(300):
        turn = per_seat.turn()
        bots = np.array([b for b in np.flatnonzero(turn.counts > 1)
                         if per_seat.tables[b].controllers[turn.seats[b]] is not None], dtype=np.int64)
        if bots.size:
            assert (frozen_moves(per_seat, turn, bots) == turn.actions[bots]).all()
            compared += bots.size
        turn.actions[turn.learner] = random_legal(turn.masks[turn.learner], rng)
        per_seat.advance(turn)
    shared = TrainingGames(RULES, 6, mix, np.random.default_rng(3), shared=lambda s: frozen if s == spec else None)
    grouped, ended = 0, 0
    for _ in range(300):
        turn = shared.turn()
        assert all(agent is frozen for agent, _rows in turn.snapshots)
        for _agent, rows in turn.snapshots:
            turn.actions[rows] = frozen_moves(shared, turn, rows)
            grouped += rows.size
        turn.actions[turn.learner] = random_legal(turn.masks[turn.learner], rng)
        assert (turn.actions >= 0).all()  # the groups and the learner's rows were every undecided move
        ended += len(shared.advance(turn))
    assert compared > 100 and grouped > 100 and ended >= 6
    assert not shared.bots and per_seat.bots  # one network in memory, not one per game and seat


def test_a_batch_without_observations_encodes_just_the_rows_asked_for():
    batch = BatchedGames(RULES, 5, autoreset="same_step", observe=False, next_seed=lambda row: 1000 + row,
                         records=False)
    step = batch.reset(range(5))
    assert step.obs is None
    enc, rng = Encoder(RULES), np.random.default_rng(0)
    for _ in range(400):
        rows = np.array([0, 3])
        obs = batch.observe(rows)
        for i, b in enumerate(rows):
            assert obs[i].tobytes() == enc.encode(batch.games[b], batch.games[b].current_player).tobytes()
        step = batch.step(random_legal(step.mask, rng))
        for b, _result, record in step.ended:
            assert record is None and batch.games[b].seed == 1000 + b
    assert batch.games[0].seed == 1000  # the row's first game ended and its next came from next_seed


def _decisions(n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    enc, rng, out = Encoder(RULES), np.random.default_rng(3), []
    seed = 0
    while len(out) < n:
        game = Game(RULES, seed=seed)
        seed += 1
        while not game.is_over:
            mask = game.legal_mask()
            if mask.sum() > 1:
                out.append((enc.encode(game, game.current_player), mask))
            game.step(int(rng.choice(np.flatnonzero(mask))))
    return out[:n]


def test_the_numpy_segment_scorer_is_the_torch_one():
    torch.manual_seed(0)
    size = ActionFeatures(RULES).size
    net = ActionScorer(Encoder(RULES).size, size, 32, 16)
    decisions = _decisions(40)
    obs = np.stack([o for o, _ in decisions])
    legal = [np.flatnonzero(m) for _, m in decisions]
    counts = np.array([len(x) for x in legal])
    rows = ActionFeatures(RULES).table[np.concatenate(legal)]
    ours = NumpyScorer(net).score_segments(obs, counts, rows)
    with torch.inference_mode():
        theirs = net.score_segments(torch.from_numpy(obs), torch.from_numpy(counts), torch.from_numpy(rows)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("networks, advice", [(1, "none"), (4, "none"), (1, "heuristic")])
def test_batched_choices_are_the_one_at_a_time_choices(networks, advice):
    torch.manual_seed(networks)
    size = ActionFeatures(RULES).size + advice_size(advice)
    nets = [ActionScorer(Encoder(RULES).size, size, 32, 16) for _ in range(networks)]
    agent = DMCAgent(RULES, nets, advice=advice)
    decisions = _decisions(60)
    obs = np.stack([o for o, _ in decisions])
    masks = np.stack([m for _, m in decisions])
    legal = [np.flatnonzero(m) for m in masks]
    counts = np.array([len(x) for x in legal])
    choice, rows, _values = agent.choose_many(obs, masks, np.concatenate(legal), counts)
    starts = np.cumsum(counts) - counts
    for i, (o, m) in enumerate(decisions):
        action, _row = agent.act_with_row(o, m, legal[i])
        q = agent.scores(o, agent.action_rows(o, m, legal[i]))
        assert legal[i][choice[i]] == action or np.isclose(q[choice[i]], q.max(), rtol=1e-5)
        np.testing.assert_array_equal(rows[starts[i] + choice[i]], agent.action_rows(o, m, legal[i])[choice[i]])
    assert agent.networks_of(obs).tolist() == [agent.network_of(o) for o in obs]
