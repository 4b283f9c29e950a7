"""A search's belief from the others' play: worlds weighted by how likely the moves the other
seats made would have been, in that world, under the base policy.

The search's worlds are drawn from the deal's prior conditioned on the public record
(`baohuang_env.resample`): every world in which the moves seen so far were legal is as likely
as any other. But a seat plays what its hand suggests, and the guard plays for the emperor: in
a world that gives a seat a hand with which the base policy would never have passed there, or
makes the wrong seat the guard, the moves seen are unlikely. Bridge search (rejection by
pi(a|h) of every past action of the others) and Skat's policy-based inference weight worlds
this way; this module gives each world its log-likelihood under the base policy,

    log L(world) = sum over the other seats' decisions with more than one legal move of
                   log( (1 - FLOOR) * softmax(Q / tau)[a] + FLOOR / legal moves ),

Q the base network's values of the acting seat's legal moves in its own observation in that
world, a the move it made. `tau` (a search setting) says how sharply the base is expected to
prefer its best move (the shipped agents play their argmax, tau -> 0); `FLOOR`, a share of a
uniform player, keeps a world alive where a seat played a move the base would not (another
agent, an exploring one), so that no world's weight is zero for one surprise.

`PlayBelief.score` replays worlds and adds their decisions' log-likelihoods, one batch of
network calls for all of them; `PlayBelief.choose` picks worlds in proportion to their
likelihood, without replacement (Gumbel top-k), from a pool of candidates.
"""

from __future__ import annotations

import numpy as np

from baohuang_env.game import Game
from baohuang_env.infostate import InfoState, encoder_of
from baohuang_env.resample import advance
from baohuang_env.rules import Rules

#: The share of a uniform player mixed into the base's softmax: the least likelihood of a move.
FLOOR = 0.05


class PlayBelief:
    """Log-likelihoods of worlds under `base` (a DMC agent: `action_values_many`) at
    temperature `tau` (module docstring)."""

    def __init__(self, base, rules: Rules, tau: float) -> None:
        if not tau > 0:
            raise ValueError(f"the belief's temperature must be > 0, got {tau}")
        self.base, self.tau = base, tau
        self.encode = encoder_of(rules).encode

    def score(self, worlds: list[Game], info: InfoState) -> tuple[list[Game | None], np.ndarray]:
        """Each of `worlds` stepped on to `info` (`resample.advance` with the replay check), with
        the log-likelihood of the other seats' decisions it took on the way: (the worlds, None
        where `info` rules one out; their log-likelihoods, -inf for those). A fresh world is
        passed at its start (`Game.restarted`) to score its whole history."""
        observations, masks, moves, owner = [], [], [], []

        def visit(world: Game, seat: int, action: int) -> None:
            if seat == info.viewer:
                return
            mask = world.legal_mask()
            if np.count_nonzero(mask) < 2:
                return
            observations.append(self.encode(world, seat))
            masks.append(mask.copy())
            moves.append(action)
            owner.append(len(out))  # the world being advanced

        out: list[Game | None] = []
        for world in worlds:
            out.append(advance(world, info, True, visit))
        loglik = np.zeros(len(worlds))
        if observations:
            kept = np.array([out[i] is not None for i in owner])
            loglik += np.bincount(np.asarray(owner)[kept],
                                  self.move_logprobs(np.array(observations)[kept], np.array(masks)[kept],
                                                     np.asarray(moves)[kept]),
                                  minlength=len(worlds))
        loglik[[w is None for w in out]] = -np.inf
        return out, loglik

    def move_logprobs(self, observations: np.ndarray, masks: np.ndarray, moves: np.ndarray) -> np.ndarray:
        """log pi(move | observation) of n decisions under the tempered, floored base policy."""
        if not len(moves):
            return np.zeros(0)
        q, legal, counts = self.base.action_values_many(observations, masks)
        row = np.repeat(np.arange(len(counts)), counts)
        z = q.astype(np.float64) / self.tau
        top = np.full(len(counts), -np.inf)
        np.maximum.at(top, row, z)
        e = np.exp(z - top[row])
        total = np.bincount(row, e, minlength=len(counts))
        chosen = legal == moves[row]
        p_move = np.bincount(row, np.where(chosen, e, 0.0), minlength=len(counts)) / total
        return np.log((1 - FLOOR) * p_move + FLOOR / counts)

    @staticmethod
    def choose(loglik: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        """The indices of `n` of the candidates (fewer if fewer have a non-zero likelihood),
        drawn in proportion to exp(`loglik`) without replacement (Gumbel top-k)."""
        keys = loglik + rng.gumbel(size=len(loglik))
        order = np.argsort(-keys, kind="stable")
        return order[:min(n, int(np.isfinite(loglik).sum()))]


__all__ = ["FLOOR", "PlayBelief"]
