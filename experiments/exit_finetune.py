"""Expert iteration, one round: teach a DMC agent the moves its search found better.

Reads the records of `exit_data.py`. Where the search left the base policy's move b for a
candidate c (its paired test passed), a hinge loss asks Q(c) >= Q(b) + `--margin`; every other
legal move of those decisions, and of a sample of the decisions it did not search (anchors),
keeps the value the network gave it (mean squared error to the starting Q, weight
`--anchor-weight`), so the network changes where the search disagreed with it and as little as
it can elsewhere. Writes a DMC checkpoint with the same layout as the start.

    python experiments/exit_finetune.py runs/exit/data_*.npz --base agents/pretrained/dmc_kickstart_jj.pt \\
        --out runs/exit/model.pt
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

from agents.dmc.agent import DMCAgent
from agents.dmc.config import checkpoint_networks
from agents.dmc.model import network_names
from agents.files.checkpoint import load_checkpoint, playing_copy, save_checkpoint
from baohuang_env.rules import get_rules


class Rows:
    """Flattened training rows: the observation (an index into `obs`, each with the network that
    scores it), action row and starting Q of each."""

    def __init__(self, agent: DMCAgent, cap: int, rng: np.random.Generator) -> None:
        self.agent, self.cap, self.rng = agent, cap, rng
        self.obs: list[np.ndarray] = []
        self.net_of_obs: list[int] = []
        self.obs_of: list[int] = []
        self.rows: list[np.ndarray] = []
        self.q0: list[float] = []
        self.anchor: list[bool] = []

    def add(self, obs: np.ndarray, legal: np.ndarray, keep: list[int],
            free: frozenset[int] = frozenset()) -> dict[int, int]:
        """Rows for `keep` (action ids always included) and up to `cap` legal moves in all; the
        moves in `free` are not anchored. Returns the row index of each id in `keep`."""
        others = np.setdiff1d(legal, keep)
        extra = self.rng.choice(others, min(len(others), max(0, self.cap - len(keep))), replace=False)
        ids = np.array([*keep, *extra], dtype=np.int64)
        mask = np.zeros(len(self.agent.features), np.int8)
        mask[legal] = 1
        rows = self.agent.action_rows(obs, mask, ids)
        q = self.agent.scores(obs, rows)
        start = len(self.rows)
        self.obs.append(obs)
        self.net_of_obs.append(self.agent.network_of(obs))
        for i, a in enumerate(ids):
            self.obs_of.append(len(self.obs) - 1)
            self.rows.append(rows[i])
            self.q0.append(float(q[i]))
            self.anchor.append(int(a) not in free)
        return {int(a): start + i for i, a in enumerate(ids[:len(keep)])}

    def tensors(self) -> tuple[torch.Tensor, ...]:
        """(observations, observation of each row, action rows, network of each row, starting Q, anchored)."""
        obs_of = torch.tensor(self.obs_of)
        return (torch.from_numpy(np.stack(self.obs)).float(), obs_of, torch.from_numpy(np.stack(self.rows)).float(),
                torch.tensor(self.net_of_obs)[obs_of], torch.tensor(self.q0), torch.tensor(self.anchor))


def build(agent: DMCAgent, files: list[Path], cap: int, max_anchors: int, seed: int) -> tuple[Rows, np.ndarray]:
    """The rows and the (b, c) row pairs of the search's deviations."""
    rng = np.random.default_rng(seed)
    out, pairs = Rows(agent, cap, rng), []
    for f in files:
        with np.load(f) as z:
            d = {k: z[k] for k in z.files}
        la, ca = d["legal_at"], d["candidates_at"]
        for i in range(len(d["obs"])):
            legal, cands = d["legal"][la[i]:la[i + 1]], d["candidates"][ca[i]:ca[i + 1]]
            choice = int(d["choice"][i])
            if choice:
                b, c = int(cands[0]), int(cands[choice])
                at = out.add(d["obs"][i], legal, [b, c], free=frozenset({c}))
                pairs.append((at[b], at[c]))
            else:
                out.add(d["obs"][i], legal, [int(cands[0])])
        aa = d["anchor_at"]
        for i in rng.permutation(len(d["anchor_obs"]))[:max_anchors // len(files)]:
            out.add(d["anchor_obs"][i], d["anchor_legal"][aa[i]:aa[i + 1]], [])
    return out, np.array(pairs, dtype=np.int64).reshape(-1, 2)


def q_of(nets: list[torch.nn.Module], obs: torch.Tensor, rows: torch.Tensor, net: torch.Tensor) -> torch.Tensor:
    """Q of each (observation, action row) pair, each by its network."""
    q = torch.empty(len(obs))
    for k, model in enumerate(nets):
        sel = net == k
        if sel.any():
            q[sel] = model(obs[sel], rows[sel])
    return q


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data", nargs="+", type=Path)
    p.add_argument("--preset", default="jj")
    p.add_argument("--base", default="agents/pretrained/dmc_kickstart_jj.pt")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--lr", type=float, default=2e-5)
    p.add_argument("--epochs", type=float, default=20.0, help="passes over the deviations")
    p.add_argument("--margin", type=float, default=0.05)
    p.add_argument("--anchor-weight", type=float, default=10.0)
    p.add_argument("--pairs-per-step", type=int, default=64)
    p.add_argument("--anchors-per-step", type=int, default=1024)
    p.add_argument("--cap", type=int, default=16, help="legal moves kept per decision")
    p.add_argument("--max-anchors", type=int, default=40000)
    p.add_argument("--holdout", type=float, default=0.2, help="share of the deviations kept out of training, "
                   "to measure whether the preference carries to decisions the network did not train on")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    rules = get_rules(args.preset)
    agent = DMCAgent.from_checkpoint(args.base, rules)
    rows, pairs = build(agent, args.data, args.cap, args.max_anchors, args.seed)
    states, obs_of, feats, net, q0, anchored = rows.tensors()
    anchor_rows = torch.nonzero(anchored).squeeze(1)
    order = np.random.default_rng(args.seed).permutation(len(pairs))
    cut = int(len(pairs) * args.holdout)
    held, pairs = pairs[order[:cut]], pairs[order[cut:]]
    nets = agent.nets
    for m in nets:
        m.train()
    opt = torch.optim.Adam([p for m in nets for p in m.parameters()], lr=args.lr)
    steps = int(args.epochs * len(pairs) / args.pairs_per_step) + 1
    print(f"{len(pairs)} deviations to train on, {len(held)} held out, {len(anchor_rows)} anchored rows, "
          f"{steps} steps", file=sys.stderr)

    def preferred(pp: np.ndarray) -> float:
        """Share of the deviations `pp` where the network now ranks the search's move above its own."""
        if not len(pp):
            return float("nan")
        flat = torch.from_numpy(pp.reshape(-1))
        with torch.no_grad():
            q = q_of(nets, states[obs_of[flat]], feats[flat], net[flat])
        return (q[1::2] > q[0::2]).float().mean().item()

    g = torch.Generator().manual_seed(args.seed)
    for step in range(steps):
        pi = torch.from_numpy(pairs[torch.randint(len(pairs), (args.pairs_per_step,), generator=g).numpy()])
        ai = anchor_rows[torch.randint(len(anchor_rows), (args.anchors_per_step,), generator=g)]
        idx = torch.cat([pi[:, 0], pi[:, 1], ai])
        q = q_of(nets, states[obs_of[idx]], feats[idx], net[idx])
        n = len(pi)
        qb, qc, qa = q[:n], q[n:2 * n], q[2 * n:]
        hinge = torch.relu(qb - qc + args.margin).mean()
        anchor = ((qa - q0[ai]) ** 2).mean()
        loss = hinge + args.anchor_weight * anchor
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0 or step == steps - 1:
            print(f"step {step}: hinge {hinge.item():.4f} anchor {anchor.item():.6f} search's move preferred: "
                  f"trained on {preferred(pairs):.1%}, held out {preferred(held):.1%}", file=sys.stderr, flush=True)
    ckpt = playing_copy(load_checkpoint(args.base))
    for name, m in zip(network_names(checkpoint_networks(ckpt["arch"])), nets, strict=True):
        ckpt["models"][name] = {k: v.detach().clone() for k, v in m.state_dict().items()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_checkpoint(args.out, ckpt)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
