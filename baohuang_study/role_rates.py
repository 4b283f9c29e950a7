"""How often an agent takes each role-phase option (`baohuang study roles`; issue 23, item 6).

Per agent, the seat protocol's composition-A games (docs/evaluation.md): on every deal, for
every focal seat s in 0..4, the agent at s and the opponent (the heuristic by default) at the
four others, with the seat protocol's agent seeds (`agent_seed(deal, s, "A", q)`), so these
are exactly the games `baohuang eval --protocol seat` plays with the agent focal. At the
focal seat only, every role prompt (`agents.bots.role_prompts.PromptReader`: prompts with one
answer are not counted) and the answer class taken are counted:

* per prompt kind: prompts offered, and per answer class the prompts that offered it and
  the share of the kind's prompts that took it ("other": a call of a middle triple or a
  higher quad, which no class names);
* per option of the issue (abdicate, call, grab, rebel, kick, surrender, open guard, open
  solo, and decline): taken / offered, offered = the counted prompts where the option was
  legal, with a 95% Wilson interval.

Pass several agents to compare them side by side (`--agents pretrained heuristic`). What the
answers are worth is a separate measurement: `roles:SPEC` (`agents.bots.role_answers`) gives
SPEC's role answers with the heuristic's card play, and `baohuang eval --agents roles:SPEC
heuristic --protocol seat` scores them. Deal chunks run over worker processes (spawn); the
counts do not depend on the number of workers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any, TextIO

import numpy as np

from agents.bots.role_answers import PhaseReader, act_on
from agents.bots.role_prompts import PromptReader
from agents.view import SeatView
from baohuang_env.actions import DECISION_ID, action_table
from baohuang_env.agent import Agent
from baohuang_env.cards import NUM_SEATS
from baohuang_env.rules import Rules
from baohuang_eval.play import SpecSeats, Table, agent_seed, game_agents, play_games, validate_specs
from baohuang_eval.pool import Progress, chunk_size, run_chunks
from baohuang_eval.stats import wilson_interval

from .report import figure, fmt, png_bytes, short_name

#: The options of the issue, in report order; "call" is any CALL action (a triple or a quad).
OPTIONS = ("abdicate", "call", "grab", "rebel", "kick", "surrender", "open_guard", "open_solo", "decline")
#: The class of an answer no class of its prompt names (a middle triple's or a higher quad's call).
OTHER = "other"


def option_actions(rules: Rules) -> dict[str, np.ndarray]:
    """The action ids of each option under `rules` (an empty array where it has none)."""
    table = action_table(rules)
    single = {"abdicate": "ABDICATE", "grab": "GRAB", "rebel": "REBEL", "kick": "KICK", "surrender": "SURRENDER",
              "open_guard": "OPEN_GUARD", "open_solo": "OPEN_SOLO", "decline": "DECLINE"}
    out = {name: np.array([DECISION_ID[decision]]) for name, decision in single.items()}
    out["call"] = np.arange(table.first_call, table.first_call + table.num_calls)
    return {name: out[name] for name in OPTIONS}


class Tally:
    """The counts of one agent's role prompts and answers (keys: `("games",)`, `("prompts", kind)`,
    `("offered", kind, class)`, `("taken", kind, class)`, `("option offered", option)`,
    `("option taken", option)`)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.prompts, self.phases = PromptReader(rules), PhaseReader(rules)
        self.options = option_actions(rules)
        self.counts: Counter = Counter()

    def record(self, observation: np.ndarray, mask: np.ndarray, action: int) -> None:
        """Count one decision of the focal seat (play-phase ones and single answers are not)."""
        if not self.phases.in_role_phase(observation):
            return
        prompt = self.prompts.prompt(SeatView(observation, self.rules), observation, mask)
        if prompt is None:
            return
        c = self.counts
        c["prompts", prompt.kind] += 1
        for name in prompt.answers:
            c["offered", prompt.kind, name] += 1
        c["taken", prompt.kind, next((n for n, a in prompt.answers.items() if a == action), OTHER)] += 1
        for option, ids in self.options.items():
            if ids.size and mask[ids].any():
                c["option offered", option] += 1
                c["option taken", option] += int(action in ids)


