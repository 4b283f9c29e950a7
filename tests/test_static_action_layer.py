"""Scoring actions by id through the per-id table of the first action layer
(`agents.nets.networks.NumpyScorer.score_ids`, `StaticActionLayer`) gives the scores of the rows it
no longer builds, follows the weights whenever they change, and leaves the actors' choices and
what they send the learner as they were."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.nets.action_features import ActionFeatures
from agents.nets.advice import advice_size, make_advice
from agents.training.config import load_config
from agents.dmc.actor import Collector, Decision
from agents.dmc.agent import DMCAgent
from agents.dmc.config import DMCConfig
from agents.dmc.model import network_names, role_index, role_indices
from agents.guard_belief import guard_label
from agents.nets.networks import ActionScorer, NumpyScorer
from agents.training.opponents import OpponentMix
from agents.training.training_games import TrainingGames
from baohuang_env import get_rules
from baohuang_env.batched.games import random_legal
from baohuang_env.encoding import Encoder

RULES = get_rules("jj")
STATIC = ActionFeatures(RULES).table


def reference_scores(net: ActionScorer, obs: np.ndarray, counts: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The batched numpy scoring as it was before the table: every layer a plain matrix
    product over the full action rows."""
    w1, b1, w2, b2, wa, ba, w3, b3, w4, b4 = (t.detach().numpy() for t in net.parameters())
    h = np.maximum(obs @ w1.T + b1, 0.0)
    h = np.maximum(h @ w2.T + b2, 0.0) + ba
    z = np.maximum(rows @ wa.T + np.repeat(h, counts, axis=0), 0.0)
    z = np.maximum(z @ w3.T + b3, 0.0)
    return z @ w4[0] + b4[0]


def real_batches(n: int, games: int = 24, seed: int = 0) -> list[tuple[np.ndarray, ...]]:
    """`n` turns of the learner's decisions in self-play training games, as an actor scores
    them: observations, masks, legal ids (ragged) and counts; the games move at random."""
    tg = TrainingGames(RULES, games, OpponentMix({"self": 1.0}), np.random.default_rng(seed))
    rng, out = np.random.default_rng(seed + 1), []
    while len(out) < n:
        turn = tg.turn()
        if turn.learner.size:
            legal, counts = turn.legal_ids(turn.learner)
            out.append((tg.observe(turn.learner), turn.masks[turn.learner], legal, counts))
            turn.actions[turn.learner] = random_legal(turn.masks[turn.learner], rng)
        tg.advance(turn)
    return out


def advice_columns(obs: np.ndarray, masks: np.ndarray, legal: np.ndarray, counts: np.ndarray) -> np.ndarray:
    advice, starts = make_advice("heuristic", RULES), np.cumsum(counts) - counts
    return np.concatenate([advice.rows(o, m, legal[a:a + c])
                           for o, m, a, c in zip(obs, masks, starts, counts, strict=True)])


@pytest.mark.parametrize("advice", ["none", "heuristic"])
def test_scores_by_id_are_the_scores_of_the_rows(advice):
    torch.manual_seed(1)
    net = ActionScorer(Encoder(RULES).size, STATIC.shape[1] + advice_size(advice))
    scorer = NumpyScorer(net, static=STATIC)
    for obs, masks, legal, counts in real_batches(12):
        dynamic = advice_columns(obs, masks, legal, counts) if advice == "heuristic" else None
        rows = STATIC[legal] if dynamic is None else np.concatenate([STATIC[legal], dynamic], axis=1)
        ours = scorer.score_ids(obs, counts, legal, dynamic)
        assert ours.dtype == np.float32 and ours.shape == (counts.sum(),)
        np.testing.assert_allclose(ours, reference_scores(net, obs, counts, rows), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(scorer.score_segments(obs, counts, rows), ours, rtol=1e-5, atol=1e-5)
        with torch.inference_mode():
            theirs = net.score_segments(torch.from_numpy(obs), torch.from_numpy(counts), torch.from_numpy(rows))
        np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-4, atol=1e-5)


