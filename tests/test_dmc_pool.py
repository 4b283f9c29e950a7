"""DMC's opponent pool (`opponent_mix` entry "snapshots"): its config, the actors playing a
snapshot greedily at the opponent's seats, the schedule, the shared-memory pool of actor
processes, and a short run that plays snapshot games and resumes with its pool."""

from __future__ import annotations

import multiprocessing as mp
import queue
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.dmc.actor import Collector
from agents.dmc.agent import DMCAgent
from agents.dmc.config import DMCConfig
from agents.dmc.pool import opponent_pool, take_snapshot
from agents.dmc.trainer import CHECKPOINT_NAME, train
from agents.nets.action_features import ActionFeatures
from agents.nets.networks import ActionScorer
from agents.training.config import load_config
from agents.training.pool import OpponentPool, SharedPool
from baohuang_env import get_rules
from baohuang_env.observation import observation_layout

RULES = get_rules("jj")
TINY = ["actors=0", "games_per_actor=2", "unroll_length=16", "slots_per_role=8", "batch_slots=2", "hidden=32",
        "head=16", "eval_minutes=0", "log_seconds=1000", "checkpoint_minutes=100", "total_minutes=5"]


def _nets(cfg: DMCConfig, seed: int) -> list[ActionScorer]:
    torch.manual_seed(seed)
    return [ActionScorer(observation_layout(RULES).size, ActionFeatures(RULES).size, cfg.hidden, cfg.head)]


# --- config --------------------------------------------------------------------------------

@pytest.mark.parametrize("extra, message", [
    ("pool_size=0", "pool_size must be > 0, got 0"),
    ("pool_size=-3", "pool_size must be > 0, got -3"),
    ("snapshot_minutes=0", "snapshot_minutes must be > 0, got 0.0"),
    ("snapshot_minutes=-1", "snapshot_minutes must be > 0, got -1.0"),
    ("pool_size=many", "'pool_size' expects an integer"),
])
def test_bad_pool_settings_are_refused_naming_the_key(extra, message):
    with pytest.raises(ValueError, match=message):
        load_config(DMCConfig, None, [*TINY, "opponent_mix=self=0.8,snapshots=0.2", extra])


def test_snapshots_are_an_opponent_of_dmc_on_the_command_line_and_in_yaml(tmp_path):
    cfg = load_config(DMCConfig, None, [*TINY, "opponent_mix=self=0.6,snapshots=0.2,heuristic=0.2"])
    assert cfg.opponent_mix == {"self": 0.6, "snapshots": 0.2, "heuristic": 0.2}
    assert cfg.uses_pool and cfg.opponent_specs() == ["heuristic"]
    assert (cfg.snapshot_minutes, cfg.pool_size) == (5.0, 8)
    recipe = tmp_path / "pool.yaml"
    recipe.write_text("opponent_mix: {self: 0.6, snapshots: 0.2, heuristic: 0.2}\n"
                      "snapshot_minutes: 2.5\npool_size: 4\n")
    cfg = load_config(DMCConfig, recipe, TINY)
    assert cfg.uses_pool and (cfg.snapshot_minutes, cfg.pool_size) == (2.5, 4)
    assert not load_config(DMCConfig, None, [*TINY, "opponent_mix=self=1,snapshots=0"]).uses_pool


# --- the actors ----------------------------------------------------------------------------