class _Counted:
    """The focal seat's agent, its role-phase decisions counted in `tally`."""

    uses_observation = True

    def __init__(self, agent: Agent, tally: Tally) -> None:
        self.agent, self.tally = agent, tally

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        action = act_on(self.agent, observation, action_mask)
        self.tally.record(observation, action_mask, action)
        return action


def rates_chunk(spec: str, opponent: str, rules_dict: dict[str, Any], seeds: Sequence[int],
                seats: tuple[SpecSeats, SpecSeats] | None = None) -> Counter:
    """The counts of `spec`'s composition-A games on `seeds` (all at once, `play_games`)."""
    rules = Rules.from_dict(rules_dict)
    mine, theirs = seats or (SpecSeats(spec, rules), SpecSeats(opponent, rules))
    tally = Tally(rules)

    def tables() -> Iterator[Table]:
        for deal in seeds:
            for focal in range(NUM_SEATS):
                sides = [mine if q == focal else theirs for q in range(NUM_SEATS)]
                agents = game_agents(sides, [agent_seed(deal, focal, "A", q) for q in range(NUM_SEATS)])
                agents[focal] = _Counted(agents[focal], tally)
                names = [spec if q == focal else opponent for q in range(NUM_SEATS)]
                yield Table(deal, agents, names, f"deal {deal}, focal seat {focal}, role rates of {spec!r}")

    tally.counts["games",] += len(play_games(rules, tables()))
    return tally.counts


def _count(spec: str, opponent: str, rules: Rules, seeds: Sequence[int], workers: int,
           log: TextIO | None) -> Counter:
    """`rates_chunk` over every deal of `seeds`, in chunks over `workers` processes."""
    size = chunk_size(len(seeds), workers, NUM_SEATS)
    chunks = [list(seeds[k:k + size]) for k in range(0, len(seeds), size)]
    progress = Progress(len(seeds) * NUM_SEATS, log, f"roles {spec}")
    try:
        parts = run_chunks(partial(rates_chunk, spec, opponent, rules.to_dict()), chunks, workers, progress,
                           NUM_SEATS, seats=(SpecSeats(spec, rules), SpecSeats(opponent, rules)))
    finally:
        progress.close()
    return sum(parts, Counter())


def _rate(taken: int, offered: int) -> dict[str, Any]:
    low, high = wilson_interval(taken, offered)
    return {"offered": offered, "taken": taken, "rate": taken / offered if offered else float("nan"),
            "low": low, "high": high}


def summarize(counts: Counter, rules: Rules) -> dict[str, Any]:
    """One agent's figures from its counts: per kind (in role-step order) and per option."""
    steps = rules.role_steps

    def step_order(kind: str) -> tuple[int, str]:
        step = kind.partition(".")[0]
        return (steps.index(step) if step in steps else len(steps), kind)

    kinds: dict[str, Any] = {}
    for kind in sorted((k[1] for k in counts if k[0] == "prompts"), key=step_order):
        n = counts["prompts", kind]
        classes = sorted({k[2] for k in counts if k[0] in ("offered", "taken") and k[1] == kind})
        kinds[kind] = {"offered": n, "classes": {
            name: {"offered": counts["offered", kind, name], "taken": counts["taken", kind, name],
                   "share": counts["taken", kind, name] / n} for name in classes}}
    return {"games": counts["games",], "prompts": sum(k["offered"] for k in kinds.values()), "kinds": kinds,
            "options": {o: _rate(counts["option taken", o], counts["option offered", o]) for o in OPTIONS}}


def role_rates_study(specs: Sequence[str], rules: Rules, seeds: Sequence[int], opponent: str = "heuristic",
                     workers: int = 1, log: TextIO | None = None) -> dict[str, Any]:
    """The role-answer rates of every agent in `specs` against `opponent` (module docstring)."""
    validate_specs([*specs, opponent], rules)
    result: dict[str, Any] = {"study": "roles", "preset": rules.preset, "deals": len(seeds),
                              "first_seed": int(seeds[0]), "opponent": opponent, "agents": {}}
    for spec in specs:
        result["agents"][spec] = summarize(_count(spec, opponent, rules, seeds, workers, log), rules)
    return result


