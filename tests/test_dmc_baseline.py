"""DMC's per-deal baseline (`target_baseline: sibling`, `agents.training.sibling_deals`): every
deal is played by two games, an opponent takes opposite sides in them, and a decision's target
is its seat's return less the other game's return at that seat, staged once both games ended;
the default leaves the staged rows as they were."""

from __future__ import annotations

import hashlib
import queue

import numpy as np
import pytest
import torch

from agents.dmc.actor import CHUNK_FIELDS, Collector
from agents.dmc.config import DMCConfig
from agents.dmc.trainer import train
from agents.nets.action_features import ActionFeatures
from agents.nets.networks import ActionScorer
from agents.training.config import load_config
from agents.training.curves import read_scalars
from agents.training.opponents import OpponentMix
from agents.training.training_games import TrainingGames
from baohuang_env import get_rules
from baohuang_env.batched.games import random_legal
from baohuang_env.observation import observation_layout

from helpers import load_experiment

RULES = get_rules("jj")
TINY = ["actors=0", "unroll_length=100000", "slots_per_role=8", "batch_slots=2", "hidden=32", "head=16"]
EMPEROR_SIDE = {"emperor", "guard", "solo"}


def _collector(*extra: str, seed: int = 3) -> Collector:
    """An inline collector whose slots never fill (staged rows stay readable), seeded nets."""
    cfg = load_config(DMCConfig, None, [*TINY, *extra])
    torch.manual_seed(0)
    nets = [ActionScorer(observation_layout(RULES).size, ActionFeatures(RULES).size, cfg.hidden, cfg.head)]
    return Collector(cfg, RULES, nets, {}, [queue.Queue()], queue.Queue(), None, seed=seed, blocking=False)


def test_target_baseline_is_checked_and_lists_the_allowed_values():
    assert load_config(DMCConfig, None, TINY).target_baseline == "none"
    assert load_config(DMCConfig, None, [*TINY, "target_baseline=sibling"]).target_baseline == "sibling"
    with pytest.raises(ValueError, match="target_baseline='team' is not one of none, sibling"):
        load_config(DMCConfig, None, [*TINY, "target_baseline=team"])


def _learner_on_emperor_side(table, result) -> bool | None:
    """Whether the learner played the emperor's side of an ended opponent game; None when the
    game ended before the sides were taken (in the role phase)."""
    if table.sides_pending:
        return None
    sides = {result.roles[s] in EMPEROR_SIDE for s in table.learner_seats}
    assert len(sides) == 1  # one whole side
    return sides.pop()


def _deal(games: TrainingGames, row: int) -> tuple[int, list[list[int]]]:
    """Row `row`'s deal as it starts (before any move): its seed and hands (a copy: the role
    phase moves cards)."""
    game = games.games[row]
    assert not game.actions
    return game.seed, [list(hand) for hand in game.cards.hands]


def test_siblings_share_their_deal_and_an_opponent_takes_opposite_sides_in_them():
    games = TrainingGames(RULES, 5, OpponentMix({"self": 1.0, "greedy": 1.0}), np.random.default_rng(7),
                          siblings=True)
    tables = games.tables
    assert tables[0].deal is tables[1].deal and tables[2].deal is tables[3].deal
    assert tables[1].deal is not tables[2].deal
    starts = {id(t): _deal(games, b) for b, t in enumerate(tables)}
    rng, pairs, first = np.random.default_rng(8), [], {}
    while len(pairs) < 24:
        turn = games.turn()
        turn.actions[turn.learner] = random_legal(turn.masks[turn.learner], rng)
        ended = games.advance(turn)
        for row, table, result in ended:
            starts[id(games.tables[row])] = _deal(games, row)
            if table.deal in first:
                pairs.append((first.pop(table.deal), (table, result)))
            else:
                first[table.deal] = (table, result)
    assert len(first) <= 5  # one waiting game per deal in play at most
    opposite = {True: 0, False: 0}
    for (a, result_a), (b, result_b) in pairs:
        assert starts[id(a)] == starts[id(b)]  # same seed, same hands
        assert a.mode == b.mode  # both self-play, or both against the same opponent
        if a.mode == "self":
            assert a.learner_seats == b.learner_seats == list(range(5))
            continue
        side_a, side_b = _learner_on_emperor_side(a, result_a), _learner_on_emperor_side(b, result_b)
        if side_a is not None and side_b is not None:
            assert side_a != side_b  # the opponent plays in one the side the learner plays in the other
            opposite[side_a] += 1
    assert opposite[True] and opposite[False]


