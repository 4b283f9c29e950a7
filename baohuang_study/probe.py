"""The belief probe: multinomial logistic regression from features of a decision (the raw
observation, or a learned agent's hidden activations) to the guard's relative seat, its
softmax restricted to the observer's candidates. Trained on some deals, scored on others
(`split_by_deal`), so no deal's decisions are on both sides.

Plain numpy: features standardized on the training rows, full-batch Adam on the mean
cross-entropy plus an L2 penalty, a fixed number of steps (deterministic).
"""

from __future__ import annotations

import numpy as np

#: Share of deals whose decisions train a probe; the rest test it.
TRAIN_SHARE = 0.5


def split_by_deal(deals: np.ndarray, share: float = TRAIN_SHARE) -> np.ndarray:
    """Bool (N,): True for rows of training deals (the first `share` of the distinct deals in
    sorted order), False for test deals."""
    distinct = np.unique(deals)
    cut = distinct[: max(1, round(len(distinct) * share))]
    return np.isin(deals, cut)


class LogisticProbe:
    """Multinomial logistic regression over 5 relative seats with a candidate mask."""

    def __init__(self, l2: float = 1e-3, steps: int = 300, lr: float = 0.05) -> None:
        self.l2, self.steps, self.lr = l2, steps, lr
        self.mean = self.scale = self.w = self.b = None

    def _logits(self, x: np.ndarray) -> np.ndarray:
        return ((x - self.mean) / self.scale) @ self.w + self.b

    @staticmethod
    def _softmax(z: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        z = np.where(candidates, z, -np.inf)
        z = z - z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=1, keepdims=True)

    def fit(self, x: np.ndarray, labels: np.ndarray, candidates: np.ndarray) -> LogisticProbe:
        """Fit on rows whose label is one of their candidates."""
        x = np.asarray(x, dtype=np.float32)
        if len(x) == 0:
            raise ValueError("a probe needs training decisions; give more deals")
        self.mean = x.mean(axis=0)
        self.scale = x.std(axis=0) + 1e-6
        xs = (x - self.mean) / self.scale
        n, d = xs.shape
        self.w, self.b = np.zeros((d, 5), dtype=np.float32), np.zeros(5, dtype=np.float32)
        onehot = np.zeros((n, 5), dtype=np.float32)
        onehot[np.arange(n), labels] = 1.0
        m = [np.zeros_like(self.w), np.zeros_like(self.b)]
        v = [np.zeros_like(self.w), np.zeros_like(self.b)]
        for t in range(1, self.steps + 1):
            p = self._softmax(xs @ self.w + self.b, candidates)
            g = (p - onehot) / n
            grads = [xs.T @ g + self.l2 * self.w, g.sum(axis=0)]
            for k, (param, grad) in enumerate(zip((self.w, self.b), grads, strict=True)):
                m[k] = 0.9 * m[k] + 0.1 * grad
                v[k] = 0.999 * v[k] + 0.001 * grad * grad
                param -= self.lr * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)
        return self

    def predict(self, x: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """(N, 5) beliefs over each row's candidates."""
        if self.w is None:
            raise ValueError("fit the probe before predicting")
        return self._softmax(self._logits(np.asarray(x, dtype=np.float32)), candidates).astype(np.float64)


#: L2 penalties tried; the one with the best log-loss on held-out training deals is used.
L2_GRID = (10.0, 1.0, 1e-1, 1e-2, 1e-3)


def _log_loss(p: np.ndarray, labels: np.ndarray) -> float:
    return float(-np.log(np.clip(p[np.arange(len(labels)), labels], 1e-6, 1.0)).mean())


def probe_beliefs(x: np.ndarray, labels: np.ndarray, candidates: np.ndarray, train: np.ndarray,
                  deals: np.ndarray | None = None) -> np.ndarray:
    """Fit a probe on the `train` rows; its beliefs on every row (score only the others).
    With `deals`, the L2 penalty is chosen on a fifth of the training deals held out."""
    l2 = L2_GRID[-1]
    if deals is not None and len(np.unique(deals[train])) >= 5:
        train_deals = np.unique(deals[train])
        fit = train & np.isin(deals, train_deals[: int(len(train_deals) * 0.8)])
        val = train & ~fit
        if fit.any() and val.any():
            losses = [_log_loss(LogisticProbe(l2=c).fit(x[fit], labels[fit], candidates[fit])
                                .predict(x[val], candidates[val]), labels[val]) for c in L2_GRID]
            l2 = L2_GRID[int(np.argmin(losses))]
    probe = LogisticProbe(l2=l2).fit(x[train], labels[train], candidates[train])
    return probe.predict(x, candidates)


__all__ = ["TRAIN_SHARE", "LogisticProbe", "probe_beliefs", "split_by_deal"]
