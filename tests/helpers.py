"""Small builders shared by the test modules: hands and plays from card text, random games,
snapshots of a folder, the scripts of experiments/ loaded as modules."""

from __future__ import annotations

import hashlib
import importlib.util
import random
from pathlib import Path

import numpy as np

from baohuang_env import Game, Play, action_table, get_rules

ROOT = Path(__file__).resolve().parents[1]
RULES = get_rules("jj")
TABLE = action_table(RULES)
KINDS = TABLE.kinds


def max_steps(rules) -> int:
    """Bound on one deal's steps: the role phase asks at most 10 + 4 * 5 decisions (two
    circles of abdications, then the solo, grab, guard, rebellion and kick rounds); in play
    every play removes at least one card and at most 4 passes follow a play."""
    return 30 + 5 * rules.deck_size


def folder_snapshot(folder: Path) -> dict[str, tuple]:
    """Everything in `folder` (itself included): each entry's name, size, modification time
    and, for files, a hash of the contents; two equal snapshots mean nothing was changed."""
    out = {}
    for path in [folder, *sorted(folder.rglob("*"))]:
        stat = path.stat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "folder"
        out[path.relative_to(folder).as_posix()] = (stat.st_size, stat.st_mtime_ns, digest)
    return out


def random_game(rules, seed: int, policy_seed: int, check=None, step_limit: int | None = None) -> Game:
    """Play one deal with uniformly random legal actions, calling `check(game)` before each
    step; asserts it ends within `step_limit` steps (default `max_steps(rules)`)."""
    limit = max_steps(rules) if step_limit is None else step_limit
    game = Game(rules, seed=seed)
    rng = random.Random(policy_seed)
    steps = 0
    while not game.is_over:
        if check is not None:
            check(game)
        game.step(rng.choice(game.legal_actions().tolist()))
        steps += 1
        assert steps <= limit
    return game


def hand(text: str) -> list[int]:
    """Card counts (12 kinds) from text such as "7 7 SJ", "7x2 9 Q BJ" or "10 T" (T = ten)."""
    counts = [0] * KINDS.num_kinds
    for tok in text.split():
        name, _, n = tok.partition("x")
        counts[KINDS.index("10" if name == "T" else name)] += int(n or 1)
    return counts


def play_id(text: str) -> int:
    """The action id of the play whose cards are written as for `hand`: "7 7 SJ" -> 77+SJ."""
    h = hand(text)
    ranks = [(i, c) for i, c in enumerate(h[: KINDS.num_ranks]) if c]
    assert len(ranks) <= 1, f"{text!r} has more than one rank"
    rank, n = (KINDS.names[ranks[0][0]], ranks[0][1]) if ranks else (None, 0)
    return TABLE.action_id(Play(rank, n, h[KINDS.sj], h[KINDS.bj]))


def hidden_variant(game: Game, seat: int, rng: np.random.Generator) -> tuple[list[list[int]], int]:
    """A deal `seat` cannot tell from `game`'s: the other seats' cards reshuffled among them
    (each keeps its card count, the emperor-card holder keeps a BJ), and, unless `seat` holds
    it, the guard card moved to a different other seat (fixed-guard-card rules)."""
    hands = np.array(game.hands)
    K = hands.shape[1]
    sj, bj = game.kinds.sj, game.kinds.bj
    others = [s for s in range(5) if s != seat]
    ecs, gcs = game.emperor_card_seat, game.guard_card_seat
    for _ in range(1000):
        pool = np.repeat(np.arange(K), hands[others].sum(axis=0))
        rng.shuffle(pool)
        new = hands.copy()
        start = 0
        for s in others:
            n = int(hands[s].sum())
            new[s] = np.bincount(pool[start:start + n], minlength=K)
            start += n
        if new[ecs, bj] < 1:
            continue
        if gcs == seat:
            return new.tolist(), gcs
        candidates = [s for s in others if s != gcs and new[s, sj] >= 1]
        if candidates:
            return new.tolist(), int(rng.choice(candidates))
    raise AssertionError("no variant found")


def gym_episode_with_opponents(opponents: str, seed: int = 3) -> dict:
    """Play one Gymnasium episode (first legal action) against `opponents`; the last info."""
    import gymnasium

    env = gymnasium.make("Baohuang-v0", opponents=opponents)
    _, info = env.reset(seed=seed)
    done = False
    while not done:
        _, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    return info


def ship_jj_agents_only(monkeypatch) -> None:
    """Cut the shipped agents (`agents.pretrained.SHIPPED`) down to jj's for one test: every
    other preset then stands for a preset no shipped agent plays (every preset ships one)."""
    from agents import pretrained

    monkeypatch.setattr(pretrained, "SHIPPED", {n: p for n, p in pretrained.SHIPPED.items() if p.preset == "jj"})


def load_experiment(name: str):
    """The script experiments/NAME.py as a module (the scripts are not installed)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "experiments" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
