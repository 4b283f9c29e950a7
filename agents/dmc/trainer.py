"""`baohuang train dmc`: the DMC learner loop, top to bottom.

    config -> run dir -> seeding -> networks (shared memory) + optimizers -> [resume]
    -> shared buffers + actor processes -> loop { take full slots; when a network has a
    batch: regress Q on Monte-Carlo returns; log; checkpoint; evaluate } -> final
    checkpoint -> evaluation table against the scripted bots.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from baohuang_env import get_rules
from baohuang_env.encoding import Encoder

from ..checkpoint import load_checkpoint, save_checkpoint
from ..config import config_from_dict, config_to_dict
from ..training import (
    CHECKPOINT_NAME,
    MODEL_NAME,
    checkpoint_path,
    export_model,
    evaluate_live,
    log_eval,
    rng_state,
    seed_everything,
    set_rng_state,
    start_run,
)
from .actor import Collector, actor_process, make_buffers
from .agent import DMCAgent, dmc_compatibility
from .config import DMCConfig
from .features import ActionFeatures
from .model import QNetwork, network_names

__all__ = ["CHECKPOINT_NAME", "MODEL_NAME", "Counters", "evaluate_live", "export_model", "train"]


@dataclass
class Counters:
    frames: int = 0  # environment steps played by the actors (every decision, forced or not)
    updates: int = 0
    rows: int = 0  # rows regressed on
    elapsed_s: float = 0.0  # training time over all resumes


def checkpoint_payload(cfg: DMCConfig, rules, nets, optimizers, counters: Counters, obs_size: int,
                       action_size: int) -> dict[str, Any]:
    names = network_names(cfg.networks)
    return {
        "compat": dmc_compatibility(rules),
        "config": config_to_dict(cfg),
        "arch": {"obs_size": obs_size, "action_size": action_size, "hidden": cfg.hidden, "head": cfg.head,
                 "networks": cfg.networks},
        "models": {name: net.state_dict() for name, net in zip(names, nets, strict=True)},
        "optimizers": {name: opt.state_dict() for name, opt in zip(names, optimizers, strict=True)},
        "counters": vars(counters).copy(),
        "rng": rng_state(),
    }


def train(cfg: DMCConfig, resume: str | None = None, log=sys.stderr) -> Path:
    """Train, checkpointing into the run directory; returns it."""
    rules = get_rules(cfg.preset)
    obs_size = Encoder(rules).size
    action_size = ActionFeatures(rules).size
    counters = Counters()
    ckpt = run_dir = None
    if resume is not None:
        ckpt_path = checkpoint_path(resume)
        ckpt = load_checkpoint(ckpt_path, expect=dmc_compatibility(rules))
        saved = config_from_dict(DMCConfig, ckpt["config"], source=str(ckpt_path))
        if (saved.hidden, saved.head) != (cfg.hidden, cfg.head):
            raise ValueError(f"cannot resume {ckpt_path}: network sizes differ from the config "
                             f"(hidden/head {saved.hidden}/{saved.head} vs {cfg.hidden}/{cfg.head})")
        if saved.networks != cfg.networks:
            raise ValueError(f"cannot resume {ckpt_path}: it has networks {saved.networks!r}, "
                             f"the config asks for {cfg.networks!r}")
        run_dir = ckpt_path.parent
        counters = Counters(**ckpt["counters"])
    run_dir, writer = start_run(cfg, run_dir)

    seed_everything(cfg.seed + counters.updates)
    torch.set_num_threads(1)
    names = network_names(cfg.networks)
    nets = [QNetwork(obs_size, action_size, cfg.hidden, cfg.head) for _ in names]
    optimizers = [torch.optim.Adam(net.parameters(), lr=cfg.learning_rate) for net in nets]
    if ckpt is not None:
        for name, net, opt in zip(names, nets, optimizers, strict=True):
            net.load_state_dict(ckpt["models"][name])
            opt.load_state_dict(ckpt["optimizers"][name])
        set_rng_state(ckpt["rng"])
        print(f"resumed {run_dir} at {counters.frames} frames, {counters.updates} updates", file=log)
    for net in nets:
        net.share_memory()

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
        collector = Collector(cfg, nets, buffers, free_queues, full_queue, frames, actor_seed, blocking=False)
    else:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        for i in range(cfg.actors):
            p = ctx.Process(target=actor_process, daemon=True,
                            args=(cfg, nets, buffers, free_queues, full_queue, frames, stop, actor_seed + i))
            p.start()
            procs.append(p)

    # --- the learner loop ---------------------------------------------------------------
    pending: list[list[int]] = [[] for _ in names]
    budget_s = cfg.total_minutes * 60 if cfg.total_minutes > 0 else float("inf")
    start = time.time() - counters.elapsed_s
    last_log = last_ckpt = last_eval = time.time()
    frames_at_log, log_t = counters.frames, time.time()
    recent_loss = {r: [] for r in names}
    recent_return = {r: [] for r in names}

    def out_of_budget() -> bool:
        over_frames = cfg.total_frames > 0 and frames.value >= cfg.total_frames
        return over_frames or time.time() - start >= budget_s

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
        optimizers[net].zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(nets[net].parameters(), cfg.max_grad_norm)
        optimizers[net].step()
        counters.updates += 1
        counters.rows += target.numel()
        recent_loss[names[net]].append(loss.item())
        recent_return[names[net]].append(target.mean().item())

    try:
        while not out_of_budget():
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

            now = time.time()
            counters.frames, counters.elapsed_s = frames.value, now - start
            if now - last_log >= cfg.log_seconds:
                fps = (counters.frames - frames_at_log) / (now - log_t)
                frames_at_log, log_t, last_log = counters.frames, now, now
                writer.add_scalar("charts/SPS", fps, counters.frames)
                writer.add_scalar("charts/updates", counters.updates, counters.frames)
                for r in names:
                    if recent_loss[r]:
                        writer.add_scalar(f"losses/{r}_loss", float(np.mean(recent_loss[r])), counters.frames)
                        writer.add_scalar(f"charts/mean_return_{r}", float(np.mean(recent_return[r])),
                                          counters.frames)
                losses = " ".join(f"{r}={np.mean(v):.3f}" for r, v in recent_loss.items() if v)
                for r in names:
                    recent_loss[r].clear()
                    recent_return[r].clear()
                remaining = max(budget_s - counters.elapsed_s, 0)
                print(f"[dmc] {counters.elapsed_s / 60:5.1f} min  frames {counters.frames:,}  {fps:,.0f} frames/s  "
                      f"updates {counters.updates}  loss {losses}  ~{remaining / 60:.1f} min left",
                      file=log, flush=True)
            if now - last_ckpt >= cfg.checkpoint_minutes * 60:
                last_ckpt = now
                save_checkpoint(run_dir / CHECKPOINT_NAME, checkpoint_payload(
                    cfg, rules, nets, optimizers, counters, obs_size, action_size))
            if cfg.eval_minutes > 0 and now - last_eval >= cfg.eval_minutes * 60:
                _log_eval(writer, nets, cfg, rules, counters.frames, cfg.eval_deals, log)
                last_eval = time.time()
    finally:
        stop.set()
        for p in procs:
            p.join(timeout=2)
            if p.is_alive():
                p.terminate()
    counters.frames, counters.elapsed_s = frames.value, time.time() - start
    save_checkpoint(run_dir / CHECKPOINT_NAME, checkpoint_payload(
        cfg, rules, nets, optimizers, counters, obs_size, action_size))
    export_model(run_dir / CHECKPOINT_NAME, run_dir / MODEL_NAME)
    print(f"[dmc] done: {counters.frames:,} frames, {counters.updates} updates in "
          f"{counters.elapsed_s / 60:.1f} min; checkpoint {run_dir / CHECKPOINT_NAME}", file=log, flush=True)
    writer.close()
    return run_dir


def _log_eval(writer, nets, cfg: DMCConfig, rules, step: int, deals: int, log) -> dict[str, Any]:
    return log_eval(writer, DMCAgent(rules, nets), cfg, rules, step, deals, log, tag="dmc")
