"""The fitter of the role-phase models (`agents.bots.role_policy`): counterfactual play-outs of
the heuristic bot, then least squares per (prompt kind, answer class).

For each deal the heuristic plays every seat with the auto-play role defaults (`roles="none"`).
At each role prompt with more than one answer class (`agents.bots.role_prompts`), every class is
tried on a copy of the game (`Game.copy`), which the bot then plays out. Each prompt so gives
one *sample*: the seat's features and its final score (`GameResult.scores`) after each answer,
on the same cards and the same play, so the answers' differences are paired. So that the
prompts that follow a declaration (a kick after an open guard, a second rebel after a first)
are met too, the deal itself goes on, one prompt in `EXPLORE`, with a class drawn at random
(seeded by the deal) instead of the default.

Per prompt kind and class, a ridge-regularized least-squares fit of the score on the features
is that answer's expected score. Whether the model beats the default is measured by 5-fold
cross-validation over deals: on each held-out sample the model's answer scores
y[chosen] - y[default]; the model is used (`"use": true`) only when this mean gain's 95%
interval lies above 0 and the kind has at least `MIN_SAMPLES` samples. A class seen fewer than
`MIN_CLASS_SAMPLES` times is left out of the model (it is never chosen).
"""

from __future__ import annotations

import datetime
import subprocess
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from baohuang_env import Game
from baohuang_env.encoding import Encoder
from baohuang_env.rules import Rules

from .heuristic import HeuristicAgent
from .role_policy import MODEL_FORMAT, RoleModel
from .role_prompts import PromptReader, feature_names
from ..view import SeatView

#: Ridge penalty on every coefficient but the constant (features are card counts of order 1..8).
RIDGE = 1.0
#: Cross-validation folds (by deal).
FOLDS = 5
#: Fewest samples of a kind for a model to be used, and of a class for it to be fitted.
MIN_SAMPLES = 30
MIN_CLASS_SAMPLES = 20
#: Share of the deal's own prompts answered with a random class instead of the default.
EXPLORE = 0.25
#: Normal quantile of the two-sided 95% interval.
Z95 = 1.96


@dataclass
class Sample:
    """One role prompt of one deal: its kind, features, default class and the deciding seat's
    final score after each answer class."""

    deal: int
    kind: str
    x: np.ndarray
    default: str
    scores: dict[str, float] = field(default_factory=dict)


def play_out(game: Game, bot: HeuristicAgent, enc: Encoder) -> None:
    """Play `game` to its end with `bot` at every seat."""
    while not game.is_over:
        game.step(bot.act(enc.encode(game, game.current_player), game.legal_mask()))


