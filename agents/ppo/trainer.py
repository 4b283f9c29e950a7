"""`baohuang train ppo`: PPO self-play with an opponent pool, top to bottom.

    config -> rules -> run (new, or resumed from a checkpoint) -> actor-critic + Adam +
    opponent pool -> workers (backend "local": the learner process; "ray": Ray rollout workers,
    `agents.ppo.ray_workers`) -> loop { learning rate from the schedule; collect a rollout of
    learner decisions from num_games games at once (per worker); PPO epochs over it; snapshot
    into the pool on schedule or when the learner beats the pool; log; checkpoint; evaluate }
    -> final checkpoint + model.pt.
"""

from __future__ import annotations

import math
import sys
from collections import defaultdict, deque
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from baohuang_env.observation import observation_layout
from baohuang_env.rules import Rules
from baohuang_eval import validate_specs

from ..nets.action_features import ActionFeatures
from ..training.config import config_to_dict
from ..training.device import learner_copy, sync_to, training_device
from ..nets.guard_head import guard_head_loss, guard_hidden
from ..training.opponents import SELF, SNAPSHOTS, opponent_tag
from ..training.pool import OpponentPool
from ..training.ray_backend import ray_session, require_ray
from ..training.run import CHECKPOINT_NAME, MODEL_NAME, Counters, FrameRate, Run, RunClock, open_run
from ..training.common import log_eval, rng_state, set_rng_state
from .agent import PPOAgent, load_ppo_checkpoint, ppo_compatibility
from .config import PPOConfig
from .model import ActorCritic
from .rollout import Batch
from .workers import LocalWorkers, Workers

__all__ = ["CHECKPOINT_NAME", "MODEL_NAME", "PPOCounters", "ppo_update", "train"]


@dataclass
class PPOCounters(Counters):
    decisions: int = 0  # learner decisions trained on
    games: int = 0


def architecture(cfg: PPOConfig, rules: Rules) -> dict[str, int]:
    arch = {"obs_size": observation_layout(rules).size, "action_size": ActionFeatures(rules).size,
            "hidden": cfg.hidden, "head": cfg.head, "value_hidden": cfg.value_hidden}
    if cfg.guard_head_weight > 0:  # (key absent otherwise: older checkpoints load as before)
        arch["guard_head"] = True
    return arch


