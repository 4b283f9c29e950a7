"""Typed trainer configs: YAML files loaded into dataclasses, with `key=value`
overrides from the command line. The recipes we ship (`agents/configs/`, which a clone also
shows as `configs/`) are package data, found by name or by their documented path from any
directory (`recipe_path`). Unknown keys and wrongly typed values are errors that name
the key and the expected type, so a typo never silently trains with a default.
Supported field types: str, int, float, bool, lists of those, and mappings such as
`dict[str, float]` (YAML `{a: 0.5, b: 0.5}`, or `key=a=0.5,b=0.5` on the command line:
`parse_mapping`).
A renamed key (`RENAMED_KEYS`) still loads under its old name, with a FutureWarning.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import types
import typing
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path, PurePath
from typing import Any, ClassVar, TypeVar

import yaml

from baohuang_env.replay import atomic_path
from baohuang_env.rewards import check_reward_mode
from baohuang_env.rules import Rules, get_rules

from .opponents import check_distinct_tags

T = TypeVar("T")

#: Old config key -> its new name. Configs (and the configs inside older checkpoints) that use
#: the old name still load.
RENAMED_KEYS = {"objective": "reward_mode"}

#: The folder of the shipped recipe configs (package data of `agents`).
RECIPES = Path(str(files("agents") / "configs"))

#: The values of `RunConfig.device` (checked here without importing torch; `agents.training.device`
#: says what they mean on this machine).
DEVICE_SPEC = re.compile(r"auto|cpu|cuda(:\d+)?")


def check_device_spec(spec: Any) -> None:
    """ValueError unless `spec` is one of auto, cpu, cuda, cuda:N (syntax only: whether such
    a device is there is `agents.training.device.training_device`'s question)."""
    if not isinstance(spec, str) or not DEVICE_SPEC.fullmatch(spec):
        raise ValueError(f"device must be auto, cpu, cuda or cuda:N, got {spec!r}")

#: Where a trainer's actors or rollout workers run (`RunConfig.backend`).
BACKENDS = ("local", "ray")

#: The allowed values of a numeric knob: (the test, what the message says is allowed).
Bound = tuple[Callable[[float], bool], str]
POSITIVE: Bound = (lambda v: v > 0, "> 0")
NON_NEGATIVE: Bound = (lambda v: v >= 0, ">= 0")
PROBABILITY: Bound = (lambda v: 0 <= v <= 1, "in [0, 1]")


def check_bounds(cfg: Any, bounds: dict[str, Bound]) -> None:
    """ValueError naming the first knob of `cfg` outside its bound and what is allowed (NaN
    is never allowed: every test is False for it)."""
    for name, (ok, allowed) in bounds.items():
        value = getattr(cfg, name)
        if not ok(value):
            raise ValueError(f"{name} must be {allowed}, got {value!r}")


class UnknownKeys(ValueError):
    """Keys no field of the config has, with where they came from (`source`: a YAML file, the
    command line), so that a caller can say more (`baohuang train`: a config of the other
    trainer)."""

    def __init__(self, source: str, keys: list[str], fields: set[str]) -> None:
        self.source, self.keys = source, keys
        guesses = {k: difflib.get_close_matches(k, sorted(fields), n=1) for k in keys}
        if all(guesses.values()):
            hint = "; ".join(f"did you mean {g[0]}?" for g in guesses.values())
        else:
            hint = f"allowed keys: {sorted(fields)}"
        what = f"key {keys[0]!r}" if len(keys) == 1 else f"keys {keys}"
        super().__init__(f"{source}: unknown {what} ({hint})")


@dataclass
class RunConfig:
    """The knobs every trainer shares (`DMCConfig`, `PPOConfig` extend it): what to train on,
    the budget, checkpoints, the evaluations against scripted bots, logging."""

    ALGO: ClassVar[str] = ""
    """The trainer's name (`baohuang train <ALGO>`), set by each trainer's config."""
    exp_name: str = "run"
    """Name of the experiment, part of the run directory name."""
    preset: str = "jj"
    """Rule preset to train on."""
    seed: int = 1
    """Seeds Python, numpy and torch (and, through them, the deals the trainer plays)."""
    reward_mode: str = "score"
    """Return of a deal (`baohuang_env.rewards`, as the envs' `reward_mode`): "score" (the deal
    score times reward_scale) or "win" (+1/-1/0 by the sign of the seat's score). Formerly
    `objective`, which still loads."""
    reward_scale: float = 0.125
    """Multiplies scores with reward_mode "score" (JJ scores span -24..24)."""
    total_minutes: float = 10.0
    """Training-time budget over all resumes: evaluations during training are timed apart and
    spend none of it. Training stops at whichever of this and total_frames comes first."""
    total_frames: int = 0
    """Stop after this many environment steps (0: no limit)."""
    checkpoint_minutes: float = 1.0
    """Write a checkpoint this often (and always at the end, Ctrl-C included): a crash loses
    at most this much training."""
    eval_minutes: float = 3.0
    """Evaluate against eval_opponents every this many minutes of training (0: only at the end);
    the evaluation's own time is off the budget."""
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "autoplay", "greedy"])
    """Scripted bots to evaluate against (agent specs)."""
    eval_deals: int = 20
    """Duplicate deals of the periodic evaluation."""
    eval_protocol: str = "team"
    """Protocol of the periodic evaluation: "team" (the agent plays a whole side against the
    opponent's side, the headline figure) or "seat" (one seat among four copies of it)."""
    final_eval_deals: int = 100
    """Duplicate deals of the evaluation printed at the end."""
    eval_deal_seed: int = 1_000_000
    """First seed of the evaluation deal set (training deals never use seeds below 2**32)."""
    log_seconds: float = 5.0
    """Progress line and TensorBoard scalars this often."""
    runs_dir: str = "runs"
    """Parent folder of run directories."""
    backend: str = "local"
    """Where the actors (DMC) or rollout workers (PPO) run: "local" (processes of this
    machine, no Ray needed) or "ray" (Ray actors, on this machine or a cluster: `ray_address`;
    needs `pip install -e ".[ray]"`). The learner, checkpoints, TensorBoard and resume are the
    same either way (`agents.training.ray_backend`)."""
    ray_address: str = ""
    """With backend "ray": "" starts a Ray instance on this machine for the run (stopped at
    its end); "auto" or HOST:PORT joins a running cluster (`ray start --head` ...)."""
    device: str = "auto"
    """Where the learner's updates run: "auto" (the first CUDA device when torch sees one,
    else the CPU), "cpu", "cuda" or "cuda:N" (refused before the run starts when there is no
    such device). The actors and rollouts play on the CPU either way (`agents.training.device`)."""
    guard_head_weight: float = 0.0
    """Weight of the auxiliary guard-belief loss (`agents.nets.guard_head`: predict the guard's
    seat from the acting seat's observation, trained on the hidden label); 0 leaves the head
    out."""

    def validate(self) -> None:
        """Raise ValueError naming the first knob with an impossible value."""
        check_reward_mode(self.reward_mode)
        check_bounds(self, {
            "seed": NON_NEGATIVE, "reward_scale": POSITIVE, "total_minutes": NON_NEGATIVE,
            "total_frames": NON_NEGATIVE, "checkpoint_minutes": NON_NEGATIVE, "eval_minutes": NON_NEGATIVE,
            "eval_deals": POSITIVE, "final_eval_deals": POSITIVE, "eval_deal_seed": NON_NEGATIVE,
            "log_seconds": NON_NEGATIVE, "guard_head_weight": NON_NEGATIVE})
        check_distinct_tags("eval_opponents", self.eval_opponents)
        if self.eval_protocol not in ("team", "seat"):
            raise ValueError(f"eval_protocol must be 'team' or 'seat', got {self.eval_protocol!r}")
        if self.total_minutes <= 0 and self.total_frames <= 0:
            raise ValueError("set total_minutes or total_frames to a positive value")
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        check_device_spec(self.device)
        if self.ray_address and self.backend != "ray":
            raise ValueError(f"ray_address={self.ray_address!r} needs backend=ray (the local backend runs no Ray)")

    @classmethod
    def trained_config(cls, ckpt: dict[str, Any]) -> dict[str, Any]:
        """The config a checkpoint was trained with, as a dict: its saved config, completed
        with any key added since whose default today would misread the checkpoint (none here;
        a trainer's config overrides this)."""
        return dict(ckpt["config"])

    def build_rules(self) -> Rules:
        """The rules of this run. A trainer calls this once and passes the result down (to its
        actors, rollouts, agents and evaluations); nothing else turns `preset` into rules."""
        return get_rules(self.preset)


