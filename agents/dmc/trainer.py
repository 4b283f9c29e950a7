"""`baohuang train dmc`: the DMC learner loop, top to bottom.

    config -> rules -> run (new, or resumed from a checkpoint) -> networks (shared memory)
    + optimizers + opponent pool (with "snapshots" in the mix) -> actors (backend "local":
    processes and shared buffers; "ray": Ray actors, `agents.dmc.ray_actors`) -> loop { take
    the chunks that arrived; when a network has a batch: regress Q on Monte-Carlo returns;
    snapshot into the pool on schedule; log; checkpoint; evaluate } -> final checkpoint +
    model.pt. (`baohuang train` then prints the evaluation table.)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from baohuang_env.observation import observation_layout
from baohuang_eval import validate_specs
from baohuang_eval.pool import children_ignore_ctrl_c
from baohuang_env.rules import Rules

from ..files.checkpoint import load_checkpoint
from ..training.config import config_to_dict
from ..training.device import learner_copy, sync_to, training_device
from ..nets.guard_head import GuardHead, guard_head_loss, guard_hidden
from ..nets.networks import ActionScorer
from ..training.opponents import opponent_tag
from ..training.pool import OpponentPool
from ..training.ray_backend import ray_session, require_ray
from ..training.run import CHECKPOINT_NAME, MODEL_NAME, Counters, Run, RunClock, open_run
from ..training.common import log_eval, rng_state, set_rng_state
from .agent import DMCAgent, action_row_size, dmc_compatibility
from .config import DMCConfig, checkpoint_networks
from .local_actors import Actors, Chunk, LocalActors
from .model import network_names
from .pool import opponent_pool, take_snapshot

__all__ = ["CHECKPOINT_NAME", "MODEL_NAME", "DMCCounters", "train"]


@dataclass
class DMCCounters(Counters):
    rows: int = 0  # rows regressed on


def architecture(cfg: DMCConfig, obs_size: int, action_size: int) -> dict[str, Any]:
    """The network layout a checkpoint records (`arch`), and a warm start must match."""
    return {"obs_size": obs_size, "action_size": action_size, "hidden": cfg.hidden, "head": cfg.head,
            "networks": cfg.networks, "advice": cfg.advice}


def checkpoint_payload(cfg: DMCConfig, rules: Rules, nets, optimizers, counters: DMCCounters, obs_size: int,
                       action_size: int, heads=None, pool: OpponentPool | None = None) -> dict[str, Any]:
    names = network_names(cfg.networks)
    # guard-belief heads (if trained) ride with the networks, so playing copies keep them
    heads = {f"guard_head.{n}": h.state_dict() for n, h in zip(names, heads, strict=True)} if heads else {}
    return {
        "compat": dmc_compatibility(rules),
        "config": config_to_dict(cfg),
        "arch": architecture(cfg, obs_size, action_size),
        "models": {**{name: net.state_dict() for name, net in zip(names, nets, strict=True)}, **heads},
        "optimizers": {name: opt.state_dict() for name, opt in zip(names, optimizers, strict=True)},
        "counters": vars(counters).copy(),
        "rng": rng_state(),
        **({} if pool is None else {"pool": pool.state()}),  # the opponent pool, with "snapshots" in the mix
    }


def warm_start_weights(cfg: DMCConfig, rules: Rules, obs_size: int, action_size: int) -> dict[str, Any]:
    """The network weights of `cfg.init_from` (name -> state dict); refuses a checkpoint of
    other rules or of another layout, saying which."""
    ckpt = load_checkpoint(cfg.init_from, expect=dmc_compatibility(rules))
    arch = ckpt["arch"]
    want = architecture(cfg, obs_size, action_size)
    have = {**{k: arch.get(k) for k in want}, "networks": checkpoint_networks(arch),
            "advice": arch.get("advice", "none")}
    wrong = {k: have[k] for k in want if have[k] != want[k]}
    if wrong:
        raise ValueError(f"init_from {cfg.init_from} does not fit this run: it has "
                         + ", ".join(f"{k}={v!r}" for k, v in wrong.items())
                         + "; this run has " + ", ".join(f"{k}={want[k]!r}" for k in wrong))
    return ckpt["models"]


def train(cfg: DMCConfig, resume: str | None = None, log=sys.stderr, rules: Rules | None = None) -> Path:
    """Train, checkpointing into the run directory; returns it. `rules`: the run's rules when
    the caller has built them already (`cfg.build_rules()`)."""
    if cfg.backend == "ray":
        require_ray()  # before the run directory exists
    device = training_device(cfg.device)  # a missing GPU is refused before the run directory exists
    rules = cfg.build_rules() if rules is None else rules
    obs_size = observation_layout(rules).size
    action_size = action_row_size(rules, cfg.advice)
    # checked before the run directory is made: a refused warm start or a typo in an
    # opponent or teacher spec leaves nothing behind
    validate_specs(cfg.opponent_specs(), rules)
    initial = warm_start_weights(cfg, rules, obs_size, action_size) if cfg.init_from and not resume else None
    with open_run(cfg, resume, load=lambda path: load_checkpoint(path, expect=dmc_compatibility(rules)),
                  counters=DMCCounters(), log=log) as run:
        return _train(cfg, rules, run, initial, (obs_size, action_size), device, log)


def _train(cfg: DMCConfig, rules: Rules, run: Run, initial: dict[str, Any] | None, sizes: tuple[int, int],
           device: torch.device, log) -> Path:
    """The open run: networks and optimizers (from its checkpoint, a warm start, or afresh),
    the actors, the learner loop; the final checkpoint (after a Ctrl-C too: `Run.finish`)."""
    obs_size, action_size = sizes
    counters = run.counters

    torch.set_num_threads(1)
    names = network_names(cfg.networks)
    # `nets`: the CPU copy the actors read (shared memory); `learners`: what the optimizers
    # update, the same objects on the CPU, copies on a GPU (`agents.training.device`)
    nets = [ActionScorer(obs_size, action_size, cfg.hidden, cfg.head) for _ in names]
    # the guard-belief head (agents.nets.guard_head), one per network, trained with it
    heads = [GuardHead(cfg.hidden) for _ in names] if cfg.guard_head_weight > 0 else None
    if run.checkpoint is not None:
        for i, (name, net) in enumerate(zip(names, nets, strict=True)):
            if heads:
                heads[i].load_state_dict(run.checkpoint["models"][f"guard_head.{name}"])
            net.load_state_dict(run.checkpoint["models"][name])
    elif initial is not None:
        for name, net in zip(names, nets, strict=True):
            net.load_state_dict(initial[name])
        print(f"[dmc] warm start from {cfg.init_from}", file=log, flush=True)
    for net in nets:
        net.share_memory()
    learners = [learner_copy(net, device) for net in nets]
    if heads:
        heads = [head.to(device) for head in heads]
    optimizers = [torch.optim.Adam([*net.parameters(), *(heads[i].parameters() if heads else ())],
                                   lr=cfg.learning_rate) for i, net in enumerate(learners)]
    if run.checkpoint is not None:
        for name, opt in zip(names, optimizers, strict=True):
            opt.load_state_dict(run.checkpoint["optimizers"][name])  # its state moves to the params' device
        set_rng_state(run.checkpoint["rng"])
    print(f"[dmc] learner on {device}", file=log, flush=True)

    pool = opponent_pool(cfg, nets, run.checkpoint)  # None without "snapshots" in opponent_mix

    def payload() -> dict[str, Any]:
        return checkpoint_payload(cfg, rules, nets, optimizers, counters, obs_size, action_size, heads, pool)

    # --- actors (a process tree, or Ray actors: the same interface) --------------------
    actor_seed = cfg.seed * 1000 + counters.updates
    with ExitStack() as stack:
        if cfg.backend == "ray":
            stack.enter_context(ray_session(cfg.ray_address))
            from .ray_actors import RayActors as Transport
        else:
            Transport = LocalActors
        with children_ignore_ctrl_c():  # the learner stops them, after a Ctrl-C too
            actors = Transport(cfg, rules, nets, counters.frames, actor_seed, obs_size, action_size, pool)
        stack.callback(actors.close)
        clock = _learn(cfg, rules, run, (nets, learners), heads, optimizers, (actors, pool), payload, log)
    return run.finish(payload(), f"{counters.frames:,} frames, {counters.updates} updates in {clock.minutes()}",
                      log)


def _learn(cfg: DMCConfig, rules: Rules, run: Run, networks: tuple[list[ActionScorer], list[ActionScorer]],
           heads: list[GuardHead] | None, optimizers: list, opponents: tuple[Actors, OpponentPool | None],
           payload: Callable[[], dict[str, Any]], log) -> RunClock:
    """The learner loop: take the chunks the actors send; when a network has a batch of them,
    regress it on their targets (and train its guard-belief head, if any) on the
    learner's device, and bring the new weights to the actors' copy; snapshot the actors'
    copy into the opponent pool on its schedule and hand the pool to the actors; log,
    checkpoint and evaluate on the clock, until the budget is spent. Returns the clock.
    `networks`: (the actors' CPU copies, the learner's: the same objects on the CPU);
    `opponents`: (the actors, the opponent pool or None)."""
    players, nets = networks
    actors, pool = opponents
    device = next(nets[0].parameters()).device
    names = network_names(cfg.networks)
    known_guard = observation_layout(rules)["known_guard"].span
    counters = run.counters
    pending: list[list[Chunk]] = [[] for _ in names]
    clock = RunClock(cfg, counters, frames=actors.frames, stop=run.stop)
    recent_loss = {r: [] for r in names}
    recent_return = {r: [] for r in names}
    recent_guard: list[tuple[float, float, int]] = []  # guard head: (loss, accuracy, labelled rows)
    recent_margin: list[float] = []  # kickstarting's margin loss
    recent_var: list[tuple[float, float]] = []  # per batch: the targets' variance, the returns'
    logged_results = actors.results()  # games against each opponent until the last log line

    def learn(net: int) -> None:
        """One regression step of network `net` on a batch of its chunks."""
        chunks, pending[net] = pending[net][:cfg.batch_slots], pending[net][cfg.batch_slots:]
        obs, act, target, guard, taught, demo, other, returns = (torch.cat(part).to(device)
                                                                 for part in zip(*chunks, strict=True))
        loss = torch.nn.functional.mse_loss(nets[net](obs, act), target)
        if cfg.teacher_margin > 0 and taught.any():  # kickstarting: rank the teacher's move first
            o = obs[taught]
            m_loss = torch.relu(nets[net](o, other[taught]) + cfg.teacher_margin - nets[net](o, demo[taught])).mean()
            loss = loss + m_loss
            recent_margin.append(m_loss.item())
        if heads:  # the hidden label enters the loss only, never the network's input
            g_loss, g_acc, g_n = guard_head_loss(heads[net], nets[net].state(obs), guard,
                                                 guard_hidden(obs, known_guard))
            loss = loss + cfg.guard_head_weight * g_loss
            recent_guard.append((g_loss.item(), g_acc, g_n))
        optimizers[net].zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(nets[net].parameters(), cfg.max_grad_norm)
        optimizers[net].step()
        sync_to(players[net], nets[net])
        counters.updates += 1
        counters.rows += target.numel()
        recent_loss[names[net]].append(loss.item())
        recent_return[names[net]].append(returns.mean().item())
        recent_var.append((target.var().item(), returns.var().item()))
        actors.publish()

    while not clock.done():
        for net, chunk in actors.receive():
            pending[net].append(chunk)
            if len(pending[net]) >= cfg.batch_slots:
                learn(net)

        clock.tick()
        if pool is not None and take_snapshot(pool, players, counters.elapsed_s, cfg.snapshot_minutes):
            actors.publish_pool()
        if clock.due("log"):
            fps, step = clock.frame_rate(), counters.frames
            run.writer.add_scalar("charts/SPS", fps, step)
            run.writer.add_scalar("charts/updates", counters.updates, step)
            if pool is not None:
                run.writer.add_scalar("charts/pool_size", len(pool), step)
            totals = actors.results()
            rates = _log_results(run.writer, list(cfg.opponent_mix), totals - logged_results, step)
            logged_results = totals
            clock.write_minutes(run.writer, step)
            for r in names:
                if recent_loss[r]:
                    run.writer.add_scalar(f"losses/{r}_loss", float(np.mean(recent_loss[r])), step)
                    run.writer.add_scalar(f"charts/mean_return_{r}", float(np.mean(recent_return[r])), step)
            losses = " ".join(f"{r}={np.mean(v):.3f}" for r, v in recent_loss.items() if v)
            if recent_var:  # the regression's noise, and what `target_lambda` takes off it
                v = np.mean(recent_var, axis=0)
                run.writer.add_scalar("charts/target_var", float(v[0]), step)
                if cfg.target_lambda < 1:
                    run.writer.add_scalar("charts/return_var", float(v[1]), step)
                recent_var.clear()
            if recent_margin:
                run.writer.add_scalar("losses/teacher_margin", float(np.mean(recent_margin)), step)
                recent_margin.clear()
            if recent_guard:
                g = np.array(recent_guard)
                run.writer.add_scalar("losses/guard_head", float(g[:, 0].mean()), step)
                if g[:, 2].sum():  # accuracy while the guard is hidden from the acting seat
                    run.writer.add_scalar("charts/guard_head_accuracy",
                                          float(np.nansum(g[:, 1] * g[:, 2]) / g[:, 2].sum()), step)
                recent_guard.clear()
            for r in names:
                recent_loss[r].clear()
                recent_return[r].clear()
            print(clock.progress("dmc", fps, f"loss {losses}{rates}"), file=log, flush=True)
        if clock.due("checkpoint"):
            run.save(payload())
        if clock.due("eval"):
            with clock.evaluating():  # off the budget; the actors go on playing meanwhile
                agent = DMCAgent(rules, players, advice=cfg.advice)
                log_eval(run.writer, agent, cfg, rules, counters.frames, cfg.eval_deals, log, tag="dmc")
    clock.tick()
    clock.write_minutes(run.writer, counters.frames)
    return clock


def _log_results(writer, modes: list[str], results: np.ndarray, step: int) -> str:
    """`charts/winrate_vs_<opponent>` (named by `opponent_tag`: "snapshots" for the pool's) of
    each opponent that training games were played against since the last log line: the
    learner side's win rate, draws ½ (`results`: games and wins per mode of `modes`). Returns
    the rates for the progress line ("" when there are none)."""
    rates = []
    for mode, (games, wins) in zip(modes, results.tolist(), strict=True):
        if games > 0:
            writer.add_scalar(f"charts/winrate_vs_{opponent_tag(mode)}", wins / games, step)
            rates.append(f"{opponent_tag(mode)}={wins / games:.2f}")
    return f"  train win {' '.join(rates)}" if rates else ""