def test_the_table_follows_the_weights_whenever_they_change():
    torch.manual_seed(2)
    net = ActionScorer(Encoder(RULES).size, STATIC.shape[1], 32, 16)
    scorer = NumpyScorer(net, static=STATIC)
    batches = real_batches(3)

    def check() -> list[np.ndarray]:
        scores = []
        for obs, _masks, legal, counts in batches:
            scores.append(scorer.score_ids(obs, counts, legal))
            np.testing.assert_allclose(scores[-1], reference_scores(net, obs, counts, STATIC[legal]),
                                       rtol=1e-5, atol=1e-5)
        return scores

    before = check()
    # an optimizer step in place, as the learner does on the actors' shared-memory copy
    obs, _masks, legal, counts = batches[0]
    loss = net.score_segments(torch.from_numpy(obs), torch.from_numpy(counts), torch.from_numpy(STATIC[legal])).sum()
    loss.backward()
    torch.optim.SGD(net.parameters(), lr=0.5).step()
    after_step = check()
    assert all(not np.allclose(a, b) for a, b in zip(before, after_step, strict=True))
    # new weights loaded into the same tensors, as a Ray actor does (`load_numpy_state`)
    torch.manual_seed(3)
    net.load_state_dict(ActionScorer(Encoder(RULES).size, STATIC.shape[1], 32, 16).state_dict())
    after_load = check()
    assert all(not np.allclose(a, b) for a, b in zip(after_step, after_load, strict=True))
    # one static column's weights alone: only the ids with that feature change
    column = dict((name, off) for name, off, _n in ActionFeatures(RULES).slices)["is_pass"]
    with torch.no_grad():
        net.action.weight[:, column] += 1.0
    last = check()
    passes = [legal == 0 for _obs, _masks, legal, _counts in batches]
    assert all(np.allclose(a[~p], b[~p], rtol=1e-6, atol=1e-7) and not np.allclose(a[p], b[p])
               for a, b, p in zip(after_load, last, passes, strict=True) if p.any())


def test_score_ids_needs_the_static_rows_and_the_dynamic_columns_the_network_reads():
    net = ActionScorer(Encoder(RULES).size, STATIC.shape[1] + advice_size("heuristic"), 16, 8)
    obs, _masks, legal, counts = real_batches(1)[0]
    with pytest.raises(ValueError, match="static feature rows"):
        NumpyScorer(net).score_ids(obs, counts, legal)
    with pytest.raises(ValueError, match="reads 6 columns"):
        NumpyScorer(net, static=STATIC).score_ids(obs, counts, legal)


@pytest.mark.parametrize("networks, advice", [("shared", "none"), ("per_role", "none"), ("shared", "heuristic")])
def test_the_batched_choices_and_rows_are_those_of_the_rows_scored_the_old_way(networks, advice):
    torch.manual_seed(4)
    size = STATIC.shape[1] + advice_size(advice)
    nets = [ActionScorer(Encoder(RULES).size, size) for _ in network_names(networks)]
    agent = DMCAgent(RULES, nets, advice=advice)
    for obs, masks, legal, counts in real_batches(8):
        rows = agent.action_rows_many(obs, masks, legal, counts)
        q = np.empty(len(legal), dtype=np.float32)
        segment = np.repeat(np.arange(len(counts)), counts)
        for i, net in enumerate(agent.networks_of(obs).tolist()):
            mine = segment == i
            q[mine] = reference_scores(nets[net], obs[i:i + 1], counts[i:i + 1], rows[mine])
        starts = np.cumsum(counts) - counts
        best, all_rows, values = agent.choose_many(obs, masks, legal, counts)
        again, taken, same = agent.choose_many(obs, masks, legal, counts, "taken")
        np.testing.assert_array_equal(best, again)
        np.testing.assert_array_equal(values, same)
        np.testing.assert_array_equal(all_rows, rows)
        np.testing.assert_array_equal(taken, rows[starts + best])
        np.testing.assert_allclose(values, q[starts + best], rtol=1e-5, atol=1e-6)  # the chosen moves' Q
        np.testing.assert_allclose(agent.row_values(obs, taken), values, rtol=1e-5, atol=1e-6)
        for i, (a, c) in enumerate(zip(starts, counts, strict=True)):
            old = int(np.argmax(q[a:a + c]))
            assert best[i] == old or np.isclose(q[a + best[i]], q[a + old], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="'all' or 'taken'"):
        agent.choose_many(obs, masks, legal, counts, "chosen")


def test_the_values_choose_many_returns_are_those_of_the_moves_taken_explored_ones_too():
    torch.manual_seed(4)
    agent = DMCAgent(RULES, [ActionScorer(Encoder(RULES).size, STATIC.shape[1])], epsilon=0.5, seed=1)
    explored = 0
    for obs, masks, legal, counts in real_batches(4):
        best, taken, values = agent.choose_many(obs, masks, legal, counts, "taken")
        rows = agent.action_rows_many(obs, masks, legal, counts)
        for i, a in enumerate((np.cumsum(counts) - counts).tolist()):
            q = agent.scores(obs[i], rows[a:a + counts[i]])
            assert np.isclose(values[i], q[best[i]], rtol=1e-5, atol=1e-6)
            explored += not np.isclose(q[best[i]], q.max())
        np.testing.assert_allclose(agent.row_values(obs, taken), values, rtol=1e-5, atol=1e-6)
    assert explored


