"""`baohuang train dmc`: the DMC learner loop, top to bottom.

    config -> rules -> run (new, or resumed from a checkpoint) -> networks (shared memory)
    + optimizers -> shared buffers + actor processes -> loop { take full slots; when a
    network has a batch: regress Q on Monte-Carlo returns; log; checkpoint; evaluate }
    -> final checkpoint + model.pt. (`baohuang train` then prints the evaluation table.)
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from baohuang_env.observation import observation_layout
from baohuang_env.rules import Rules

from ..action_features import ActionFeatures
from ..checkpoint import load_checkpoint
from ..config import config_to_dict
from ..guard_head import GuardHead, guard_head_loss, guard_hidden
from ..networks import ActionScorer
from ..run import CHECKPOINT_NAME, MODEL_NAME, Counters, RunClock, open_run
from ..training import log_eval, rng_state, set_rng_state
from .actor import Collector, actor_process, make_buffers
from .agent import DMCAgent, dmc_compatibility
from .config import DMCConfig
from .model import network_names

__all__ = ["CHECKPOINT_NAME", "MODEL_NAME", "DMCCounters", "train"]


@dataclass
class DMCCounters(Counters):
    rows: int = 0  # rows regressed on


def checkpoint_payload(cfg: DMCConfig, rules: Rules, nets, optimizers, counters: DMCCounters, obs_size: int,
                       action_size: int, heads=None) -> dict[str, Any]:
    names = network_names(cfg.networks)
    # guard-belief heads (if trained) ride with the networks, so playing copies keep them
    heads = {f"guard_head.{n}": h.state_dict() for n, h in zip(names, heads, strict=True)} if heads else {}
    return {
        "compat": dmc_compatibility(rules),
        "config": config_to_dict(cfg),
        "arch": {"obs_size": obs_size, "action_size": action_size, "hidden": cfg.hidden, "head": cfg.head,
                 "networks": cfg.networks},
        "models": {**{name: net.state_dict() for name, net in zip(names, nets, strict=True)}, **heads},
        "optimizers": {name: opt.state_dict() for name, opt in zip(names, optimizers, strict=True)},
        "counters": vars(counters).copy(),
        "rng": rng_state(),
    }


def train(cfg: DMCConfig, resume: str | None = None, log=sys.stderr, rules: Rules | None = None) -> Path:
    """Train, checkpointing into the run directory; returns it. `rules`: the run's rules when
    the caller has built them already (`cfg.build_rules()`)."""
    rules = cfg.build_rules() if rules is None else rules
    obs_size = observation_layout(rules).size
    action_size = ActionFeatures(rules).size
    run = open_run(cfg, resume, load=lambda path: load_checkpoint(path, expect=dmc_compatibility(rules)),
                   counters=DMCCounters(), log=log)
    counters = run.counters

    torch.set_num_threads(1)
    names = network_names(cfg.networks)
    nets = [ActionScorer(obs_size, action_size, cfg.hidden, cfg.head) for _ in names]
    # the guard-belief head (agents.guard_head), one per network, trained with it
    heads = [GuardHead(cfg.hidden) for _ in names] if cfg.guard_head_weight > 0 else None
    known_guard = observation_layout(rules)["known_guard"].span
    optimizers = [torch.optim.Adam([*net.parameters(), *(heads[i].parameters() if heads else ())],
                                   lr=cfg.learning_rate) for i, net in enumerate(nets)]
    if run.checkpoint is not None:
        for i, (name, net, opt) in enumerate(zip(names, nets, optimizers, strict=True)):
            if heads:
                heads[i].load_state_dict(run.checkpoint["models"][f"guard_head.{name}"])
            net.load_state_dict(run.checkpoint["models"][name])
            opt.load_state_dict(run.checkpoint["optimizers"][name])
        set_rng_state(run.checkpoint["rng"])
    for net in nets:
        net.share_memory()

    def payload() -> dict[str, Any]:
        return checkpoint_payload(cfg, rules, nets, optimizers, counters, obs_size, action_size, heads)

    # --- buffers and actors -------------------------------------------------------------
    ctx = mp.get_context("spawn")
    buffers = make_buffers(cfg, obs_size, action_size)
    inline = cfg.actors == 0
    q_factory = queue.Queue if inline else ctx.Queue
    free_queues = [q_factory() for _ in names]
    full_queue = q_factory()
    for net in range(len(names)):
        for k in range(cfg.slots_per_role):
            free_queues[net].put(net * cfg.slots_per_role + k)
    frames = ctx.Value("q", counters.frames)
    stop = ctx.Event()
    actor_seed = cfg.seed * 1000 + counters.updates
    procs = []
    collector = None
    if inline:
        collector = Collector(cfg, rules, nets, buffers, free_queues, full_queue, frames, actor_seed,
                              blocking=False)
    else:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        for i in range(cfg.actors):
            p = ctx.Process(target=actor_process, daemon=True, args=(
                cfg, rules, nets, buffers, free_queues, full_queue, frames, stop, actor_seed + i))
            p.start()
            procs.append(p)

    # --- the learner loop ---------------------------------------------------------------
    pending: list[list[int]] = [[] for _ in names]
    clock = RunClock(cfg, counters, frames=lambda: frames.value)
    recent_loss = {r: [] for r in names}
    recent_return = {r: [] for r in names}
    recent_guard: list[tuple[float, float, int]] = []  # guard head: (loss, accuracy, labelled rows)

    def learn(net: int) -> None:
        """One regression step of network `net` on a batch of its full slots."""
        slots, pending[net] = pending[net][:cfg.batch_slots], pending[net][cfg.batch_slots:]
        idx = torch.tensor(slots)
        obs = buffers["obs"][idx].flatten(0, 1)  # advanced indexing copies: the slots can go back
        act = buffers["action"][idx].flatten(0, 1)
        target = buffers["target"][idx].flatten(0, 1)
        for s in slots:
            free_queues[net].put(s)
        loss = torch.nn.functional.mse_loss(nets[net](obs, act), target)
        if heads:  # the hidden label enters the loss only, never the network's input
            g_loss, g_acc, g_n = guard_head_loss(heads[net], nets[net].state(obs), buffers["guard"][idx].flatten(),
                                                 guard_hidden(obs, known_guard))
            loss = loss + cfg.guard_head_weight * g_loss
            recent_guard.append((g_loss.item(), g_acc, g_n))
        optimizers[net].zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(nets[net].parameters(), cfg.max_grad_norm)
        optimizers[net].step()
        counters.updates += 1
        counters.rows += target.numel()
        recent_loss[names[net]].append(loss.item())
        recent_return[names[net]].append(target.mean().item())

    try:
        while not clock.done():
            items = []
            if inline:  # play one game here, then learn from every slot it filled
                collector.play_game()
                while not full_queue.empty():
                    items.append(full_queue.get_nowait())
            else:
                try:
                    items.append(full_queue.get(timeout=0.5))
                except queue.Empty:
                    if not any(p.is_alive() for p in procs):
                        raise RuntimeError("all actor processes died; see their errors above") from None
                    continue
            for net, slot in items:
                pending[net].append(slot)
                if len(pending[net]) >= cfg.batch_slots:
                    learn(net)

            clock.tick()
            if clock.due("log"):
                fps, step = clock.frame_rate(), counters.frames
                run.writer.add_scalar("charts/SPS", fps, step)
                run.writer.add_scalar("charts/updates", counters.updates, step)
                clock.write_minutes(run.writer, step)
                for r in names:
                    if recent_loss[r]:
                        run.writer.add_scalar(f"losses/{r}_loss", float(np.mean(recent_loss[r])), step)
                        run.writer.add_scalar(f"charts/mean_return_{r}", float(np.mean(recent_return[r])), step)
                losses = " ".join(f"{r}={np.mean(v):.3f}" for r, v in recent_loss.items() if v)
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
                print(clock.progress("dmc", fps, f"loss {losses}"), file=log, flush=True)
            if clock.due("checkpoint"):
                run.save(payload())
            if clock.due("eval"):
                with clock.evaluating():  # off the budget; the actors fill free slots meanwhile
                    log_eval(run.writer, DMCAgent(rules, nets), cfg, rules, counters.frames, cfg.eval_deals, log,
                             tag="dmc")
    finally:
        stop.set()
        for p in procs:
            p.join(timeout=2)
            if p.is_alive():
                p.terminate()
    clock.tick()
    clock.write_minutes(run.writer, counters.frames)
    return run.finish(payload(), f"[dmc] done: {counters.frames:,} frames, {counters.updates} updates in "
                      f"{clock.minutes()}", log)
