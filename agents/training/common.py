"""Plumbing shared by the trainers (`agents.dmc.trainer`, `agents.ppo.trainer`): seeding, RNG
state in checkpoints, live evaluation during training, weights-only exports and the evaluation
printed at the end. The run itself (directory, resume, clock, final save) is `agents.training.run`.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch

from baohuang_env.rules import Rules

from ..files.checkpoint import checkpoint_kind, load_checkpoint, playing_copy, save_checkpoint
from .opponents import opponent_tag


def seed_everything(seed: int) -> None:
    """Seed Python's, numpy's and torch's global generators; deterministic cuDNN."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    torch.backends.cudnn.deterministic = True


def rng_state() -> dict[str, Any]:
    """The global generators' states, as plain values a weights-only checkpoint can hold."""
    return {"python": random.getstate(), "numpy": np.random.get_state()[1].tolist(),
            "numpy_pos": int(np.random.get_state()[2]), "torch": torch.get_rng_state()}


def set_rng_state(state: dict[str, Any]) -> None:
    random.setstate((state["python"][0], tuple(state["python"][1]), state["python"][2]))
    np.random.set_state(("MT19937", np.array(state["numpy"], dtype=np.uint32), state["numpy_pos"]))
    torch.set_rng_state(state["torch"])


def export_model(checkpoint: str | os.PathLike, out: str | os.PathLike, force: bool = False) -> None:
    """Write a playing-only copy of a checkpoint: the networks, their shapes, the rules
    fingerprint, config and counters, without optimizer or RNG state.

    An existing `out` is replaced only with `force`, and a training checkpoint never is (not
    even with `force`): the copy would throw away what a resume needs. The copy is written to
    a temporary file and renamed over `out`, so `out` is never left half written."""
    ckpt = load_checkpoint(checkpoint)
    out = Path(out)
    if out.is_dir():
        raise ValueError(f"{out} is a directory; give the file to write, e.g. {out / 'model.pt'}")
    if out.exists():
        try:
            kind = checkpoint_kind(out)
        except ValueError:
            kind = None  # some other file: replaced only with force
        if kind == "training":
            raise ValueError(f"{out} is a training checkpoint (it holds the optimizer and RNG state a resume "
                             f"needs); a playing copy never replaces one, even with --force. Write the playing "
                             f"copy to a new file instead, e.g. {out.with_name(out.stem + '-playing.pt')}")
        if not force:
            raise ValueError(f"{out} already exists ({'a playing copy' if kind else 'not a checkpoint'}); "
                             f"pass --force to replace it, or choose another file")
    save_checkpoint(out, playing_copy(ckpt))


def evaluate_live(agent: Any, opponents: list[str], rules: Rules, deals: int, first_seed: int,
                  protocol: str = "seat") -> dict[str, Any]:
    """Duplicate evaluation of a live agent against each opponent (the evaluation harness)."""
    from baohuang_eval import evaluate_against

    seeds = list(range(first_seed, first_seed + deals))
    return {opp: evaluate_against(agent, opp, rules, seeds, protocol=protocol) for opp in opponents}


def log_eval(writer, agent: Any, cfg: Any, rules: Rules, step: int, deals: int, log=sys.stderr,
             tag: str = "train") -> dict[str, Any]:
    """Evaluate `agent` on the config's held-out deals against `cfg.eval_opponents` with
    `cfg.eval_protocol`; write the duplicate win rate (wins + ½ draws over all the agent's
    games) as `eval/winrate_vs_<tag>` and the mean paired difference as
    `eval/mean_score_diff_vs_<tag>` at `step` (the tag: `opponents.opponent_tag`)."""
    results = evaluate_live(agent, cfg.eval_opponents, rules, deals, cfg.eval_deal_seed, cfg.eval_protocol)
    for opp, res in results.items():
        writer.add_scalar(f"eval/winrate_vs_{opponent_tag(opp)}", res.duplicate_win_rate, step)
        writer.add_scalar(f"eval/mean_score_diff_vs_{opponent_tag(opp)}", res.mean_diff, step)
    print(f"[{tag}] eval on {deals} deals: "
          + "  ".join(f"vs {o}: duplicate win rate {r.duplicate_win_rate:.2f}" for o, r in results.items()),
          file=log, flush=True)
    return results


def final_evaluation(spec: str, cfg: Any, rules: Rules, run_dir: Path, workers: int = 2) -> None:
    """The evaluation `baohuang train` prints at the end: the trained agent `spec` against
    each of `cfg.eval_opponents` on `cfg.final_eval_deals` held-out deals, with both protocols.

    team: the agent plays a whole side against the bot's side (the headline win rate);
    seat: the agent in one seat among four copies of the bot, every seat of every deal.
    Each protocol's report goes to `run_dir/eval-<protocol>/` (report.json records the file
    and sha256 the agents resolved to) and its Markdown to stdout; then a short summary: the
    headline figure against each bot and where the reports are. The figures are also logged
    to the run's TensorBoard events at the checkpoint's frame count
    (`final_eval/team_win_rate/<bot>`, `final_eval/seat_mean_score_diff/<bot>`). Ctrl-C writes
    the interrupted protocol's partial report before it stops the command.
    """
    from torch.utils.tensorboard import SummaryWriter

    from baohuang_eval import EvaluationInterrupted, evaluate_agents, summary_lines, to_markdown, write_report

    from ..files.provenance import resolve_spec

    seeds = list(range(cfg.eval_deal_seed, cfg.eval_deal_seed + cfg.final_eval_deals))
    reports, paths = {}, []
    for protocol in ("team", "seat"):
        print(f"evaluating {spec} ({protocol} protocol) on {len(seeds)} held-out duplicate deals against "
              f"{', '.join(cfg.eval_opponents)} ...", file=sys.stderr, flush=True)
        try:
            reports[protocol] = evaluate_agents([spec, *cfg.eval_opponents], rules, seeds, pairs="first",
                                                workers=workers, protocol=protocol, resolve=resolve_spec,
                                                log=sys.stderr)
        except EvaluationInterrupted as stop:  # Ctrl-C: keep what was played, marked partial
            print(f"partial report: {write_report(stop.report, run_dir / f'eval-{protocol}')['md']}",
                  file=sys.stderr)
            raise
        paths.append(write_report(reports[protocol], run_dir / f"eval-{protocol}")["md"])
        print(to_markdown(reports[protocol]))
    frames = load_checkpoint(reports["team"].resolved[spec]["file"]).get("counters", {}).get("frames", 0)
    writer = SummaryWriter(str(run_dir))
    for pair in reports["team"].pairs:
        writer.add_scalar(f"final_eval/team_win_rate/{opponent_tag(pair.b)}", pair.duplicate_win_rate, frames)
    for pair in reports["seat"].pairs:
        writer.add_scalar(f"final_eval/seat_mean_score_diff/{opponent_tag(pair.b)}", pair.mean_diff, frames)
    writer.close()
    print(f"Final evaluation of {spec} ({frames:,} frames) on {len(seeds)} held-out deals "
          f"(seeds {seeds[0]}..{seeds[-1]}):")
    for line in summary_lines(reports["team"]) + summary_lines(reports["seat"]):
        print(f"  {line}")
    print(f"Reports: {', '.join(map(str, paths))}; TensorBoard: final_eval/ in {run_dir}")