def test_role_indices_are_role_index_row_by_row():
    rows = np.vstack([np.zeros(4), np.eye(4)]).astype(np.float32)
    assert role_indices(rows).tolist() == [role_index(r) for r in rows]


class OldCollector(Collector):
    """The actor as it was before scoring by id: every legal action's row built, scored by
    matrix products over the rows (`reference_scores`), the row of the move taken from them."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for net, scorer in zip(self.agent.nets, self.agent.scorers, strict=True):
            scorer.score_ids = self._score_rows(net)

    @staticmethod
    def _score_rows(net: ActionScorer):
        def score(obs, counts, ids, dynamic=None):
            rows = STATIC[ids] if dynamic is None else np.concatenate([STATIC[ids], dynamic], axis=1)
            return reference_scores(net, obs, counts, rows)

        return score

    def _learner_moves(self, turn) -> None:
        games, tables, agent = self.games, self.games.tables, self.agent
        rows = turn.learner
        obs = self.games.observe(rows)
        legal, counts = turn.legal_ids(rows)
        masks = turn.masks[rows]
        starts = (np.cumsum(counts) - counts).tolist()
        taught = self.taught[rows]
        choice = np.zeros(rows.size, dtype=np.int64)
        action_rows = np.empty((len(legal), agent.row_size), dtype=np.float32)
        values = np.full(rows.size, np.nan)
        own = ~taught
        if own.any():
            sel = np.repeat(own, counts)
            choice[own], action_rows[sel], values[own] = agent.choose_many(obs[own], masks[own], legal[sel],
                                                                           counts[own])
        if taught.any():
            sel = np.repeat(taught, counts)
            action_rows[sel] = agent.action_rows_many(obs[taught], masks[taught], legal[sel], counts[taught])
        nets = agent.networks_of(obs).tolist()
        for i, b in enumerate(rows.tolist()):
            a, c = starts[i], int(counts[i])
            seat = int(turn.seats[b])
            if taught[i]:
                demo = int(np.searchsorted(legal[a:a + c], self.teacher.act(obs[i], masks[i])))
                k = int(self.rng.integers(c)) if self.rng.random() < self.cfg.epsilon else demo
                other = int(self.rng.integers(c - 1))
                other += other >= demo
                extra = (True, action_rows[a + demo], action_rows[a + other])
            else:
                k, extra = int(choice[i]), (False, self._no_row, self._no_row)
            turn.actions[b] = legal[a + k]
            label = guard_label(games.roles(b), seat)
            tables[b].records[seat].append(Decision(nets[i], obs[i], action_rows[a + k], label, *extra, values[i]))


SELF_PLAY = ["advice=none", "teacher=", "teacher_frames=0", "opponent_mix=self=1"]


@pytest.mark.parametrize("overrides, taught", [
    (SELF_PLAY, False),
    ([*SELF_PLAY, "networks=per_role"], False),
    ([], False),  # the main job's recipe once the network plays: advice, 80% against the heuristic
    ([], True),  # the main job's recipe while the teacher plays
])
def test_an_actor_sends_the_learner_what_it_sent_when_every_row_was_built_and_multiplied(overrides, taught):
    """A collector and the old one (`OldCollector`) of the same seed hand the learner the same
    chunks: the same observations, rows, targets, labels and kickstarting rows."""
    # Monte-Carlo targets (target_lambda=1): the old collector records no Q for a teacher's move,
    # which the λ-returns of the recipe's default would bootstrap from
    cfg = load_config(DMCConfig, "dmc_quick", [*overrides, "games_per_actor=16", "actors=0", "unroll_length=16",
                                               "target_lambda=1"])
    size = STATIC.shape[1] + advice_size(cfg.advice)

    def chunks(kind: type[Collector]) -> list[tuple]:
        torch.manual_seed(5)
        nets = [ActionScorer(Encoder(RULES).size, size, 64, 32) for _ in network_names(cfg.networks)]
        collector = kind(cfg, RULES, nets, None, [], None, None, seed=6,
                         start_frames=0 if taught else cfg.teacher_frames)
        out = []
        collector._flush = lambda net: out.append((net, *collector.take_chunk(net))) or True
        while len(out) < 12:
            collector.step()
        return out

    new, old = chunks(Collector), chunks(OldCollector)
    assert len(new) == len(old)
    for a, b in zip(new, old, strict=True):
        assert a[0] == b[0]
        for x, y in zip(a[1:], b[1:], strict=True):
            np.testing.assert_array_equal(x, y)