def test_a_snapshot_plays_its_own_argmax_at_the_opponents_seats_and_is_not_trained_on():
    """A snapshot whose weights differ from the learner's: every decision at its seats is its
    own greedy choice (often not the learner's), and none of them reaches the learner's rows."""
    cfg = load_config(DMCConfig, None, [*TINY, "opponent_mix=snapshots=1", "epsilon=0", "unroll_length=100000"])
    learner, past = _nets(cfg, 0), _nets(cfg, 1)
    pool = OpponentPool(cfg.pool_size)
    pool.add(torch.nn.ModuleList(past), 0)
    frames = mp.get_context("spawn").Value("q", 0)
    collector = Collector(cfg, RULES, learner, {}, [queue.Queue()], queue.Queue(), frames, seed=3, blocking=False,
                          pool=pool)
    judge, learner_judge = DMCAgent(RULES, past), DMCAgent(RULES, learner)
    decisions: list[tuple[bytes, bool, bool]] = []  # (observation, the snapshot's argmax?, the learner's?)
    games, advance = collector.games, collector.games.advance

    def checked_advance(turn):
        for _agent, rows in turn.snapshots:
            for b, obs in zip(rows.tolist(), games.observe(rows), strict=True):
                legal = np.flatnonzero(turn.masks[b])
                best = legal[np.argmax(judge.action_values(obs, legal, turn.masks[b]))]
                mine = legal[np.argmax(learner_judge.action_values(obs, legal, turn.masks[b]))]
                decisions.append((obs.tobytes(), turn.actions[b] == best, best == mine))
        return advance(turn)

    games.advance = checked_advance
    for _ in range(6):
        collector.play_game()
    assert len(decisions) > 20 and all(played for _o, played, _same in decisions)
    assert not all(same for _o, _p, same in decisions)  # the snapshot is not the learner
    staged = {row[0].tobytes() for row in collector.staging[0]}
    assert staged and not staged & {o for o, _p, _s in decisions}
    assert collector.results[0, 0] > 0  # games against the snapshot were counted


# --- the schedule and the pools ------------------------------------------------------------

def test_the_pool_grows_on_schedule_and_drops_the_oldest():
    cfg = load_config(DMCConfig, None, [*TINY, "opponent_mix=self=0.5,snapshots=0.5", "pool_size=3",
                                        "snapshot_minutes=2"])
    nets = _nets(cfg, 0)
    pool = opponent_pool(cfg, nets, None)  # a new run: the first snapshot at once
    assert pool.ids == [0]
    added = [take_snapshot(pool, nets, s, cfg.snapshot_minutes) for s in (60, 119, 120, 200, 250, 360, 1000)]
    assert added == [False, False, True, False, True, True, True]
    assert pool.ids == [2, 3, 8] and len(pool) == 3
    # a snapshot is a frozen copy: later training leaves it as it was
    before = pool.snapshots[-1].net[0].state[0].weight.clone()
    with torch.no_grad():
        nets[0].state[0].weight.add_(1.0)
    assert torch.equal(pool.snapshots[-1].net[0].state[0].weight, before)
    assert not any(p.requires_grad for p in pool.snapshots[-1].net.parameters())
    assert opponent_pool(load_config(DMCConfig, None, TINY), nets, None) is None  # no snapshots, no pool


def test_a_checkpoint_without_a_pool_gets_one_at_the_schedules_mark():
    cfg = load_config(DMCConfig, None, [*TINY, "opponent_mix=self=0.5,snapshots=0.5", "snapshot_minutes=5"])
    pool = opponent_pool(cfg, _nets(cfg, 0), {"counters": {"elapsed_s": 11 * 60.0}})
    assert pool.ids == [2]


def test_the_shared_pool_reaches_a_reader_whole_and_keeps_its_copies():
    """The learner publishes into shared slots; a reader (an actor) plays its own copies: equal
    to the snapshots, never the slots themselves, kept for a game in progress when the slot is
    written again, and copied once per snapshot."""
    cfg = load_config(DMCConfig, None, TINY)
    learner = OpponentPool(2)
    for sid in range(2):
        learner.add(torch.nn.ModuleList(_nets(cfg, sid)), sid)
    shared = SharedPool(torch.nn.ModuleList(_nets(cfg, 9)), 2, mp.get_context("spawn"))
    shared.publish(learner)
    rng = np.random.default_rng(0)
    drawn = {shared.draw(rng).id: None for _ in range(20)}
    assert sorted(drawn) == [0, 1]
    copies = {s.id: s for s in shared._mine.snapshots}
    for sid, snap in copies.items():
        assert all(torch.equal(a, b) for a, b in zip(snap.net.parameters(), learner.snapshots[sid].net.parameters(),
                                                     strict=True))
        assert all(not p.is_shared() for p in snap.net.parameters())
    in_game = copies[0].net[0].state[0].weight.clone()
    learner.add(torch.nn.ModuleList(_nets(cfg, 2)), 2)  # snapshot 0 leaves, 2 takes its slot
    shared.publish(learner)
    assert sorted({shared.draw(rng).id for _ in range(20)}) == [1, 2]
    assert torch.equal(copies[0].net[0].state[0].weight, in_game)
    assert shared._mine.snapshots[0] is copies[1]  # kept, not copied again
    assert torch.equal(shared._mine.snapshots[1].net[0].state[0].weight, learner.snapshots[1].net[0].state[0].weight)


