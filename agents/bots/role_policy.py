"""The heuristic bot's role-phase decisions: fitted models looked up by (preset, prompt kind).

Each preset has one data file, `agents/role_models/<preset>.json` (package data, read with
importlib.resources), written by the fitter (`agents.bots.role_fit`, `baohuang fit`). A model
of one prompt kind is, per answer class, a linear estimate of the deciding seat's final score
after that answer (least squares on counterfactual play-outs), in the features the model
names (`agents.bots.role_prompts`). The bot takes the answer with the best estimate; a model the
fit did not find significantly better than the auto-play default (`"use": false`), a prompt
kind without a model, and rules that differ from the ones fitted on all get the default
answer (`baohuang_env.autoplay.RoleDefaults`).

docs/role_models.md has the method, the models and their held-out checks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from baohuang_env.autoplay import RoleDefaults
from baohuang_env.rules import Rules

from .role_prompts import PromptReader
from ..view import SeatView

MODEL_FORMAT = "baohuang-role-models"
#: Rule fields that do not change what a role answer is worth (display only).
_DISPLAY_FIELDS = ("display_direction",)


@dataclass(frozen=True)
class RoleModel:
    """One prompt kind's decision model: its features and, per answer class, the coefficients
    of the expected score of that answer."""

    kind: str
    features: tuple[str, ...]
    answers: dict[str, np.ndarray]

    def choose(self, x: np.ndarray, legal: dict[str, int], default: str) -> str:
        """The legal class with the highest expected score; `default` (the prompt's auto-play
        answer) unless another is strictly better (one dot product per class)."""
        best, value = None, -np.inf
        if default in legal and default in self.answers:
            best, value = default, x @ self.answers[default]
        for name in legal:
            if name in self.answers and name != best:
                v = x @ self.answers[name]
                if v > value:
                    best, value = name, v
        return best if best is not None else default


def _fitted_rules(rules: Rules) -> dict[str, Any]:
    d = rules.to_dict()
    for name in _DISPLAY_FIELDS:
        d.pop(name, None)
    return d


@cache
def model_file(preset: str) -> dict[str, Any] | None:
    """The shipped data file of `preset` as a dict, or None when there is none."""
    path = resources.files("agents") / "role_models" / f"{preset}.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != MODEL_FORMAT:
        raise ValueError(f"{path}: not a role-model file (format {data.get('format')!r})")
    return data


def load_models(rules: Rules) -> dict[str, RoleModel]:
    """The models in use for `rules` (kinds with `"use": true`): none when the preset has no
    file or `rules` differ from the rules it was fitted on."""
    data = model_file(rules.preset)
    if data is None or {k: v for k, v in data["rules"].items() if k not in _DISPLAY_FIELDS} != _fitted_rules(rules):
        return {}
    return {kind: RoleModel(kind, tuple(m["features"]),
                            {a: np.array(c, dtype=np.float64) for a, c in m["answers"].items()})
            for kind, m in data["models"].items() if m["use"]}


def role_choices(rules: Rules) -> tuple[str, ...]:
    """The values `HeuristicAgent(roles=...)` accepts for `rules`: "all", "none", or prompt
    kinds with a model in use (several joined by commas)."""
    return ("all", "none", *sorted(load_models(rules)))


class RolePolicy:
    """The role answers of one bot: the models of `roles` ("all", "none", or prompt kinds
    joined by commas, e.g. "grab,guard") where they apply, the auto-play defaults elsewhere.
    (A kind that follows declarations, such as weihai's kick, is met only when another kind
    declares: its check compares the other models with and without it.)"""

    def __init__(self, rules: Rules, roles: str = "all") -> None:
        choices = role_choices(rules)
        kinds = roles.split(",")
        if roles not in ("all", "none") and not all(k in choices[2:] for k in kinds):
            raise ValueError(f"unknown role models {roles!r} for preset {rules.preset!r}; allowed: "
                             f"{list(choices)} (kinds may be joined by commas)")
        models = load_models(rules)
        self.models = {} if roles == "none" else models if roles == "all" else {k: models[k] for k in kinds}
        self.rules = rules
        self.defaults = RoleDefaults(rules)
        self.reader = PromptReader(rules)

    def choose(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The answer to a role-phase prompt (`mask`: its legal answers)."""
        if self.models:
            v = SeatView(observation, self.rules)
            prompt = self.reader.prompt(v, observation, mask)
            model = self.models.get(prompt.kind) if prompt is not None else None
            if model is not None:
                x = self.reader.features(v, observation, model.features)
                return prompt.answers[model.choose(x, prompt.answers, prompt.default)]
        return self.defaults.choose(observation, mask)


__all__ = ["MODEL_FORMAT", "RoleModel", "RolePolicy", "load_models", "model_file", "role_choices"]
