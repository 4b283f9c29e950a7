"""The agent protocol, the registry that builds agents from names, and the random baseline.

An agent is anything with `act(observation, action_mask) -> int`; `Agent` is its base class,
which users may subclass (docs/agents.md) and which owns the defaults of the optional parts:
`uses_observation` (True), `uses_info_state` (False) and a `reset(seed)` that does nothing.
Agents that do not subclass it (duck-typed) are agents too: the drivers read the flags
through `uses_observation` / `uses_info_state` and ask `resets` about `reset`, which fall back
on those defaults. The env package owns the protocol because its own opponents (the
Gymnasium view's bots) are agents; the auto-play policy (`baohuang_env.autoplay`) and
`RandomAgent` are part of it. Other kinds register themselves: `register_agent("kind",
factory)`. The bots and the trained agents of the `agents` package do so in
`agents.register`, which its entry point in the `baohuang_env.agents` group names; it is
loaded on demand, so `make_agent("heuristic", ...)` works without an explicit `import agents`
while this package never imports it by name (and a stranger's module named `agents` that
shadows ours is told apart: `ShadowedPluginError`).

An agent spec is a string: a registered name ("random", "autoplay", ...) or "kind:arg"
(e.g. "dmc:runs/x/checkpoint.pt"; "python:MODULE:CLASS" for a user's own class,
`baohuang_env.user_agent`). Specs, not objects, travel to worker processes, so every agent
can be rebuilt anywhere from its spec.
"""

from __future__ import annotations

import inspect
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from importlib import import_module
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING, Any

import numpy as np

from .rules import Rules

if TYPE_CHECKING:
    from .game import Game
    from .infostate import InfoState

#: Entry point group whose modules register agent kinds when imported.
ENTRY_POINT_GROUP = "baohuang_env.agents"


class Agent(ABC):
    """Chooses an action for one seat from what that seat may see: the base class of agents.

    `act(observation, action_mask)` is the one method an agent must define: `observation` is
    the seat's float32 vector (`baohuang_env.encoding`, docs/observation.md), `action_mask`
    the int8 mask of legal actions, and the result must be a legal action id. Subclassing is
    optional: any object with `act` is an agent (`isinstance(obj, Agent)` holds for it), and
    what it leaves out takes the defaults below.

    `reset(seed)` is called at the start of each game with that game's seed; the default does
    nothing, and an agent that keeps it (`resets` is False) is built anew for every game the
    evaluation plays from a spec, so its `__init__` starts each game.

    `uses_observation` is False for an agent that reads only the mask: callers may then pass
    `NO_OBSERVATION` and skip encoding it, which makes games with such agents faster.

    An agent that searches sets `uses_info_state = True` and defines `act_info(info) -> int`:
    the drivers that hold the game (`act_in_game`, and `act_each` given `info`) then pass
    its seat's information state (`baohuang_env.infostate.InfoState`: its dealt hand and the
    public record, never the game itself) instead of calling `act`, at every decision with
    more than one legal move (they play a forced move for it). Such an agent may also define
    `unsearched_move(observation, mask) -> int | None`: its move at a decision it does not
    search, from the observation alone, or None where it searches; the drivers ask it first,
    and build the information state (a replay of the game) only for a None.
    """

    #: Whether `act` reads the observation (False: it gets `NO_OBSERVATION`).
    uses_observation: bool = True
    #: Whether the agent decides from its seat's information state (`act_info`).
    uses_info_state: bool = False

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The chosen action id, one that `action_mask` marks legal."""

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 (a default on purpose, not abstract)
        """Start a game played with `seed`; the default keeps no state and does nothing."""

    @classmethod
    def __subclasshook__(cls, other: type) -> bool | Any:
        """Duck-typed agents are agents: a class with a callable `act` is a virtual subclass."""
        if cls is Agent:
            return callable(getattr(other, "act", None)) or NotImplemented
        return NotImplemented


def uses_observation(agent: object) -> bool:
    """Whether `agent` reads the observation: its `uses_observation`, else `Agent`'s default."""
    return bool(getattr(agent, "uses_observation", Agent.uses_observation))


