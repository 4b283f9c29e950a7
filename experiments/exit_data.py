"""Expert-iteration data: the search's verdicts at its decisions, for `exit_finetune.py`.

The search agent (docs/search.md) plays one side of each deal against the heuristic, team
protocol, on training deals (seeds nobody evaluates on). At every decision it searches it
records the observation, the legal moves, its candidates (the base policy's move first), each
candidate's paired gain over the base move, and its choice. At one in
`--anchors` of the decisions it leaves to the base policy it records the observation and the
legal moves alone: states whose values the fine-tuning keeps where they were.

    python experiments/exit_data.py --deals 2000 --deal-seed 41000000 --out runs/exit/data_0.npz
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from agents.search import SearchAgent, SearchResult, SearchSettings
from baohuang_env.rules import get_rules
from baohuang_eval.evaluate import evaluate_against


class RecordingSearch(SearchAgent):
    """The search agent, writing down what it found (`searched`) and a sample of the
    decisions it did not search (`anchors`). The lists are shared by the per-game copies."""

    def __init__(self, *args, anchor_every: int = 10, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.searched: list[tuple] = []
        self.anchors: list[tuple] = []
        self.anchor_every = anchor_every
        self._unsearched = 0

    def search(self, info) -> SearchResult:
        result = super().search(info)
        if result.worlds:
            self.searched.append((info.observation.copy(), np.flatnonzero(info.mask).astype(np.int32),
                                  np.array(result.candidates, np.int32),
                                  np.array([e.gain for e in result.estimates], np.float32),
                                  result.candidates.index(result.choice)))
        return result

    def unsearched_move(self, observation: np.ndarray, mask: np.ndarray) -> int | None:
        move = super().unsearched_move(observation, mask)
        if move is not None:
            self._unsearched += 1
            if self._unsearched % self.anchor_every == 0 and mask.sum() > 1:
                self.anchors.append((observation.copy(), np.flatnonzero(mask).astype(np.int32)))
        return move


def ragged(arrays: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Concatenated arrays and their offsets (len + 1)."""
    offsets = np.zeros(len(arrays) + 1, np.int64)
    offsets[1:] = np.cumsum([len(a) for a in arrays])
    return (np.concatenate(arrays) if arrays else np.zeros(0, np.int32)), offsets


def save(path: Path, agent: RecordingSearch) -> None:
    """The records as one .npz (ragged lists as values + offsets), written then renamed."""
    s, a = agent.searched, agent.anchors
    legal, legal_at = ragged([r[1] for r in s])
    cand, cand_at = ragged([r[2] for r in s])
    anchor_legal, anchor_at = ragged([r[1] for r in a])
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(
        tmp, obs=np.stack([r[0] for r in s]), legal=legal, legal_at=legal_at, candidates=cand, candidates_at=cand_at,
        gains=np.concatenate([r[3] for r in s]), choice=np.array([r[4] for r in s], np.int32),
        anchor_obs=np.stack([r[0] for r in a]) if a else np.zeros((0, s[0][0].size), np.float32),
        anchor_legal=anchor_legal, anchor_at=anchor_at)
    tmp.replace(path)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", default="jj")
    p.add_argument("--settings", help="the search's settings, KEY=VALUE:... as after `search:` (docs/search.md; "
                   "default: its defaults over the shipped agent)")
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--deal-seed", type=int, default=41_000_000, help="first deal seed (training deals)")
    p.add_argument("--chunk", type=int, default=100, help="deals between saves")
    p.add_argument("--anchors", type=int, default=10, help="record one in this many unsearched decisions")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    rules = get_rules(args.preset)
    agent = RecordingSearch(rules, SearchSettings.parse(args.settings), seed=args.deal_seed, anchor_every=args.anchors)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for first in range(args.deal_seed, args.deal_seed + args.deals, args.chunk):
        seeds = range(first, min(first + args.chunk, args.deal_seed + args.deals))
        evaluate_against(agent, "heuristic", rules, seeds, name="search", protocol="team")
        save(args.out, agent)
        print(f"{first + len(seeds) - args.deal_seed} deals, {len(agent.searched)} searched decisions, "
              f"{len(agent.anchors)} anchors, {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