def _coerce(name: str, value: Any, kind: Any) -> Any:
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(kind)
        if value is None and type(None) in options:
            return None
        errors = []
        for opt in options:
            if opt is type(None):
                continue
            try:
                return _coerce(name, value, opt)
            except ValueError as err:
                errors.append(str(err))
        raise ValueError(errors[0] if errors else f"config key {name!r}: bad value {value!r}")
    if origin in (list, tuple):
        (inner, *_) = typing.get_args(kind) or (Any,)
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        if not isinstance(value, list | tuple):
            raise ValueError(f"config key {name!r} expects a list, got {value!r}")
        items = [_coerce(name, v, inner) for v in value]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        key_kind, value_kind = typing.get_args(kind) or (Any, Any)
        one_line = isinstance(value, str) and bool(value.strip())
        if one_line:  # "a=1,b=2" from a command line
            value = parse_mapping(name, value)
        if not isinstance(value, dict):
            raise ValueError(f"config key {name!r} expects a mapping such as {{a: 1, b: 2}}, got {value!r}")
        try:
            return {_coerce(name, k, key_kind): _coerce(f"{name}.{k}", v, value_kind) for k, v in value.items()}
        except ValueError as err:
            if one_line:
                raise ValueError(f"{err}; {_MAPPING_FORMS}") from None
            raise
    if kind is Any:
        return value
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "1", "0"):
            return value.lower() in ("true", "yes", "1")
        raise ValueError(f"config key {name!r} expects true/false, got {value!r}")
    if kind is int:
        if isinstance(value, bool):
            raise ValueError(f"config key {name!r} expects an integer, got {value!r}")
        if isinstance(value, int):
            return value
        if isinstance(value, str):
            try:
                return int(value.replace("_", ""))
            except ValueError:
                pass
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise ValueError(f"config key {name!r} expects an integer, got {value!r}")
    if kind is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        raise ValueError(f"config key {name!r} expects a number, got {value!r}")
    if kind is str:
        if isinstance(value, str):
            return value
        raise ValueError(f"config key {name!r} expects a string, got {value!r}")
    raise ValueError(f"config key {name!r}: unsupported type {kind!r}")