def uses_info_state(agent: object) -> bool:
    """Whether `agent` decides from its seat's information state (`act_info`): its
    `uses_info_state`, else `Agent`'s default."""
    return bool(getattr(agent, "uses_info_state", Agent.uses_info_state))


def resets(agent: object) -> bool:
    """Whether `agent` defines a `reset(seed)` of its own, not `Agent`'s no-op: an agent that
    does keeps its per-game state in what `reset` sets anew, so the evaluation may copy it for
    each game (`baohuang_eval.play.SpecSeats`) instead of building it again."""
    return getattr(type(agent), "reset", Agent.reset) is not Agent.reset


#: Given instead of an observation to agents that declare `uses_observation = False` (agents
#: that read only the mask): encoding is over half the cost of a game between such agents.
NO_OBSERVATION = np.zeros(0, dtype=np.float32)
NO_OBSERVATION.flags.writeable = False

#: kind -> factory(arg, rules, seed). `arg` is the text after "kind:" (None without one).
AgentFactory = Callable[[str | None, Rules, int | None], Agent]
AGENT_KINDS: dict[str, AgentFactory] = {}
_plugins_loaded = False
_plugins_lock = threading.RLock()


def register_agent(kind: str, factory: AgentFactory) -> None:
    """Make `make_agent(kind)` / `make_agent("kind:arg")` build agents with `factory`."""
    AGENT_KINDS[kind] = factory


class ShadowedPluginError(ImportError):
    """The module an agent plugin names is not the one its distribution installed: another
    module of the same name (a local `agents/` folder, say) stands earlier on `sys.path`."""


def _load_plugin(ep: EntryPoint) -> None:
    """Import the entry point's module and call its `register` function, which registers
    the module's kinds. A module without it is somebody else's of the same name: say which
    file it is and how to get ours back."""
    module = import_module(ep.module)
    register = getattr(module, ep.attr or "", None)
    if not callable(register):
        where = getattr(module, "__file__", None) or "a namespace folder " + ", ".join(getattr(module, "__path__", []))
        dist = ep.dist.name if ep.dist is not None else "its distribution"
        raise ShadowedPluginError(
            f"the module {ep.module!r} imported from {where} is not the one {dist} installed (it lacks "
            f"{ep.attr}() that registers the agent kinds: greedy, heuristic, dmc, ppo, pretrained, roles, "
            f"search): a folder or module named {ep.module!r} earlier on sys.path shadows it, usually one in "
            f"the current directory. Rename that folder, or run from another directory.")
    register()


def load_agent_plugins() -> None:
    """Load every plugin of the `baohuang_env.agents` entry point group once (each registers
    its kinds), so the kinds of installed packages are known."""
    global _plugins_loaded
    with _plugins_lock:  # a second thread waits until the kinds are all registered
        if _plugins_loaded:
            return
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            _load_plugin(ep)
        _plugins_loaded = True


def agent_kinds() -> list[str]:
    """Every kind `make_agent` can build, the installed plugins' included."""
    load_agent_plugins()
    return sorted(AGENT_KINDS)


def available_agents() -> str:
    """The kinds an agent spec may name, said in every error about an unknown kind (and where
    no agent was named at all)."""
    return (f"available agents: {agent_kinds()} (checkpoint agents are written kind:path, "
            "your own class python:MODULE:CLASS)")


def make_agent(spec: str, rules: Rules, seed: int | None = None) -> Agent:
    """Build an agent from its spec. Raises ValueError listing the known kinds."""
    kind, _, arg = spec.partition(":")
    if kind not in AGENT_KINDS:
        load_agent_plugins()
    if kind not in AGENT_KINDS:
        raise ValueError(f"unknown agent {spec!r}; {available_agents()}")
    return AGENT_KINDS[kind](arg or None, rules, seed)


