"""What would the agent play": an agent's top moves for one seat, from that seat's
observation and legal-move mask only (the same inputs the agent gets when it plays).

Agents that score actions show their scores: a DMC agent its Q values (the expected final
score of each move, `action_values`), a PPO agent its policy's probabilities (`logits`), a
search agent (`search:...`, docs/search.md) each candidate's mean result over the worlds it
sampled, with how many and how long it took (from the seat's information state, which is
what it plays from). Any other agent (the scripted bots) shows only the move it would choose.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from baohuang_env.agent import Agent, uses_info_state
from baohuang_env.infostate import InfoState

#: Moves listed in a hint at most.
TOP_MOVES = 5


def agent_hint(agent: Agent, observation: np.ndarray, mask: np.ndarray, labels: dict[int, str],
               top: int = TOP_MOVES, info: InfoState | None = None) -> dict[str, Any]:
    """The agent's view of the legal moves: `{"kind", "value_name", "moves": [{id, label,
    value}], "choice"}`, best first; `labels` names every legal action id. A search agent
    needs `info`, the seat's information state."""
    if uses_info_state(agent):
        return _search_hint(agent, info, labels)
    legal = np.asarray(mask).view(bool).nonzero()[0]
    values: np.ndarray | None = None
    name = None
    if hasattr(agent, "action_values"):
        values, name = np.asarray(agent.action_values(observation, legal), dtype=np.float64), "Q (expected return)"
    elif hasattr(agent, "logits"):
        z = np.asarray(agent.logits(observation, legal), dtype=np.float64)
        p = np.exp(z - z.max())
        values, name = p / p.sum(), "policy probability"
    if values is None:
        choice = int(agent.act(observation, mask))
        return {"kind": "choice", "value_name": None, "choice": choice,
                "moves": [{"id": choice, "label": labels[choice], "value": None}]}
    order = np.argsort(-values, kind="stable")[:top]
    moves = [{"id": int(legal[i]), "label": labels[int(legal[i])], "value": round(float(values[i]), 4)}
             for i in order]
    return {"kind": "values", "value_name": name, "choice": moves[0]["id"], "moves": moves}


def _search_hint(agent: Agent, info: InfoState | None, labels: dict[int, str]) -> dict[str, Any]:
    """A search agent's candidates by mean result over its sampled worlds (`kind` "search",
    with `worlds`, `milliseconds` and the agent's time limit, `limit_ms`, 0 for none)."""
    if info is None:
        raise ValueError("a search agent's hint needs the seat's information state")
    result = agent.search(info)
    order = sorted(range(len(result.candidates)), key=lambda i: -result.means[i])
    moves = [{"id": result.candidates[i], "label": labels[result.candidates[i]], "value": round(result.means[i], 4)}
             for i in order]
    ms = round(result.seconds * 1000)
    limit = agent.settings.limit_ms
    name = (f"mean {agent.settings.objective} over {result.worlds} sampled worlds, {ms} ms"
            + (f" (limit {limit} ms)" if limit else ""))
    return {"kind": "search", "value_name": name, "choice": result.choice, "moves": moves,
            "worlds": result.worlds, "milliseconds": ms, "limit_ms": limit}
