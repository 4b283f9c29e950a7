"""The guard-belief head (`agents.nets.guard_head`): its loss learns a guard encoded in the
embedding, DMC and PPO train it when `guard_head_weight` > 0 (and log it), the trained agents
expose it as their belief, and it never changes how they act."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.training.config import load_config
from agents.dmc.config import DMCConfig
from agents.dmc.trainer import train as train_dmc
from agents.guard_belief import NO_LABEL, guard_candidates, guard_label
from agents.nets.guard_head import GuardHead, guard_head_loss, guard_hidden
from agents.ppo import PPOConfig
from agents.ppo.trainer import train as train_ppo
from agents.view import SeatView
from baohuang_env import Game, get_rules
from baohuang_env.encoding import Encoder

RULES = get_rules("jj")
DMC_TINY = ["actors=0", "games_per_actor=2", "unroll_length=16", "slots_per_role=8", "batch_slots=2", "hidden=32",
            "head=16", "eval_minutes=0", "log_seconds=0", "checkpoint_minutes=100", "total_minutes=5",
            "total_frames=3000"]
PPO_TINY = ["num_games=8", "rollout_decisions=256", "minibatch_size=128", "update_epochs=2", "hidden=32", "head=16",
            "value_hidden=32", "torch_threads=1", "eval_minutes=0", "log_seconds=1000", "checkpoint_minutes=100",
            "total_minutes=5", "pool_size=3", "total_frames=3000"]


def test_the_loss_learns_an_encoded_guard_and_ignores_unlabelled_rows():
    torch.manual_seed(0)
    labels = torch.randint(0, 5, (256,))
    emb = torch.nn.functional.one_hot(labels, 8).float()
    labels[:32] = NO_LABEL  # roles not fixed yet: left out
    head = GuardHead(8)
    opt = torch.optim.Adam(head.parameters(), lr=0.1)
    for _ in range(60):
        loss, acc, n = guard_head_loss(head, emb, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert n == 224 and acc == 1.0 and loss.item() < 0.05
    hidden = torch.arange(256) % 2 == 0  # accuracy over the labelled rows where the guard is hidden
    assert guard_head_loss(head, emb, labels, hidden)[2] == 112
    obs = torch.zeros(3, 6)
    obs[1, 2] = 1.0  # a known guard in the `known_guard` slice 2:4
    assert guard_hidden(obs, slice(2, 4)).tolist() == [True, False, True]
    loss, acc, n = guard_head_loss(head, emb, torch.full((256,), NO_LABEL))
    assert n == 0 and loss.item() == 0.0


def test_labels_are_the_guards_relative_seat_once_roles_are_fixed():
    game = Game(RULES, seed=5)
    assert all(guard_label(game, s) == NO_LABEL for s in range(5))  # role phase of jj: no emperor yet
    while game.emperor < 0:
        game.step(int(game.legal_actions()[0]))
    assert [guard_label(game, s) for s in range(5)] == [(game.guard - s) % 5 for s in range(5)]


def _belief_checks(agent):
    enc = Encoder(RULES)
    game = Game(RULES, seed=11)
    while not game.is_over:
        seat = game.current_player
        obs = enc.encode(game, seat)
        if game.phase == "play":
            p = agent.guard_belief(obs)
            cand = guard_candidates(SeatView(obs, RULES))
            assert p.sum() == pytest.approx(1.0) and (p[~cand] == 0).all()
        game.step(agent.act(obs, game.legal_mask()))


def test_dmc_trains_logs_and_exposes_the_head(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run = train_dmc(load_config(DMCConfig, None, [*DMC_TINY, f"runs_dir={tmp_path}", "guard_head_weight=1.0"]))
    tags = EventAccumulator(str(run)).Reload().Tags()["scalars"]
    assert "losses/guard_head" in tags and "charts/guard_head_accuracy" in tags
    agent = make_agent(f"dmc:{run / 'model.pt'}", RULES)  # the playing copy keeps the head
    assert agent.has_guard_head
    _belief_checks(agent)
    # acting reads the Q network alone: the head changes no decision
    obs = Encoder(RULES).encode(Game(RULES, seed=3), 0)
    before = agent.act(obs, Game(RULES, seed=3).legal_mask())
    agent._guard = None
    assert agent.act(obs, Game(RULES, seed=3).legal_mask()) == before
    plain = train_dmc(load_config(DMCConfig, None, [*DMC_TINY, f"runs_dir={tmp_path / 'plain'}"]))
    plain_agent = make_agent(f"dmc:{plain / 'model.pt'}", RULES)
    assert not plain_agent.has_guard_head
    with pytest.raises(ValueError, match="without the guard-belief head"):
        plain_agent.guard_belief(obs)
    assert not any(k.startswith("guard_head") for k in torch.load(plain / "model.pt", weights_only=True)["models"])


def test_ppo_trains_logs_and_exposes_the_head(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run = train_ppo(load_config(PPOConfig, None, [*PPO_TINY, f"runs_dir={tmp_path}", "guard_head_weight=1.0"]))
    tags = EventAccumulator(str(run)).Reload().Tags()["scalars"]
    assert "losses/guard_head" in tags and "charts/guard_head_accuracy" in tags
    agent = make_agent(f"ppo:{run / 'model.pt'}", RULES)
    assert agent.has_guard_head and agent.state_features(np.zeros(agent.net.policy.state[0].in_features)).shape == (32,)
    _belief_checks(agent)


def test_a_negative_weight_is_refused(tmp_path):
    with pytest.raises(ValueError, match="guard_head_weight"):
        load_config(DMCConfig, None, [f"runs_dir={tmp_path}", "guard_head_weight=-1"])
