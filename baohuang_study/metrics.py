"""Scores of guard beliefs against the true guard: top-1 accuracy, log-loss, Brier score,
expected calibration error and the reliability diagram's bins, with the base rates of a
uniform belief over the same candidates (1/4 for an emperor, 1/3 for a rebel).

A belief is a (5,) probability vector over the observer's relative seats, zero outside its
candidates (`agents.guard_belief.guard_candidates`); the label is the true guard's relative
seat. Everything is plain numpy (the reliability diagram as in scikit-learn's
`calibration_curve`, uniform bins over the top-1 confidence).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: Bins of the expected calibration error and of the reliability diagram.
ECE_BINS = 10
#: Probabilities are clipped to this before the log-loss (a confident wrong belief scores
#: ln(1/EPS), not infinity).
EPS = 1e-6


def uniform_beliefs(candidates: np.ndarray) -> np.ndarray:
    """(N, 5) uniform beliefs over each row's candidates: the base rate."""
    c = candidates.astype(np.float64)
    return c / np.maximum(c.sum(axis=1, keepdims=True), 1.0)


def _bins(conf: np.ndarray, correct: np.ndarray, bins: int) -> list[dict[str, Any]]:
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.digitize(conf, edges[1:-1], right=True), 0, bins - 1)
    out = []
    for b in range(bins):
        sel = which == b
        n = int(sel.sum())
        out.append({"low": float(edges[b]), "high": float(edges[b + 1]), "count": n,
                    "confidence": float(conf[sel].mean()) if n else None,
                    "accuracy": float(correct[sel].mean()) if n else None})
    return out


def top1_credit(probs: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """(N,) top-1 credit per row with ties broken at random, in expectation: 1 / (tied top
    seats) when the guard is among them, else 0."""
    conf = probs.max(axis=1)
    ties = np.isclose(probs, conf[:, None], rtol=0.0, atol=1e-12)
    return ties[np.arange(len(labels)), labels] / ties.sum(axis=1)


def chance_test(probs: np.ndarray, labels: np.ndarray, candidates: np.ndarray, deals: np.ndarray,
                z: float = 2.0) -> dict[str, Any]:
    """Is top-1 accuracy at chance? The excess over the base rate (1 / candidates per row) with
    its standard error over deals (rows of one deal are not independent: the SE is that of
    the mean of per-deal excesses); at chance when |excess| <= z SE."""
    excess = top1_credit(probs, labels) - 1.0 / np.maximum(candidates.sum(axis=1), 1)
    per_deal = np.array([excess[deals == d].sum() for d in np.unique(deals)])
    n_deals = len(per_deal)
    rows_per_deal = len(excess) / max(n_deals, 1)
    mean = float(per_deal.mean() / rows_per_deal)
    se = float(per_deal.std(ddof=1) / math.sqrt(n_deals) / rows_per_deal) if n_deals > 1 else float("nan")
    return {"excess": mean, "se": se, "deals": n_deals, "at_chance": bool(abs(mean) <= z * se)}


def belief_scores(probs: np.ndarray, labels: np.ndarray, candidates: np.ndarray,
                  bins: int = ECE_BINS) -> dict[str, Any]:
    """Scores of beliefs `probs` (N, 5) against `labels` (N,), with the uniform base rate over
    `candidates` (N, 5 bool). Brier is the multi-class
    score sum_k (p_k - [k = label])^2; a top-1 tie between k seats counts 1/k when the
    guard is among them (a random tie-break, in expectation); ECE weighs |accuracy - confidence| of the top-1
    prediction over `bins` equal-width bins by their counts."""
    probs = np.asarray(probs, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    n = len(labels)
    if n == 0:
        return {"n": 0}
    if probs.shape != (n, 5) or candidates.shape != (n, 5):
        raise ValueError(f"beliefs must be (N, 5) like the candidates, got {probs.shape} and {candidates.shape}")
    rows = np.arange(n)
    onehot = np.zeros_like(probs)
    onehot[rows, labels] = 1.0
    conf = probs.max(axis=1)
    correct = top1_credit(probs, labels)
    table = _bins(conf, correct, bins)
    ece = sum(b["count"] * abs(b["accuracy"] - b["confidence"]) for b in table if b["count"]) / n
    base = uniform_beliefs(candidates)
    k = candidates.sum(axis=1).astype(np.float64)
    acc = float(correct.mean())
    return {
        "n": n,
        "top1": acc, "top1_se": math.sqrt(max(acc * (1 - acc), 1e-12) / n),
        "log_loss": float(-np.log(np.clip(probs[rows, labels], EPS, 1.0)).mean()),
        "brier": float(((probs - onehot) ** 2).sum(axis=1).mean()),
        "ece": float(ece),
        "base_top1": float((1.0 / np.maximum(k, 1)).mean()),
        "base_log_loss": float(-np.log(np.clip(base[rows, labels], EPS, 1.0)).mean()),
        "base_brier": float(((base - onehot) ** 2).sum(axis=1).mean()),
        "reliability": table,
    }


__all__ = ["ECE_BINS", "belief_scores", "chance_test", "top1_credit", "uniform_beliefs"]