def check_agent_class(cls: type, where: str) -> type:
    """`cls` if its objects are agents (it has a callable `act`, not an abstract one), else a
    ValueError that says what is missing: a user's class is checked before it is built."""
    if not issubclass(cls, Agent) or inspect.isabstract(cls):
        raise ValueError(f"{where}: {cls.__name__} is not an agent: it lacks act(observation, action_mask) -> int "
                         "(subclass baohuang_env.Agent, docs/agents.md)")
    return cls


def check_agent(agent: object, where: str) -> Agent:
    """`agent` if it follows the protocol, else a ValueError that says what is missing."""
    check_agent_class(type(agent), where)
    if uses_info_state(agent) and not callable(getattr(agent, "act_info", None)):
        raise ValueError(f"{where}: {type(agent).__name__} sets uses_info_state but lacks act_info(info) -> int")
    return agent


def act_one(agent: Agent, mask: np.ndarray, observe: Callable[..., np.ndarray], *args: object) -> int:
    """`agent.act` on `mask`, with the observation `observe(*args)` only when the agent reads
    one (`uses_observation`), else `NO_OBSERVATION`: the one rule by which every driver moves
    a bot. Baohuang-v0 calls it for its one game's opponents (`observe` = `Encoder.encode`,
    `args` = the game and the seat); `act_each` applies it to a batch of bots."""
    return int(agent.act(observe(*args) if uses_observation(agent) else NO_OBSERVATION, mask))


def forced_move(mask: np.ndarray) -> int | None:
    """The one legal move of a decision that has only one, else None: a searching agent is
    not asked about it (`act_in_game`, `act_each`, `SearchAgent.act_info`)."""
    legal = np.flatnonzero(mask)
    return int(legal[0]) if legal.size == 1 else None


def act_in_game(agent: Agent, game: Game, seat: int, encode: Callable[[Game, int], np.ndarray]) -> int:
    """`agent`'s move at `seat` of `game`, the seat to act: from the seat's information state
    when the agent searches (`uses_info_state`), else `act_one` with `encode(game, seat)`.
    What the drivers of one game call (`baohuang play`, the web sessions, Baohuang-v0)."""
    if uses_info_state(agent):
        from .infostate import info_state  # the game's reader: imported where a search agent plays

        mask = game.legal_mask()
        move = forced_move(mask)
        if move is None:
            move = unsearched_move(agent, lambda: encode(game, seat), mask)
        return move if move is not None else int(agent.act_info(info_state(game, seat)))
    return act_one(agent, game.legal_mask(), encode, game, seat)


def unsearched_move(agent: Agent, observation: Callable[[], np.ndarray], mask: np.ndarray) -> int | None:
    """A searching agent's move at a decision it does not search (`unsearched_move` of the
    agent, given `observation()`), or None where it searches or defines no such move."""
    quick = getattr(agent, "unsearched_move", None)
    return None if quick is None else quick(observation(), mask)


