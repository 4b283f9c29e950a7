"""Advice columns (`agents.nets.advice`): what each column says on real decisions, that they read
the seat's observation only, and that a DMC run with advice trains, checkpoints and plays
with the same columns."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.nets.action_features import ActionFeatures
from agents.nets.advice import HEURISTIC_COLUMNS, HeuristicAdvice, advice_size
from agents.training.config import load_config
from agents.dmc import DMCAgent
from agents.dmc.config import DMCConfig
from agents.dmc.trainer import CHECKPOINT_NAME, train
from agents.bots.heuristic import HeuristicAgent
from baohuang_env import FIRST_PLAY, Game, action_table, get_rules
from baohuang_env.encoding import Encoder
from baohuang_env.game import PLAY

RULES = get_rules("jj")
TINY = ["actors=0", "unroll_length=16", "slots_per_role=8", "batch_slots=2", "hidden=32", "head=16",
        "eval_minutes=0", "log_seconds=1000", "checkpoint_minutes=100", "total_minutes=5"]
COL = {name: i for i, name in enumerate(HEURISTIC_COLUMNS)}


def _decisions(seeds: range, plays_only: bool = True):
    """(game, observation, mask, legal) at every decision with a choice of heuristic self-play."""
    enc, bot = Encoder(RULES), HeuristicAgent(RULES)
    for seed in seeds:
        game = Game(RULES, seed=seed)
        while not game.is_over:
            mask = game.legal_mask()
            legal = np.flatnonzero(mask)
            obs = enc.encode(game, game.current_player)
            if legal.size > 1 and (game.phase == PLAY or not plays_only):
                yield game, obs, mask, legal
            game.step(bot.act(obs, mask))


def test_columns_say_what_each_play_does_to_the_hand():
    advice, bot, t = HeuristicAdvice(RULES), HeuristicAgent(RULES), action_table(RULES)
    seen = dict.fromkeys(HEURISTIC_COLUMNS, False)
    for game, obs, mask, legal in _decisions(range(10)):
        rows = advice.rows(obs, mask, legal)
        assert rows.shape == (legal.size, advice.size) and rows.dtype == np.float32
        assert rows[:, COL["advised"]].sum() == 1
        assert legal[rows[:, COL["advised"]] == 1][0] == bot.act(obs, mask)
        hand = np.array(game.hands[game.current_player], dtype=np.int64)  # the true hand, to check against
        for a, row in zip(legal.tolist(), rows, strict=True):
            if a < FIRST_PLAY:
                assert row[COL["nobeat"]] == 0 and row[COL["kept"]] == 1
                continue
            counts = t.counts[a - FIRST_PLAY].astype(np.int64)
            after = hand - counts
            assert row[COL["goes_out"]] == (after.sum() == 0)
            assert row[COL["kept"]] == pytest.approx(after.sum() / hand.sum())
            assert row[COL["groups_after"]] == pytest.approx(np.count_nonzero(after) / len(hand))
            rank, n = int(t.rank[a - FIRST_PLAY]), int(t.n[a - FIRST_PLAY])
            assert row[COL["breaks_group"]] == (rank >= 0 and 0 < n < hand[rank])
            assert 0.0 <= row[COL["nobeat"]] <= 1.0
            if t.big[a - FIRST_PLAY]:
                assert row[COL["nobeat"]] == 1.0  # a big joker is never beaten
            for name, flag in (("goes_out", COL["goes_out"]), ("breaks_group", COL["breaks_group"])):
                seen[name] |= bool(row[flag])
            seen["nobeat"] |= 0.0 < row[COL["nobeat"]] < 1.0
    assert seen["goes_out"] and seen["breaks_group"] and seen["nobeat"], seen


def test_advice_is_a_function_of_the_observation_and_mask_alone():
    """Rows computed along a game (one advisor, decision after decision) equal those of a
    fresh advisor on copies of the same inputs: no state carries over between decisions."""
    advice = HeuristicAdvice(RULES)
    checked = 0
    for _game, obs, mask, legal in _decisions(range(2)):
        rows = advice.rows(obs, mask, legal)
        again = HeuristicAdvice(RULES).rows(obs.copy(), mask.copy(), legal.copy())
        np.testing.assert_array_equal(rows, again)
        checked += 1
    assert checked > 100


def test_role_decisions_get_the_advised_flag():
    advice, bot = HeuristicAdvice(RULES), HeuristicAgent(RULES)
    roles = [(o, m, lg) for g, o, m, lg in _decisions(range(6), plays_only=False) if lg[-1] < FIRST_PLAY]
    assert roles
    for obs, mask, legal in roles:
        rows = advice.rows(obs, mask, legal)
        assert legal[rows[:, COL["advised"]].argmax()] == bot.act(obs, mask)
        assert not rows[:, COL["nobeat"]].any()


def test_unknown_advice_is_refused_with_the_choices():
    with pytest.raises(ValueError, match=r"advice must be one of none, heuristic; got 'oracle'"):
        load_config(DMCConfig, None, [*TINY, "advice=oracle"])


def test_a_run_with_advice_trains_records_it_and_plays_with_it(tmp_path):
    cfg = load_config(DMCConfig, None, [*TINY, f"runs_dir={tmp_path}", "advice=heuristic", "total_frames=2000"])
    run_dir = train(cfg)
    ckpt = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    assert ckpt["arch"]["advice"] == "heuristic"
    assert ckpt["arch"]["action_size"] == ActionFeatures(RULES).size + advice_size("heuristic")
    agent = make_agent(f"dmc:{run_dir / 'model.pt'}", RULES)
    assert isinstance(agent.advice, HeuristicAdvice)
    enc, game = Encoder(RULES), Game(RULES, seed=4)
    while not game.is_over:
        obs, mask = enc.encode(game, game.current_player), game.legal_mask()
        legal = np.flatnonzero(mask)
        action = agent.act(obs, mask)
        assert mask[action] == 1
        if legal.size > 1:  # the values it maximizes are those of the rows with advice
            assert action == legal[np.argmax(agent.action_values(obs, legal, mask))]
        game.step(action)
    # a run without advice cannot warm-start from it, and says why
    with pytest.raises(ValueError, match=r"it has .*advice='heuristic'.*this run has .*advice='none'"):
        train(load_config(DMCConfig, None, [*TINY, f"runs_dir={tmp_path}", "total_frames=500",
                                            f"init_from={run_dir / CHECKPOINT_NAME}"]))


def test_an_agent_built_without_advice_scores_the_static_rows():
    cfg = load_config(DMCConfig, None, TINY)
    from agents.nets.networks import ActionScorer
    from baohuang_env.observation import observation_layout

    net = ActionScorer(observation_layout(RULES).size, ActionFeatures(RULES).size, cfg.hidden, cfg.head)
    agent = DMCAgent(RULES, [net])
    assert agent.advice is None
    _, obs, mask, legal = next(_decisions(range(1)))
    np.testing.assert_array_equal(agent.action_rows(obs, mask, legal), ActionFeatures(RULES).table[legal])


def test_the_margin_loss_teaches_the_network_to_rank_the_teachers_move_first(tmp_path):
    """Kickstarting with the margin loss: a short inline run whose every learner move is the
    heuristic's ends with a network whose argmax is the heuristic's move almost everywhere
    (the advice column makes that learnable in a few hundred updates), and the loss is
    logged as losses/teacher_margin."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    cfg = load_config(DMCConfig, None, [*TINY, f"runs_dir={tmp_path}", "advice=heuristic", "teacher=heuristic",
                                        "teacher_frames=1000000000", "teacher_margin=0.5", "learning_rate=0.01",
                                        "total_frames=12000", "log_seconds=0.01", "epsilon=0"])
    run_dir = train(cfg)
    agent, bot = make_agent(f"dmc:{run_dir / 'model.pt'}", RULES), HeuristicAgent(RULES)
    moves = [(agent.act(obs, mask), bot.act(obs, mask)) for _, obs, mask, _ in _decisions(range(100, 102))]
    agreement = np.mean([a == b for a, b in moves])
    assert len(moves) > 100 and agreement > 0.9, agreement
    margins = EventAccumulator(str(run_dir)).Reload().Scalars("losses/teacher_margin")
    assert margins and margins[-1].value < margins[0].value