def collect(rules: Rules, seeds: Iterable[int],
            progress: Callable[[int, int], None] | None = None) -> list[Sample]:
    """The samples of the deals `seeds` (see the module docstring); `progress(deals done,
    samples so far)` after each deal."""
    bot, enc, reader = HeuristicAgent(rules, roles="none"), Encoder(rules), PromptReader(rules)
    samples: list[Sample] = []
    for done, seed in enumerate(seeds, 1):
        game = Game(rules, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            seat, mask = game.current_player, game.legal_mask()
            obs = enc.encode(game, seat)
            action = bot.act(obs, mask)
            if game.phase == "role":
                v = SeatView(obs, rules)
                prompt = reader.prompt(v, obs, mask)
                if prompt is not None:
                    x = reader.features(v, obs, feature_names(rules, prompt.kind))
                    sample = Sample(seed, prompt.kind, x, prompt.default)
                    for name, answer in prompt.answers.items():
                        other = game.copy()
                        other.step(answer)
                        play_out(other, bot, enc)
                        sample.scores[name] = float(other.result.scores[seat])
                    samples.append(sample)
                    if rng.random() < EXPLORE:
                        action = list(prompt.answers.values())[rng.integers(len(prompt.answers))]
            game.step(action)
        if progress is not None:
            progress(done, len(samples))
    return samples


def _lstsq(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Ridge least squares (`RIDGE` on every coefficient but the first, the constant)."""
    penalty = np.full(X.shape[1], RIDGE)
    penalty[0] = 0.0
    return np.linalg.solve(X.T @ X + np.diag(penalty), X.T @ y)


def fit_model(kind: str, features: tuple[str, ...], samples: list[Sample]) -> tuple[RoleModel, dict[str, int]]:
    """The model of one kind fitted on `samples`, and the samples behind each class."""
    by_class: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        for name in s.scores:
            by_class[name].append(s)
    answers, counts = {}, {}
    for name, rows in sorted(by_class.items()):
        counts[name] = len(rows)
        if len(rows) >= MIN_CLASS_SAMPLES:
            answers[name] = _lstsq(np.array([s.x for s in rows]), np.array([s.scores[name] for s in rows]))
    return RoleModel(kind, features, answers), counts


def gains(model: RoleModel, samples: list[Sample]) -> np.ndarray:
    """Per sample: the score of the model's answer minus the default's."""
    return np.array([s.scores[model.choose(s.x, s.scores, s.default)] - s.scores[s.default] for s in samples])


def cross_validated_gain(kind: str, features: tuple[str, ...], samples: list[Sample]) -> np.ndarray:
    """`gains` of each sample under the model fitted on the other folds (folds by deal)."""
    folds = np.array([s.deal % FOLDS for s in samples])
    out = np.zeros(len(samples))
    for k in range(FOLDS):
        test, train = np.flatnonzero(folds == k), np.flatnonzero(folds != k)
        if test.size and train.size:
            model, _ = fit_model(kind, features, [samples[i] for i in train])
            out[test] = gains(model, [samples[i] for i in test])
    return out


def fit_all(rules: Rules, samples: list[Sample]) -> dict[str, dict[str, Any]]:
    """Every kind's model entry for the data file (see `agents.bots.role_policy`)."""
    by_kind: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        by_kind[s.kind].append(s)
    entries = {}
    for kind, rows in sorted(by_kind.items()):
        features = feature_names(rules, kind)
        model, counts = fit_model(kind, features, rows)
        cv = cross_validated_gain(kind, features, rows)
        mean = float(cv.mean())
        se = float(cv.std(ddof=1) / np.sqrt(len(cv))) if len(cv) > 1 else float("inf")
        if len(rows) < MIN_SAMPLES:
            use, reason = False, f"too few samples ({len(rows)} < {MIN_SAMPLES})"
        elif len(model.answers) < 2:
            use, reason = False, "fewer than two answer classes with enough samples"
        elif mean - Z95 * se <= 0:
            use, reason = False, "not significantly better than the default in cross-validation"
        else:
            use, reason = True, "cross-validated gain over the default significantly above 0"
        defaults = sorted({s.default for s in rows}, key=[s.default for s in rows].index)
        entries[kind] = {
            "features": list(features), "default": "|".join(defaults), "use": use, "reason": reason,
            "answers": {a: [round(float(c), 4) for c in coef] for a, coef in model.answers.items()},
            "samples": len(rows), "class_samples": counts,
            "cv_gain": round(mean, 4),
            "cv_gain_ci95": [round(mean - Z95 * se, 4), round(mean + Z95 * se, 4)] if np.isfinite(se) else None,
            "in_sample_gain": round(float(gains(model, rows).mean()), 4),
            "mean_default_score": round(float(np.mean([s.scores[s.default] for s in rows])), 4),
        }
    return entries


def code_revision() -> str | None:
    """The git commit of the checkout this code runs from, when it is one."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10,
                             cwd=Path(__file__).resolve().parent)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def model_data(rules: Rules, deal_seed: int, deals: int, samples: list[Sample], command: str) -> dict[str, Any]:
    """The data file's content of one fit: rules, provenance and models."""
    return {
        "format": MODEL_FORMAT, "version": 1, "preset": rules.preset,
        "rules": {k: v for k, v in rules.to_dict().items() if k != "display_direction"},
        "provenance": {
            "preset": rules.preset, "deal_seeds": [deal_seed, deal_seed + deals - 1], "deals": deals,
            "samples": len(samples), "command": command,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "code_revision": code_revision(),
            "rollout_policy": "heuristic at every seat with the auto-play role defaults (roles=none)",
            "method": f"ridge least squares (penalty {RIDGE}), {FOLDS}-fold cross-validation by deal",
        },
        "models": fit_all(rules, samples),
    }


__all__ = ["Sample", "collect", "cross_validated_gain", "fit_all", "fit_model", "model_data", "play_out"]