def act_each(agents: Sequence[Agent], masks: Sequence[np.ndarray],
             observe: Callable[[list[int]], np.ndarray],
             info: Callable[[list[int]], list[InfoState]] | None = None) -> list[int]:
    """`act_one` of `agents[j]` on `masks[j]` for every j, in order. The observations come from
    one `observe(indices)` call for just the agents with `uses_observation` (row i of its
    result for `indices[i]`); the others get `NO_OBSERVATION`. What every batched driver of
    bots calls (the evaluation's and the studies' games, `baohuang_eval.play.play_games`; the
    native vector env; the training games), so that an agent reading only the mask never
    costs an observation. Agents that search (`uses_info_state`) get `info(indices)`'s
    information states instead, and only at a decision with more than one legal move that
    they search (a forced move is played for them, and `unsearched_move` asked first: an
    information state costs a replay of the game); a driver without `info` refuses them."""
    searching = [j for j, agent in enumerate(agents) if uses_info_state(agent)]
    if searching:
        if info is None:
            raise ValueError(f"{type(agents[searching[0]]).__name__} searches from its seat's information state, "
                             "which this driver does not give: play it with baohuang eval, play or serve, or "
                             "Baohuang-v0's opponents")
        forced = {j: forced_move(masks[j]) for j in searching}
        chosen = {j: move for j, move in forced.items() if move is not None}
        asked = [j for j in searching if j not in chosen]
        quick = [j for j in asked if hasattr(agents[j], "unsearched_move")]
        if quick:
            seen = observe(quick)
            for j, obs in zip(quick, seen, strict=True):
                move = unsearched_move(agents[j], lambda obs=obs: obs, masks[j])
                if move is not None:
                    chosen[j] = move
            asked = [j for j in asked if j not in chosen]
        if asked:
            chosen.update(zip(asked, (int(agents[j].act_info(i)) for j, i in zip(asked, info(asked), strict=True)),
                              strict=True))
        rest = [j for j in range(len(agents)) if j not in chosen]
        moves = act_each([agents[j] for j in rest], [masks[j] for j in rest],
                         lambda js: observe([rest[j] for j in js])) if rest else []
        chosen.update(zip(rest, moves, strict=True))
        return [chosen[j] for j in range(len(agents))]
    seeing = [j for j, agent in enumerate(agents) if uses_observation(agent)]
    obs = dict(zip(seeing, observe(seeing), strict=True)) if seeing else {}
    randoms = [j for j, agent in enumerate(agents) if type(agent) is RandomAgent]
    if len(randoms) < RandomAgent.MIN_BATCH:
        # act_one's rule, written out: a call per agent would cost a tenth of the cheapest bots' move
        return [int(agent.act(obs.get(j, NO_OBSERVATION), mask))
                for j, (agent, mask) in enumerate(zip(agents, masks, strict=True))]
    if len(randoms) == len(agents):
        return RandomAgent.act_many(agents, np.asarray(masks))
    drawn = dict(zip(randoms, RandomAgent.act_many([agents[j] for j in randoms], np.asarray(masks)[randoms]),
                     strict=True))
    return [drawn[j] if j in drawn else int(agent.act(obs.get(j, NO_OBSERVATION), mask))
            for j, (agent, mask) in enumerate(zip(agents, masks, strict=True))]


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    uses_observation = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed at the start of an episode (the Gymnasium env calls this)."""
        self.rng = np.random.default_rng(seed)

    #: From how many random agents in one `act_each` call their moves are drawn by `act_many`.
    MIN_BATCH = 8

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The k-th legal action id (ascending) for k = `rng.integers(number legal)`. (Its
        compiled form, for a batch: `act_many`, and `BatchedGames.play_random`.)"""
        legal = np.asarray(action_mask).view(bool).nonzero()[0] if action_mask.dtype == np.int8 \
            else np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(legal.size)])

    @staticmethod
    def act_many(agents: Sequence[RandomAgent], masks: np.ndarray) -> list[int]:
        """`agents[j].act(_, masks[j])` for every j (int8 masks (n, N)), the same draws from
        each agent's own generator, with the legal counts, the draws (`draws.integers_below`,
        for generators on PCG64) and the k-th legal ids of all rows found in compiled passes
        over the batch instead of a `nonzero` and a numpy call per row."""
        # compiled: imported by a batch
        from .batched.draws import NEXT_UINT32, drawable, integers_below, state_addresses
        from .batched.kernels import kth_legal, legal_counts

        masks = (masks if masks.dtype.itemsize == 1 else masks != 0).view(np.uint8)
        counts = legal_counts(masks)
        rngs = [agent.rng for agent in agents]
        if all(map(drawable, rngs)):
            ks = integers_below(NEXT_UINT32, state_addresses(rngs), counts)  # `rngs` keeps the generators alive
        else:
            ks = np.array([rng.integers(c) for rng, c in zip(rngs, counts.tolist(), strict=True)], dtype=np.int64)
        return kth_legal(masks, ks).tolist()


def _user_agent(arg: str | None, rules: Rules, seed: int | None) -> Agent:
    """The "python" kind: a user's own class, `python:MODULE:CLASS` (`baohuang_env.user_agent`)."""
    from .user_agent import make_user_agent  # imports the user's module: loaded where one is asked for

    return make_user_agent(arg, rules, seed)


register_agent("random", lambda arg, rules, seed: RandomAgent(seed))
register_agent("python", _user_agent)