def test_the_shipped_kickstart_agent_plays_with_the_advice_it_was_trained_with():
    """`agents/pretrained/dmc_kickstart_jj.pt` (configs/dmc_kickstart.yaml, then configs/dmc_anneal.yaml
    on top, then the network widened and the stage again, then the stage at a smaller step, then
    with twice the self-play) is a playing copy that records its advice, so it scores the same
    rows it was trained on, anywhere a bot plays; the files it grew from are in the clone: the
    agent at the smaller step it was trained from, the wide agent that one was annealed from,
    the narrow agent that one was widened from, annealed from the kickstart run's."""
    ckpt = torch.load("agents/pretrained/dmc_kickstart_jj.pt", weights_only=True)
    assert ckpt["arch"]["advice"] == "heuristic" and "optimizers" not in ckpt
    assert ckpt["config"]["opponent_mix"] == {"self": 0.4, "heuristic": 0.6}
    smaller_step = torch.load(ckpt["config"]["init_from"], weights_only=True)
    assert smaller_step["config"]["learning_rate"] == ckpt["config"]["learning_rate"] == 0.00003
    wide = torch.load(smaller_step["config"]["init_from"], weights_only=True)
    assert wide["arch"] == smaller_step["arch"] == ckpt["arch"]
    narrow = torch.load(wide["config"]["widened_from"], weights_only=True)
    assert wide["config"]["init_from"] == wide["config"]["widened_from"]
    sizes = ("hidden", "head")
    assert {k: v for k, v in narrow["arch"].items() if k not in sizes} == \
        {k: v for k, v in ckpt["arch"].items() if k not in sizes}
    assert all(narrow["arch"][k] < ckpt["arch"][k] for k in sizes)
    start = torch.load(narrow["config"]["init_from"], weights_only=True)
    assert start["config"]["teacher"] == "heuristic" and start["config"]["exp_name"] == "dmc_kickstart"
    assert start["arch"] == narrow["arch"]
    agent = make_agent("dmc:agents/pretrained/dmc_kickstart_jj.pt", RULES)
    assert isinstance(agent.advice, HeuristicAdvice)
    enc, game, differs = Encoder(RULES), Game(RULES, seed=9), 0
    bot = HeuristicAgent(RULES)
    while not game.is_over:
        obs, mask = enc.encode(game, game.current_player), game.legal_mask()
        action = agent.act(obs, mask)
        assert mask[action] == 1
        differs += action != bot.act(obs, mask)
        game.step(action)
    assert differs > 0  # it is not a copy of its teacher