_MAPPING_FORMS = ("a mapping on one line is entries key=value (or key@value; key:value when the key has "
                  "no ':') separated by commas, e.g. self=0.5,dmc:agents/pretrained/dmc_jj.pt=0.5")


def parse_mapping(name: str, text: str) -> dict[str, Any]:
    """Config key `name`'s mapping written on one line (a command-line override, or a YAML
    string): entries separated by commas, each `key=value` or `key@value` (split at the last
    `=` or `@`, so a key may hold `:`, as a checkpoint agent `dmc:path=0.2` does), or
    `key:value` when the key holds no `:` (`self:0.5`). Values are read as YAML scalars.
    An entry none of these fit, or a key given twice, is an error naming it."""
    out: dict[str, Any] = {}
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            continue
        cut = max(entry.rfind("="), entry.rfind("@"))
        if cut < 0 and entry.count(":") == 1:
            cut = entry.index(":")
        if cut < 0:  # no value, or a key holding ':' with its value after another ':'
            guess = entry.rpartition(":")[0] if entry.count(":") > 1 else entry
            raise ValueError(f"config key {name!r}: cannot read the entry {entry!r} (did you mean {guess}=VALUE?); "
                             f"{_MAPPING_FORMS}")
        key, value = entry[:cut].strip(), entry[cut + 1:].strip()
        if not key or not value:
            raise ValueError(f"config key {name!r}: the entry {entry!r} has no {'key' if not key else 'value'}; "
                             f"{_MAPPING_FORMS}")
        if key in out:
            raise ValueError(f"config key {name!r}: {key!r} is given twice")
        out[key] = yaml.safe_load(value)
    return out


def config_from_dict(cls: type[T], data: dict[str, Any], source: str = "config") -> T:
    """Build dataclass `cls` from a dict, validating keys and types."""
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}
    data = _renamed(data, fields, source)
    check_keys(data, fields, source)
    values = {k: _coerce(k, v, hints[k]) for k, v in data.items()}
    cfg = cls(**values)
    check = getattr(cfg, "validate", None)
    if check is not None:
        check()
    return cfg