# --- a short run ---------------------------------------------------------------------------

def _pool_weights(ckpt: dict) -> list[torch.Tensor]:
    return [torch.cat([v.flatten() for v in model.values()]) for model in ckpt["pool"]["models"]]


def test_a_run_plays_snapshot_games_and_resumes_with_its_pool(tmp_path: Path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    mix = ["opponent_mix=self=0.5,snapshots=0.5", "log_seconds=0", f"runs_dir={tmp_path}"]
    run_dir = train(load_config(DMCConfig, None, [*TINY, *mix, "total_frames=2000"]))
    first = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    assert first["pool"]["ids"] == [0]  # the first snapshot, taken as the run started (next at 5 minutes)
    learned = torch.cat([v.flatten() for v in first["models"]["shared"].values()])
    assert not torch.equal(_pool_weights(first)[0], learned)  # the learner has moved on from it
    tags = EventAccumulator(str(run_dir)).Reload().Tags()["scalars"]
    assert {"charts/winrate_vs_snapshots", "charts/pool_size"} <= set(tags)

    assert train(load_config(DMCConfig, None, [*TINY, *mix, "total_frames=3000"]), resume=str(run_dir)) == run_dir
    second = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    assert second["counters"]["frames"] >= 3000 and second["pool"]["ids"] == [0]
    assert torch.equal(_pool_weights(second)[0], _pool_weights(first)[0])  # restored, not a new snapshot


def test_actor_processes_play_the_pool_the_learner_publishes(tmp_path: Path):
    """The local backend: a snapshot every 0.3 s of training reaches the actor process through
    shared memory while it plays (a snapshot game there needs a pool), the oldest leaving."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run_dir = train(load_config(DMCConfig, None, [
        *TINY, "actors=1", "opponent_mix=self=0.5,snapshots=0.5", "snapshot_minutes=0.005", "pool_size=2",
        "log_seconds=0", "total_frames=4000", f"runs_dir={tmp_path}"]))  # games against the pool end in it
    ckpt = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    ids = ckpt["pool"]["ids"]
    assert len(ids) == 2 and 0 < ids[0] < ids[1]
    assert "charts/winrate_vs_snapshots" in EventAccumulator(str(run_dir)).Reload().Tags()["scalars"]


def test_a_dmc_checkpoint_in_the_mix_is_one_frozen_network_for_every_game():
    """`opponent_mix` naming a DMC checkpoint (an exploiter's opponent): the collector builds
    it once, greedy, and plays it like a snapshot, at every game; a bot stays per seat."""
    spec = "pretrained:dmc_kickstart_jj"
    cfg = DMCConfig(actors=0, games_per_actor=4, unroll_length=16, hidden=32, head=16,
                    opponent_mix={spec: 1.0, "greedy": 1.0})
    cfg.validate()
    frames = mp.get_context("spawn").Value("q", 0)
    collector = Collector(cfg, RULES, _nets(cfg, 1), {}, [queue.Queue()], queue.Queue(), frames, seed=3,
                          blocking=False)
    played = collector.games.turn
    groups = []

    def seen_turn():
        turn = played()
        groups.extend(agent for agent, _rows in turn.snapshots)
        return turn

    collector.games.turn = seen_turn
    for _ in range(300):
        collector.step()
    frozen = collector._frozen[spec]
    assert isinstance(frozen, DMCAgent) and frozen.epsilon == 0 and collector._frozen["greedy"] is None
    assert groups and all(agent is frozen for agent in groups)  # its moves came in the one-call groups
    assert {spec_ for _row, spec_ in collector.bots} == {"greedy"}  # no per-seat copies of the network
    games, wins = collector.results[collector._mode[spec]]
    assert games >= 1 and 0 <= wins <= games