def ppo_update(net: ActorCritic, optimizer: torch.optim.Optimizer, batch: Batch, cfg: PPOConfig,
               features: torch.Tensor) -> dict[str, float]:
    """PPO's clipped objective over `batch` for cfg.update_epochs epochs of minibatches.
    Returns the `losses/*` figures (CleanRL's definitions, averaged over the last epoch)."""
    T = len(batch)
    device = features.device  # the learner's (`agents.training.device`): the batch goes there

    def tensor(a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(a).to(device)

    obs = tensor(batch.obs)
    offsets, counts = batch.offsets, batch.counts
    choice, old_logp = tensor(batch.choice), tensor(batch.logp)
    adv_all, ret, old_value = tensor(batch.adv), tensor(batch.ret), tensor(batch.value)
    n_mb = max(1, round(T / cfg.minibatch_size))
    if net.guard_head is not None:
        known_guard = observation_layout(cfg.build_rules())["known_guard"].span
    stats: dict[str, list[float]] = defaultdict(list)
    for _epoch in range(cfg.update_epochs):
        stats.clear()
        for idx in np.array_split(torch.randperm(T).numpy(), n_mb):
            c = counts[idx]
            rows = np.repeat(offsets[idx] - (np.cumsum(c) - c), c) + np.arange(c.sum())
            dist = net.distribution(obs[idx], tensor(c), features[batch.actions[rows]])
            new_logp = dist.log_prob(choice[idx])
            entropy = dist.entropy().mean()
            new_value = net.get_value(obs[idx])
            logratio = new_logp - old_logp[idx]
            ratio = logratio.exp()
            with torch.no_grad():
                stats["approx_kl"].append(((ratio - 1) - logratio).mean().item())
                stats["clipfrac"].append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
            adv = adv_all[idx]
            if cfg.norm_adv and len(idx) > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
            if cfg.clip_vloss:
                clipped = old_value[idx] + (new_value - old_value[idx]).clamp(-cfg.clip_coef, cfg.clip_coef)
                v_loss = 0.5 * torch.max((new_value - ret[idx]) ** 2, (clipped - ret[idx]) ** 2).mean()
            else:
                v_loss = 0.5 * ((new_value - ret[idx]) ** 2).mean()
            loss = pg_loss - cfg.ent_coef * entropy + cfg.vf_coef * v_loss
            if net.guard_head is not None and batch.guard is not None:  # the label enters the loss only
                g_loss, g_acc, g_n = guard_head_loss(net.guard_head, net.policy.state(obs[idx]),
                                                     tensor(batch.guard[idx]),
                                                     guard_hidden(obs[idx], known_guard))
                loss = loss + cfg.guard_head_weight * g_loss
                stats["guard_head"].append(g_loss.item())
                if g_n:  # accuracy while the guard is hidden from the acting seat
                    stats["guard_head_accuracy"].append(g_acc)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            optimizer.step()
            stats["policy_loss"].append(pg_loss.item())
            stats["value_loss"].append(v_loss.item())
            stats["entropy"].append(entropy.item())
        if cfg.target_kl > 0 and np.mean(stats["approx_kl"]) > cfg.target_kl:
            break
    out = {k: float(np.mean(v)) for k, v in stats.items()}
    var = float(np.var(batch.ret))
    out["explained_variance"] = float("nan") if var == 0 else 1.0 - float(np.var(batch.ret - batch.value)) / var
    return out


def learning_rate(cfg: PPOConfig, counters: PPOCounters) -> float:
    """The schedule: constant, or linear from learning_rate to lr_final_fraction of it over the
    budget (frames when total_frames is set, so that runs reproduce; otherwise time)."""
    if cfg.lr_schedule == "constant":
        return cfg.learning_rate
    if cfg.total_frames > 0:
        done = counters.frames / cfg.total_frames
    else:
        done = counters.elapsed_s / (cfg.total_minutes * 60)
    done = min(max(done, 0.0), 1.0)
    return cfg.learning_rate * (1.0 - done * (1.0 - cfg.lr_final_fraction))


def iteration_decisions(cfg: PPOConfig, remaining_s: float, pace_s: float | None) -> int:
    """The learner decisions to collect for the next update: `rollout_decisions`, or, when
    the remaining training time fits fewer at the last iteration's pace (`pace_s`: its
    training seconds per decision, collecting and learning), that many (at least one), so
    that a time budget ends the run on time instead of up to a whole iteration late."""
    if pace_s is None or not math.isfinite(remaining_s):
        return cfg.rollout_decisions
    return max(1, min(cfg.rollout_decisions, math.ceil(remaining_s / pace_s)))


def checkpoint_payload(cfg: PPOConfig, rules: Rules, net: ActorCritic, optimizer, pool: OpponentPool,
                       workers: Workers, counters: PPOCounters) -> dict[str, Any]:
    return {
        "compat": ppo_compatibility(rules),
        "config": config_to_dict(cfg),
        "arch": architecture(cfg, rules),
        "models": {"actor_critic": net.state_dict()},
        "optimizer": optimizer.state_dict(),
        "pool": pool.state(),
        "counters": vars(counters).copy(),
        "rng": {**rng_state(), "rollouts": workers.rng_state()},
    }


def train(cfg: PPOConfig, resume: str | None = None, log=sys.stderr, rules: Rules | None = None) -> Path:
    """Train, checkpointing into the run directory; returns it. `rules`: the run's rules when
    the caller has built them already (`cfg.build_rules()`)."""
    if cfg.backend == "ray":
        require_ray()  # before the run directory exists
    device = training_device(cfg.device)  # a missing GPU is refused before the run directory exists
    rules = cfg.build_rules() if rules is None else rules
    validate_specs(cfg.opponent_specs(), rules)  # a typo in opponent_mix fails now
    with open_run(cfg, resume, load=lambda path: load_ppo_checkpoint(str(path), rules), counters=PPOCounters(),
                  log=log) as run:
        return _train(cfg, rules, run, device, log)


def _train(cfg: PPOConfig, rules: Rules, run: Run, device: torch.device, log) -> Path:
    """The open run: the actor-critic, optimizer and pool (from its checkpoint, or afresh),
    the workers, the learner loop; the final checkpoint (after a Ctrl-C too: `Run.finish`)."""
    arch = architecture(cfg, rules)
    counters = run.counters

    torch.set_num_threads(cfg.torch_threads)
    # `net`: the CPU copy the rollouts and the pool read; `learner`: what the optimizer
    # updates, `net` itself on the CPU, a copy on a GPU (`agents.training.device`)
    net = ActorCritic(**arch)
    pool = OpponentPool(cfg.pool_size)
    if run.checkpoint is None:
        pool.add(net, 0)  # the initial policy: the pool is never empty
    else:
        net.load_state_dict(run.checkpoint["models"]["actor_critic"])
        pool.load(run.checkpoint["pool"], net)
    learner = learner_copy(net, device)
    optimizer = torch.optim.Adam(learner.parameters(), lr=cfg.learning_rate, eps=1e-5)
    if run.checkpoint is not None:
        optimizer.load_state_dict(run.checkpoint["optimizer"])  # its state moves to the params' device
        set_rng_state(run.checkpoint["rng"])
    print(f"[ppo] learner on {device}", file=log, flush=True)
    seed = cfg.seed * 1000 + counters.updates
    with ExitStack() as stack:
        if cfg.backend == "ray":
            stack.enter_context(ray_session(cfg.ray_address))
            from .ray_workers import RayWorkers

            workers = RayWorkers(cfg, rules, net, pool, seed, arch)
        else:
            saved = None if run.checkpoint is None else run.checkpoint["rng"].get("rollouts")
            workers = LocalWorkers(cfg, rules, net, pool, seed, rng_state=saved)
        stack.callback(workers.close)
        clock = _learn(cfg, rules, run, (net, learner), optimizer, pool, workers, log)
    return run.finish(checkpoint_payload(cfg, rules, net, optimizer, pool, workers, counters),
                      f"{counters.frames:,} frames, {counters.decisions:,} decisions trained on, "
                      f"{counters.updates} updates in {clock.minutes()}", log)


def _learn(cfg: PPOConfig, rules: Rules, run: Run, networks: tuple[ActorCritic, ActorCritic],
           optimizer: torch.optim.Optimizer, pool: OpponentPool, workers: Workers, log=sys.stderr) -> RunClock:
    """The learner loop: learning rate from the schedule; collect a rollout from the workers;
    PPO epochs over it on the learner's device, and the new weights back to the rollouts'
    copy; snapshot into the pool on schedule or when the learner beats the pool; log;
    checkpoint; evaluate; until the budget is spent. Returns the clock. `networks`: (the
    rollouts' CPU copy, the learner's: the same object on the CPU)."""
    net, learner = networks
    counters, writer = run.counters, run.writer
    features = torch.from_numpy(ActionFeatures(rules).table.copy()).to(next(learner.parameters()).device)
    agent = PPOAgent(rules, net)  # the live policy, for evaluations during training
    frames = counters.frames  # what the learner received, over all resumes
    clock = RunClock(cfg, counters, frames=lambda: frames, stop=run.stop)
    update_rate = FrameRate(counters.frames, clock.now)
    recent: dict[str, deque] = defaultdict(lambda: deque(maxlen=500))  # training-game results
    vs_snapshots: deque[float] = deque(maxlen=cfg.snapshot_window)
    pace_s, started = None, clock.now  # the last iteration's seconds per decision, unknown at first

    while not clock.done():
        lr = learning_rate(cfg, counters)
        for group in optimizer.param_groups:
            group["lr"] = lr
        torch.set_num_threads(1)  # the rollout's forward passes are small
        collected = workers.collect(iteration_decisions(cfg, clock.remaining_s, pace_s), stop=clock.stopping)
        torch.set_num_threads(cfg.torch_threads)
        if collected is None:  # stopped (Ctrl-C) mid-rollout: its games are dropped, the clock ends the run
            continue
        batch, frames = collected.batch, frames + collected.frames
        losses = ppo_update(learner, optimizer, batch, cfg, features)
        sync_to(net, learner)
        counters.updates += 1
        counters.decisions += len(batch)
        for game in collected.finished:
            counters.games += 1
            if game["mode"] != SELF:
                won = float(np.sign(game["score"]) * 0.5 + 0.5)  # a draw counts half
                recent[f"winrate_vs_{opponent_tag(game['mode'])}"].append(won)
                if game["mode"] == SNAPSHOTS:
                    vs_snapshots.append(won)
            for role, score in game["returns"]:
                recent[f"episodic_return_{role}"].append(score)
        clock.tick()
        pace_s, started = (clock.now - started) / max(len(batch), 1), clock.now

        # --- the opponent pool ----------------------------------------------------------
        beaten = (cfg.snapshot_win_rate > 0 and len(vs_snapshots) == vs_snapshots.maxlen
                  and np.mean(vs_snapshots) >= cfg.snapshot_win_rate)
        if (cfg.snapshot_every > 0 and counters.updates % cfg.snapshot_every == 0) or beaten:
            pool.add(net, counters.updates)
            vs_snapshots.clear()
            writer.add_scalar("charts/snapshot_added", counters.updates, counters.frames)

        # --- logging (TensorBoard every update, a progress line every log_seconds) -------
        step = counters.frames
        for name, value in losses.items():
            writer.add_scalar(f"charts/{name}" if name == "guard_head_accuracy" else f"losses/{name}", value, step)
        writer.add_scalar("charts/SPS", update_rate(counters.frames, clock.now), step)
        writer.add_scalar("charts/learning_rate", lr, step)
        writer.add_scalar("charts/updates", counters.updates, step)
        writer.add_scalar("charts/pool_size", len(pool), step)
        clock.write_minutes(writer, step)
        for name, values in recent.items():
            writer.add_scalar(f"charts/{name}", float(np.mean(values)), step)
        if clock.due("log"):
            rates = " ".join(f"{k[11:]}={np.mean(v):.2f}" for k, v in sorted(recent.items())
                             if k.startswith("winrate_vs_"))
            print(clock.progress("ppo", clock.frame_rate(), f"kl {losses['approx_kl']:.4f}  "
                                 f"ent {losses['entropy']:.2f}  ev {losses['explained_variance']:.2f}  "
                                 f"train win {rates}"), file=log, flush=True)
        if clock.due("checkpoint"):
            run.save(checkpoint_payload(cfg, rules, net, optimizer, pool, workers, counters))
        if clock.due("eval"):
            with clock.evaluating():  # off the budget
                log_eval(writer, agent, cfg, rules, step, cfg.eval_deals, log, tag="ppo")

    clock.tick()
    clock.write_minutes(writer, counters.frames)
    return clock