def check_keys(data: dict[str, Any], fields: set[str], source: str) -> None:
    """`UnknownKeys` for the keys of `data` that are no field, blamed on `source`."""
    unknown = sorted(set(data) - fields)
    if unknown:
        raise UnknownKeys(source, unknown, fields)


def _renamed(data: dict[str, Any], fields: set[str], source: str) -> dict[str, Any]:
    """`data` with renamed keys under their new names (a FutureWarning for each); both names
    at once is an error."""
    old = [k for k in data if k in RENAMED_KEYS and RENAMED_KEYS[k] in fields]
    if not old:
        return data
    data = dict(data)
    for key in old:
        new = RENAMED_KEYS[key]
        if new in data:
            raise ValueError(f"{source}: {key!r} is the old name of {new!r}; give only {new!r}")
        warnings.warn(f"{source}: config key {key!r} is deprecated; call it {new!r}", FutureWarning, stacklevel=3)
        data[new] = data.pop(key)
    return data


def parse_overrides(overrides: list[str]) -> dict[str, Any]:
    """["lr=0.001", "actors=2"] -> {"lr": 0.001, "actors": 2} (values read as YAML scalars)."""
    out: dict[str, Any] = {}
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"override {item!r} is not key=value")
        out[key.strip()] = yaml.safe_load(value) if value.strip() else ""
    return out


def recipes() -> list[str]:
    """The names of the shipped recipe configs (`dmc_quick`, ...)."""
    return sorted(p.stem for p in RECIPES.glob("*.yaml"))


def recipe_path(path: str | Path) -> Path:
    """The config file `path` names: `path` itself when it exists; else the shipped recipe it
    names, by name (`dmc_quick`) or as the docs write it (`configs/dmc_quick.yaml`), so the
    documented commands work from any directory. ValueError lists the recipes otherwise."""
    given = Path(path)
    if given.exists():
        return given
    parts = PurePath(path).parts
    name = parts[-1].removesuffix(".yaml").removesuffix(".yml") if parts else ""
    if tuple(parts[:-1]) in ((), ("configs",)) and name in recipes():
        return RECIPES / f"{name}.yaml"
    raise ValueError(f"no config file {path}; give a YAML file or a shipped recipe: {', '.join(recipes())} "
                     "(e.g. --config dmc_quick or --config configs/dmc_quick.yaml)")


def _read_yaml(path: str | Path) -> dict[str, Any]:
    """The mapping a YAML config file holds (empty for an empty file); `path` may name a
    shipped recipe (`recipe_path`)."""
    path = recipe_path(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise ValueError(f"cannot read config {path}: {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise ValueError(f"config {path} is not a text file (byte {err.start} is not UTF-8): a config "
                         f"must be a YAML text file, such as configs/dmc_quick.yaml") from None
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ValueError(f"config {path} is not valid YAML: {err}") from None
    if loaded is not None and not isinstance(loaded, dict):
        raise ValueError(f"config {path} must be a mapping of key: value")
    return dict(loaded or {})


def load_config(cls: type[T], path: str | Path | None = None, overrides: list[str] | None = None,
                base: dict[str, Any] | None = None) -> T:
    """Build `cls` from layers, each over the one before: `base` (a config dict, such as a
    resumed run's own config; the dataclass defaults where it is None or silent), the YAML file
    at `path`, then the `key=value` overrides. A key under its old name counts as its new one
    in whichever layer gives it."""
    fields = {f.name for f in dataclasses.fields(cls)}
    data = dict(base or {})
    layers = [(str(path), _read_yaml(path))] if path is not None else []
    layers.append(("the command line", parse_overrides(overrides or [])))
    for source, layer in layers:  # an unknown key is blamed on the layer that gave it
        layer = _renamed(layer, fields, source)
        check_keys(layer, fields, source)
        data.update(layer)
    return config_from_dict(cls, data, source=str(path) if path else "config")


def config_to_dict(cfg: Any) -> dict[str, Any]:
    """Plain dict of a config (tuples as lists), for YAML, checkpoints and TensorBoard."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(cfg).items()}


def save_config(cfg: Any, path: str | Path) -> None:
    """Write the resolved config as YAML (atomically: a reader never sees half a file)."""
    with atomic_path(path) as tmp:
        Path(tmp).write_text(yaml.safe_dump(config_to_dict(cfg), sort_keys=False), encoding="utf-8")
