"""DMC's opponent mix: games against a bot give the bot one whole side once the roles are
fixed, and only the learner's decisions are trained on."""

from __future__ import annotations

import queue

import multiprocessing as mp
from typing import ClassVar

import numpy as np
import pytest

from agents.training.config import load_config
from agents.dmc.actor import Collector
from agents.dmc.config import DMCConfig
from agents.nets.networks import ActionScorer
from agents.nets.action_features import ActionFeatures
from baohuang_env import get_rules
from baohuang_env.agent import RandomAgent, register_agent
from baohuang_env.observation import observation_layout
from baohuang_env.roles import ROLES

RULES = get_rules("jj")
TINY = ["actors=0", "games_per_actor=1", "unroll_length=16", "slots_per_role=8", "batch_slots=2", "hidden=32",
        "head=16"]


class RecordingBot(RandomAgent):
    """A random bot that keeps the observations it acted on."""

    uses_observation = True
    acted: ClassVar[list[np.ndarray]] = []

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        RecordingBot.acted.append(observation.copy())
        return super().act(observation, action_mask)


register_agent("recording-test-bot", lambda arg, rules, seed: RecordingBot(seed))


def _collector(mix: str, *extra: str, start_frames: int = 0) -> Collector:
    """An inline collector whose slots never fill (staged rows stay readable)."""
    cfg = load_config(DMCConfig, None, [*TINY, f"opponent_mix={mix}", "unroll_length=100000", *extra])
    nets = [ActionScorer(observation_layout(RULES).size, ActionFeatures(RULES).size, cfg.hidden, cfg.head)]
    frames = mp.get_context("spawn").Value("q", start_frames)
    return Collector(cfg, RULES, nets, {}, [queue.Queue()], queue.Queue(), frames, seed=3, blocking=False)


def _side(roles: set[str]) -> str:
    """The side a set of role names belongs to; fails on a mix of both sides."""
    if roles <= {"rebel"}:
        return "rebels"
    assert roles <= {"emperor", "guard", "solo"}, f"one agent played both sides: {roles}"
    return "emperor's"


def test_a_bot_opponent_plays_one_whole_side_and_only_the_learner_is_trained_on(monkeypatch):
    collector = _collector("recording-test-bot=1")
    layout = observation_layout(RULES)
    learner_obs: list[np.ndarray] = []
    choose = collector.agent.choose_many
    monkeypatch.setattr(collector.agent, "choose_many",
                        lambda obs, *args: learner_obs.extend(obs.copy()) or choose(obs, *args))
    bot_sides = set()
    for _ in range(12):
        RecordingBot.acted, learner_obs[:] = [], []
        staged_before = len(collector.staging[0])
        collector.play_game()
        bot_roles = {ROLES[layout.read(o, "my_role").argmax()] for o in RecordingBot.acted}
        if bot_roles:  # else the deal ended in the role phase (void or surrender)
            bot_sides.add(_side(bot_roles))
        staged = {row[0].tobytes() for row in collector.staging[0][staged_before:]}
        assert staged and staged <= {o.tobytes() for o in learner_obs}
        assert not staged & {o.tobytes() for o in RecordingBot.acted}
    assert bot_sides == {"rebels", "emperor's"}


def test_self_play_never_builds_a_bot():
    collector = _collector("self=1")
    collector.play_game()
    assert collector.bots == {} and collector.staging[0]


@pytest.mark.parametrize("mix, message", [
    ("self=0,heuristic=0", "positive sum"),
    ("self=1,heuristic=-1", "non-negative"),
])
def test_bad_opponent_mixes_are_refused_with_what_is_allowed(mix, message):
    with pytest.raises(ValueError, match=message):
        load_config(DMCConfig, None, [*TINY, f"opponent_mix={mix}"])


def _learner_observations(collector: Collector) -> set[bytes]:
    return {row[0].tobytes() for net in collector.staging for row in net}


def test_the_teacher_plays_the_learners_seats_for_its_frames_then_the_learner_does():
    """Kickstarting: while the teacher's frames last, every learner decision is the teacher's
    (epsilon 0); the games after them are the learner's own, the teacher never asked."""
    collector = _collector("self=1", "teacher=recording-test-bot", "teacher_frames=1", "epsilon=0")
    RecordingBot.acted = []
    collector.play_game()  # the first game starts under the teacher's 1 frame: all of it is taught
    taught = {o.tobytes() for o in RecordingBot.acted}
    assert taught and _learner_observations(collector) == taught
    RecordingBot.acted = []
    before = len(collector.staging[0])
    collector.play_game()
    assert RecordingBot.acted == [] and len(collector.staging[0]) > before


def test_a_resumed_run_past_its_teacher_frames_never_asks_the_teacher():
    collector = _collector("self=1", "teacher=recording-test-bot", "teacher_frames=5000", start_frames=5000)
    RecordingBot.acted = []
    collector.play_game()
    assert RecordingBot.acted == [] and collector.staging[0]


@pytest.mark.parametrize("extra, message", [
    (["teacher=heuristic"], "set both"),
    (["teacher_frames=100"], "set both"),
    (["teacher=heuristic", "teacher_frames=0"], "set both"),
    (["teacher=heuristic", "teacher_frames=-1"], "teacher_frames must be >= 0"),
])
def test_a_teacher_needs_its_frames_and_frames_need_a_teacher(extra, message):
    with pytest.raises(ValueError, match=message):
        load_config(DMCConfig, None, [*TINY, *extra])


def test_opponent_and_teacher_specs_are_checked_before_a_run_starts(tmp_path):
    from agents.dmc.trainer import train

    for bad in (["opponent_mix=self=1,heuristc=1"], ["teacher=heuristc", "teacher_frames=10"]):
        cfg = load_config(DMCConfig, None, [*TINY, f"runs_dir={tmp_path}", *bad])
        with pytest.raises(ValueError, match="heuristc"):
            train(cfg)
    assert list(tmp_path.iterdir()) == []
