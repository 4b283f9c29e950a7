"""The shipped agents, by name, from any directory (they are package data of `agents`).

    from agents.pretrained import load
    agent = load("dmc_kickstart_jj")            # RLCard's models.load("...") convention
    agent = load()                              # the strongest shipped agent for jj

As agent specs: `pretrained:dmc_kickstart_jj`, or `pretrained` alone for the strongest shipped
agent of the rules' preset; `default_opponent(preset)` is the agent a game of the preset is
played against when none is named (its strongest shipped agent, else the heuristic). The file
paths the docs use (`dmc:agents/pretrained/dmc_jj.pt`) keep working: a checkpoint path that
is not a file here but names a shipped file is that file (`checkpoint_path`), so they work
outside a clone too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path, PurePath

from baohuang_env.agent import Agent, make_agent
from baohuang_env.rules import Rules, get_rules

#: The folder that holds the shipped checkpoints (in the clone: agents/pretrained/).
FOLDER = Path(str(files(__name__)))


@dataclass(frozen=True)
class Pretrained:
    """One shipped agent: its checkpoint file, agent kind and preset, and what it is."""

    name: str
    kind: str
    preset: str
    about: str

    @property
    def path(self) -> Path:
        return FOLDER / f"{self.name}.pt"

    @property
    def spec(self) -> str:
        """The agent spec that loads this file wherever the package is installed."""
        return f"pretrained:{self.name}"


#: Every shipped agent, strongest first within a preset (`strongest` takes the first).
SHIPPED: dict[str, Pretrained] = {p.name: p for p in (
    Pretrained("dmc_kickstart_jj", "dmc", "jj", "DMC with the heuristic's advice, kickstarted from it "
               "(configs/dmc_kickstart.yaml) for 150 minutes, 15 minutes of annealing (configs/dmc_anneal.yaml), "
               "then widened to 512 units, annealed 50 minutes more, 60 at a smaller step and 30 with "
               "twice the self-play: 81% duplicate win rate against heuristic"),
    Pretrained("dmc_jj", "dmc", "jj", "DMC, pure self-play with λ-returns for 84 M frames (configs/dmc_jj.yaml): "
               "50% duplicate win rate against heuristic"),
    Pretrained("dmc_kickstart_lianzhong_classic", "dmc", "lianzhong_classic", "jj's kickstart recipe for the "
               "called guard (configs/dmc_kickstart_lianzhong_classic.yaml), then 30 minutes of annealing "
               "(configs/dmc_anneal.yaml): 76% duplicate win rate against heuristic"),
    Pretrained("dmc_kickstart_weihai", "dmc", "weihai", "jj's kickstart recipe for weihai "
               "(configs/dmc_kickstart_weihai.yaml), then 45 minutes of annealing (configs/dmc_anneal.yaml): "
               "76% duplicate win rate against heuristic"),
    Pretrained("dmc_kickstart_lianzhong_simple", "dmc", "lianzhong_simple", "jj's kickstart recipe for "
               "lianzhong_simple (configs/dmc_kickstart_lianzhong_simple.yaml), then 15 minutes of annealing "
               "(configs/dmc_anneal.yaml): 76% duplicate win rate against heuristic"),
    Pretrained("dmc_kickstart_qingdao", "dmc", "qingdao", "jj's kickstart recipe for qingdao "
               "(configs/dmc_kickstart_qingdao.yaml), then 15 minutes of annealing (configs/dmc_anneal.yaml): "
               "75% duplicate win rate against heuristic"),
    Pretrained("dmc_kickstart_generic216", "dmc", "generic216", "jj's kickstart recipe for the 216-card game "
               "(configs/dmc_kickstart_generic216.yaml), then 40 more minutes of it without the teacher: "
               "77% duplicate win rate against heuristic"),
)}


def names() -> list[str]:
    """The names of the shipped agents."""
    return list(SHIPPED)


def strongest(preset: str) -> Pretrained:
    """The strongest shipped agent for `preset`; ValueError when none plays it."""
    for p in SHIPPED.values():
        if p.preset == preset:
            return p
    have = sorted({p.preset for p in SHIPPED.values()})
    raise ValueError(f"no shipped agent plays preset {preset!r} (shipped agents play: {', '.join(have)}); "
                     "train one with `baohuang train dmc preset=...`")


def default_opponent(preset: str) -> str:
    """The agent spec to play against in `preset` when none is named (`baohuang play`): the
    spec of the preset's strongest shipped agent (`pretrained:NAME`), else `heuristic`, the
    best bot of every preset (docs/evaluation.md's baseline ladder: autoplay < random <
    greedy < heuristic). So a human meets the strongest opponent the package has, and a
    preset gets its shipped agent as soon as one is added to SHIPPED."""
    try:
        return strongest(preset).spec
    except ValueError:
        return "heuristic"


def find(name: str) -> Pretrained:
    """The shipped agent called `name` (`dmc_jj`, or its file name `dmc_jj.pt`)."""
    stem = name.removesuffix(".pt")
    if stem not in SHIPPED:
        raise ValueError(f"no shipped agent {name!r}; shipped agents: {', '.join(SHIPPED)}")
    return SHIPPED[stem]


def checkpoint_path(path: str | os.PathLike) -> Path:
    """`path` itself when it is a file (or names nothing shipped); else the shipped file it
    names: `agents/pretrained/dmc_jj.pt`, as the docs write it, from any directory. A file of
    that name in the current directory always wins."""
    given = Path(path)
    if given.exists():
        return given
    parts = PurePath(path).parts
    if parts[-1].removesuffix(".pt") in SHIPPED and tuple(parts[:-1]) in ((), ("agents", "pretrained")):
        return find(parts[-1]).path
    return given


def load(name: str | None = None, rules: Rules | None = None) -> Agent:
    """The shipped agent `name` (default: the strongest for `rules`, default jj) as a
    playing agent for `rules` (default: its own preset)."""
    rules = rules or get_rules(find(name).preset if name else "jj")
    return make_agent(f"pretrained:{name}" if name else "pretrained", rules)


def chosen(arg: str | None, rules: Rules) -> Pretrained:
    """The shipped agent that `pretrained[:NAME]` plays for `rules`: the named one, or the
    strongest for the preset of `rules`."""
    return find(arg) if arg else strongest(rules.preset)


def make_pretrained(arg: str | None, rules: Rules, seed: int | None) -> Agent:
    """The `pretrained[:NAME]` agent kind: the agent `chosen` says, from its file."""
    agent = chosen(arg, rules)
    return make_agent(f"{agent.kind}:{agent.path}", rules, seed)