def _cell(r: dict[str, Any]) -> str:
    if not r["offered"]:
        return "-"
    return f"{r['taken']}/{r['offered']} {fmt(r['rate'])} [{fmt(r['low'])}, {fmt(r['high'])}]"


def to_markdown(result: dict[str, Any]) -> str:
    agents = result["agents"]
    specs = list(agents)
    header = " | ".join(specs)
    lines = [f"# Role answers ({result['preset']}, {result['deals']} deals from seed {result['first_seed']}, "
             f"against {result['opponent']})", "",
             "The focal seat of the seat protocol's composition-A games (the agent at one seat, the opponent at "
             "the four others); prompts with one answer are not counted. Games: "
             + ", ".join(f"{s} {a['games']}" for s, a in agents.items()) + ".", "",
             "## Options: taken / offered, rate [95% Wilson CI]", "",
             f"| option | {header} |", "|---|" + "---|" * len(specs)]
    for option in OPTIONS:
        cells = [agents[s]["options"][option] for s in specs]
        if any(c["offered"] for c in cells):
            lines.append(f"| {option.replace('_', ' ')} | " + " | ".join(_cell(c) for c in cells) + " |")
    lines += ["", "## Prompts per kind: offered, and the share of them that took each answer class", "",
              f"| kind | class | {header} |", "|---|---|" + "---|" * len(specs)]
    kinds = list(dict.fromkeys(k for s in specs for k in agents[s]["kinds"]))
    for kind in kinds:
        per = [agents[s]["kinds"].get(kind) for s in specs]
        lines.append(f"| {kind} | (prompts) | " + " | ".join(str(p["offered"]) if p else "0" for p in per) + " |")
        for name in sorted({c for p in per if p for c in p["classes"]}):
            shares = [fmt(p["classes"][name]["share"]) if p and name in p["classes"] else "-" for p in per]
            lines.append(f"| {kind} | {name} | " + " | ".join(shares) + " |")
    return "\n".join(lines) + "\n"


def plot(result: dict[str, Any]) -> bytes:
    """The options' rates with their intervals, and the prompts per game by kind, one bar per agent."""
    agents = result["agents"]
    specs = list(agents)
    options = [o for o in OPTIONS if any(a["options"][o]["offered"] for a in agents.values())]
    kinds = list(dict.fromkeys(k for a in agents.values() for k in a["kinds"]))
    fig, (rates_ax, kinds_ax) = figure(1, 2, width=6.0, height=max(3.6, 0.5 * max(len(options), len(kinds))))
    width = 0.8 / max(1, len(specs))
    for i, spec in enumerate(specs):
        a = agents[spec]
        at = np.arange(len(options)) + i * width
        rs = [a["options"][o] for o in options]
        rates = np.nan_to_num([r["rate"] for r in rs])
        err = np.nan_to_num([[r["rate"] - r["low"] for r in rs], [r["high"] - r["rate"] for r in rs]])
        rates_ax.barh(at, rates, width, xerr=err, capsize=2, label=short_name(spec))
        per_game = [a["kinds"][k]["offered"] / a["games"] if k in a["kinds"] else 0.0 for k in kinds]
        kinds_ax.barh(np.arange(len(kinds)) + i * width, per_game, width, label=short_name(spec))
    rates_ax.set(yticks=np.arange(len(options)) + 0.4 - width / 2, yticklabels=[o.replace("_", " ") for o in options],
                 xlim=(0, 1), title=f"{result['preset']}: taken / offered (95% CI)")
    kinds_ax.set(yticks=np.arange(len(kinds)) + 0.4 - width / 2, yticklabels=kinds,
                 title="prompts per game at the focal seat")
    for ax in (rates_ax, kinds_ax):
        ax.invert_yaxis()
        ax.legend(fontsize="x-small")
    return png_bytes(fig)


__all__ = ["OPTIONS", "OTHER", "Tally", "option_actions", "plot", "rates_chunk", "role_rates_study", "summarize",
           "to_markdown"]