def _win(score: float) -> int:
    return int(np.sign(score))


def test_staged_targets_are_the_return_less_the_siblings_return_once_both_games_ended():
    collector = _collector("games_per_actor=3", "opponent_mix=self=1,greedy=1", "target_baseline=sibling")
    log = []
    advance = collector.games.advance

    def logged_advance(turn):
        ended = advance(turn)
        log.extend(ended)
        return ended

    collector.games.advance = logged_advance
    held_steps = 0
    while len(log) < 30:
        before = len(collector.staging[0])
        ended, _frames = collector.step()
        held_steps += bool(ended) and len(collector.staging[0]) == before
        # independently: the games whose sibling ended too, with G_A(s) - G_B(s) and G_A(s)
        waiting, expected = {}, []
        for _row, table, result in log:
            if table.deal not in waiting:
                waiting[table.deal] = (table, result.scores)
                continue
            other, other_scores = waiting.pop(table.deal)
            for t, mine, theirs in ((other, other_scores, result.scores), (table, result.scores, other_scores)):
                expected += [(rec[1], _win(mine[s]) - _win(theirs[s]), _win(mine[s]))
                             for s in range(5) for rec in t.records[s]]
        staged = collector.staging[0]
        assert len(staged) == len(expected) and len(collector.siblings) == len(waiting) <= 3
        for row, (obs, target, ret) in zip(staged, expected, strict=True):
            assert row[0] is obs and row[2] == target and row[-1] == ret
    assert held_steps  # some ended games waited for their sibling
    targets = np.array([row[2] for row in collector.staging[0]])
    assert set(targets) <= {-2, -1, 0, 1, 2} and (targets != 0).any() and (targets == 0).any()


#: The default collector's staged rows before `target_baseline` existed (commit d81bd7c):
#: their count, a digest of every field, and the collector's next draw. Epsilon 1: every
#: learner move is drawn, so the figures pin the draws, not the float arithmetic of a network.
BEFORE = (1119, "f7508855d7cddc4d", 0.8062153310270436)


def test_the_default_stages_the_same_rows_as_before_with_the_return_as_target():
    collector = _collector("games_per_actor=4", "opponent_mix=self=1,greedy=1", "epsilon=1", seed=5)
    for _ in range(12):
        collector.play_game()
    count = len(collector.staging[0])
    chunk = dict(zip(CHUNK_FIELDS, collector.take_chunk(0), strict=True))
    digest = hashlib.sha256()
    for name in ("obs", "action", "target", "guard", "taught", "demo", "other"):
        digest.update(np.ascontiguousarray(chunk[name]).tobytes())
    assert (count, digest.hexdigest()[:16], collector.rng.random()) == BEFORE
    np.testing.assert_array_equal(chunk["return"], chunk["target"])


def test_a_short_sibling_run_trains_and_logs_the_variances(tmp_path):
    cfg = load_config(DMCConfig, None, [*TINY, "games_per_actor=4", "unroll_length=16", "eval_minutes=0",
                                        "checkpoint_minutes=100", "total_minutes=5", "total_frames=4000",
                                        "log_seconds=0.01", "target_baseline=sibling", f"runs_dir={tmp_path}"])
    run_dir = train(cfg)
    scalars = read_scalars(run_dir)
    target_var, return_var = ([v for _step, v in scalars[f"charts/{k}_var"]] for k in ("target", "return"))
    assert target_var and return_var and all(np.isfinite(target_var + return_var))
    assert max(return_var) > 0
    assert (run_dir / "model.pt").is_file()


def test_the_variance_script_measures_both_modes():
    tv = load_experiment("target_variance")
    out = tv.measure("dmc:agents/pretrained/dmc_kickstart_jj.pt", games=6, seed=1, games_at_once=4)
    assert set(out) == {"none", "sibling"}
    none, sibling = out["none"], out["sibling"]
    assert none["games"] >= 6 and none["decisions"] > 0 and none["target_var"] == none["return_var"]
    assert sibling["games"] >= 6 and sibling["decisions"] > 0
    assert sibling["target_var"] != sibling["return_var"]
