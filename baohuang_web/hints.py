"""What would the agent play": an agent's top moves for one seat, from that seat's
observation and legal-move mask only (the same inputs the agent gets when it plays).

Agents that score actions show their scores: a DMC agent its Q values (the expected final
score of each move, `action_values`), a PPO agent its policy's probabilities (`logits`), a
search agent (`search:...`, docs/search.md) its first choice's result over the deals it
imagined (the hidden hands dealt in ways that fit what the seat has seen; its first choice is
its base policy's move) and each other candidate's advantage over it in the same deals, in a
player's words ("wins 62% of 8 imagined deals"; "wins 25% more of 8 imagined deals than the
agent's first choice (better in 3, worse in 1)"), with how long it took (from the seat's
information state, which is what it plays from). Any other agent (the scripted bots) shows
only the move it would choose. A forced move (the only legal one) is shown as such, without
asking the agent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from baohuang_env.agent import Agent, uses_info_state
from baohuang_env.infostate import InfoState

if TYPE_CHECKING:
    from agents.search import SearchResult

#: Moves listed in a hint at most.
TOP_MOVES = 5


def agent_hint(agent: Agent, observation: np.ndarray, mask: np.ndarray, labels: dict[int, str],
               top: int = TOP_MOVES, info: InfoState | None = None) -> dict[str, Any]:
    """The agent's view of the legal moves: `{"kind", "value_name", "moves": [{id, label,
    value}], "choice"}`, best first; `labels` names every legal action id. A search agent
    needs `info`, the seat's information state. A single legal move is `kind` "forced",
    with no figures."""
    legal = np.asarray(mask).view(bool).nonzero()[0]
    if legal.size == 1:
        only = int(legal[0])
        return {"kind": "forced", "value_name": None, "choice": only,
                "moves": [{"id": only, "label": labels[only], "value": None}]}
    if uses_info_state(agent):
        return _search_hint(agent, info, labels)
    values: np.ndarray | None = None
    name = None
    if hasattr(agent, "action_values"):
        values, name = np.asarray(agent.action_values(observation, legal), dtype=np.float64), "Q (expected return)"
    elif hasattr(agent, "logits"):
        z = np.asarray(agent.logits(observation, legal), dtype=np.float64)
        p = np.exp(z - z.max())
        values, name = p / p.sum(), "policy probability"
    if values is None:
        return _choice(int(agent.act(observation, mask)), labels)
    order = np.argsort(-values, kind="stable")[:top]
    moves = [{"id": int(legal[i]), "label": labels[int(legal[i])], "value": round(float(values[i]), 4)}
             for i in order]
    return {"kind": "values", "value_name": name, "choice": moves[0]["id"], "moves": moves}


def _choice(choice: int, labels: dict[int, str]) -> dict[str, Any]:
    """The hint of an agent that shows only the move it would choose."""
    return {"kind": "choice", "value_name": None, "choice": choice,
            "moves": [{"id": choice, "label": labels[choice], "value": None}]}


def search_words(mean: float, deals: int, objective: str) -> str:
    """A candidate's search result as a player reads it. Under the "win" objective a play-out
    counts +1 won, -1 lost, 0 drawn, so its mean m is a share of wins (m + 1) / 2 with a draw
    as half a win ("wins 62% of 8 imagined deals"); under "score", the mean score."""
    if objective == "win":
        return f"wins {round(50 * (mean + 1))}% of {deals} imagined deals"
    return f"scores {mean:+.1f} on average over {deals} imagined deals"


def advantage_words(gain: float, deals: int, better: int, worse: int, objective: str) -> str:
    """A candidate's paired advantage over the agent's own move (`agents.search.Paired`) as a
    player reads it, with the deals where it did better and worse. Under "win" a gain g in
    results of +1/-1 is a difference of g / 2 in the share of wins ("wins 25% more of 8
    imagined deals than the agent's first choice"); under "score", points per deal."""
    counts = f"(better in {better}, worse in {worse})"
    if objective == "win":
        share = round(50 * gain)
        more = f"{abs(share)}% {'more' if share >= 0 else 'fewer'}"
        return f"wins {more} of {deals} imagined deals than the agent's first choice {counts}"
    return f"scores {gain:+.1f} over the agent's first choice in {deals} imagined deals {counts}"


def _search_hint(agent: Agent, info: InfoState | None, labels: dict[int, str]) -> dict[str, Any]:
    """A search agent's candidates by their advantage over its own move in the deals it
    imagined (`kind` "search", each move with its mean result `value`, its `gain` over the
    agent's own move and its `text` in words: the agent's own move by its result, the others
    by their advantage; and `worlds`, `milliseconds` and the agent's time limit, `limit_ms`, 0
    for none); a search that played nothing out (one candidate) shows only its choice."""
    if info is None:
        raise ValueError("a search agent's hint needs the seat's information state")
    result = agent.search(info)
    if not result.worlds:
        return _choice(result.choice, labels)
    objective = agent.settings.objective
    order = sorted(range(len(result.candidates)), key=lambda i: -result.estimates[i].gain)
    moves = [{"id": result.candidates[i], "label": labels[result.candidates[i]], "value": round(result.means[i], 4),
              "gain": round(result.estimates[i].gain, 4), "text": _words(result, i, objective)} for i in order]
    ms = round(result.seconds * 1000)
    limit = agent.settings.limit_ms
    name = (f"each move played out in {result.worlds} imagined deals (the hidden cards dealt in ways that fit what "
            f"you have seen), {ms} ms" + (f" of its {limit} ms" if limit else ""))
    return {"kind": "search", "value_name": name, "choice": result.choice, "moves": moves,
            "worlds": result.worlds, "milliseconds": ms, "limit_ms": limit}


def _words(result: SearchResult, i: int, objective: str) -> str:
    """Candidate `i` of a search in words: the agent's own move (the first) by its result over
    the deals it imagined, another by its advantage over it in the deals both were played in."""
    if i == 0:
        return "the agent's first choice: " + search_words(result.means[0], result.worlds, objective)
    e = result.estimates[i]
    return advantage_words(e.gain, e.worlds, e.better, e.worse, objective)
