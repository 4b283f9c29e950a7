"""# Baohuang (保皇)

| Import | `import baohuang_env; baohuang_env.env(preset="jj")` |
|---|---|
| Actions | Discrete (4036 for `jj`) |
| Parallel API | No |
| Manual control | No (`baohuang play`) |
| Agents | `agents= ['player_0', 'player_1', 'player_2', 'player_3', 'player_4']` |
| Number of agents | 5 |
| Action shape | (1,) |
| Action values | Discrete(N), N = 1 pass + 11 role decisions + the play table |
| Observation shape | (487,) for `jj`, plus an action mask of shape (N,) |
| Observation values | [0, 1] |

Baohuang is a five-player climbing game played with four decks (168 cards in the default
`jj` rules). The emperor (皇帝) and his guard (侍卫) play against three rebels; the guard may
stay hidden, so no one but the guard knows the teams. Players shed cards in tricks: a play is
any number of cards of one rank plus jokers, and it is beaten by a play of the same size
whose every card, sorted high to low, is strictly higher. See `docs/rules.md`.

### Observation space

`{"observation": float32 vector, "action_mask": int8 vector}` from the observing seat's point of
view: relative seat 0 is the observer, 1 the seat that plays after it, and so on. The vector's
slices (name, offset, length, scale) are in `baohuang_env.observation.observation_layout(rules)`
(whose `decode` gives the integer facts back) and in `docs/observation.md`: phase, own hand
(thermometer), unseen cards, cards left per seat, cards played per seat, passes in this trick,
places, the emperor, the emperor-card holder (role phase), the guard if known to the observer,
own role, open-guard/open-solo flags, the play to beat and its player, and the last 8 plays.
The mask is all zeros for seats not on turn.

### Action space

Action 0 is pass, 1..11 are role decisions (ACCEPT, ABDICATE, DECLINE, NO, OPEN_SOLO,
OPEN_GUARD, GRAB, REBEL, KICK, SURRENDER, APPLY_WIND; a preset uses some of them), then every
play (rank, n, small jokers, big jokers). `baohuang_env.action_table(rules).describe(id)` names
an id; `parse_play` and `action_id` go the other way.

### Rewards

At the end of the deal each seat receives its score under the preset's scoring (zero-sum except
in `qingdao`, where each seat gets its team's score), or with `reward_mode="win"` +1 / -1 / 0 by
the sign of its score (its side won, lost or drew).
No reward before the end. An illegal action ends the game in `env()` (PettingZoo's
TerminateIllegalWrapper) with `illegal_reward` for the offender, 0 for the others; `raw_env()`
raises `IllegalActionError`. An illegal move never pays better than the worst legal deal: the
default `illegal_reward=None` is the preset's worst score minus 1 with `reward_mode="score"`
(-25 for jj) and -1 with `reward_mode="win"`; a better explicit value is refused.

### Version history

* v0: initial release (jj rules).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .cards import NUM_SEATS
from .encoding import Encoder
from .game import Game, IllegalActionError
from .gym_env import check_env_arguments
from .rewards import check_reward_mode, illegal_move_reward, reward
from .text import render_for_mode
from .rules import get_rules


#: Attributes read on every step through the wrappers.
_HOT_ATTRIBUTES = ("agent_selection", "rewards", "terminations", "truncations", "infos", "agents",
                   "_cumulative_rewards", "possible_agents", "num_agents", "max_num_agents")
#: What OrderEnforcingWrapper refuses to show before reset().
_NEEDS_RESET = {"rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents"}


def _after_the_end(method: str) -> str:
    """What `method` says when called after the game ended and every agent was removed."""
    return f"{method}() called after the game ended and every agent was removed; call reset()"


def _forwarding(wrapper: type, order_enforcing: bool = False) -> type:
    """A subclass of a PettingZoo wrapper that forwards the per-step attributes with plain
    properties. The stock wrappers reach them through __getattr__, which Python calls only
    after a failed lookup at every level: half of a step's time here. Behaviour, including
    OrderEnforcingWrapper's errors before reset, is unchanged, and isinstance still holds.
    With `order_enforcing`, `last()` after the game says so (RuntimeError), as raw_env's does,
    instead of a KeyError on the removed agent."""

    def forward(name: str) -> property:
        if order_enforcing and name in _NEEDS_RESET:
            def get(self):
                if not self._has_reset:
                    raise AttributeError(f"{name} cannot be accessed before reset")
                return getattr(self.env, name)
        else:
            def get(self):
                return getattr(self.env, name)
        return property(get)

    namespace = {n: forward(n) for n in _HOT_ATTRIBUTES}
    if order_enforcing:
        def last(self, observe: bool = True):
            """AECEnv.last written out (it runs every step), but a clear RuntimeError, not a
            KeyError, after the game (checked only when the lookup fails)."""
            agent = self.agent_selection
            try:
                rewards = self._cumulative_rewards[agent]
            except KeyError:
                if self._has_reset and not self.env.agents:
                    raise RuntimeError(_after_the_end("last")) from None
                raise
            return (self.observe(agent) if observe else None, rewards, self.terminations[agent],
                    self.truncations[agent], self.infos[agent])
        namespace["last"] = last
    namespace["__module__"] = __name__
    return type(wrapper.__name__, (wrapper,), namespace)


class ActionOutOfBoundsError(AssertionError):
    """An action outside the action space given to `env()`. An AssertionError, as PettingZoo's
    AssertOutOfBoundsWrapper raises, but saying what the engine says of it (`Game.step`)."""


def _explained_out_of_bounds(wrapper: type) -> type:
    """`wrapper` (the forwarding AssertOutOfBoundsWrapper) whose refusal names the action,
    why it is not one (not an integer, or not an action id 0..N-1) and what is allowed now,
    in the words `Game.step` and `Baohuang-v0` use, instead of a bare "action is not in
    action space". Only a refused action costs anything more."""

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        dead = self.terminations[agent] or self.truncations[agent]
        if (action is None and dead) or self.action_space(agent).contains(action):
            return wrappers.BaseWrapper.step(self, action)
        n = self.action_space(agent).n
        try:
            self.unwrapped.game.copy().step(action)
            why = f"it is not one of the action ids 0..{n - 1}"
        except (TypeError, IllegalActionError) as err:
            why = f"{err} (action ids are 0..{n - 1})"
        raise ActionOutOfBoundsError(f"{agent}'s action {action!r} is not in the action space: {why}")

    return type(wrapper.__name__, (wrapper,), {"step": step, "__module__": __name__})


# Bound under the wrappers' own names, so that pickling finds them and str(env) reads as usual.
TerminateIllegalWrapper = _forwarding(wrappers.TerminateIllegalWrapper)
AssertOutOfBoundsWrapper = _explained_out_of_bounds(_forwarding(wrappers.AssertOutOfBoundsWrapper))
OrderEnforcingWrapper = _forwarding(wrappers.OrderEnforcingWrapper, order_enforcing=True)


def env(illegal_reward: float | None = None, **kwargs: Any) -> AECEnv:
    """The Baohuang AEC env inside PettingZoo's standard wrappers, as its classic envs do: an
    illegal move ends the game with `illegal_reward` for the offender (TerminateIllegalWrapper;
    default: the preset's worst legal reward, minus 1 in score mode, see
    `baohuang_env.rewards.illegal_move_reward`), actions out of range assert
    (AssertOutOfBoundsWrapper; `ActionOutOfBoundsError` says why and what is allowed), call
    order is enforced (OrderEnforcingWrapper). `kwargs` go to `raw_env`."""
    check_env_arguments("env()", kwargs, env, raw_env)
    e = raw_env(**kwargs)
    e = TerminateIllegalWrapper(e, illegal_reward=illegal_move_reward(e.rules, e.reward_mode, illegal_reward))
    e = AssertOutOfBoundsWrapper(e)
    return OrderEnforcingWrapper(e)


class raw_env(AECEnv, EzPickle):
    """Baohuang as a PettingZoo AEC env: a thin adapter over `baohuang_env.game.Game`."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"], "name": "baohuang_v0", "is_parallelizable": False, "render_fps": 1,
    }

    def __init__(self, preset: str = "jj", render_mode: str | None = None, reward_mode: str = "score",
                 **rule_overrides: Any) -> None:
        check_env_arguments("raw_env()", rule_overrides, raw_env)
        EzPickle.__init__(self, preset, render_mode, reward_mode, **rule_overrides)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            modes = self.metadata["render_modes"]
            raise ValueError(f"render_mode {render_mode!r} is not supported; use None or one of {modes}")
        check_reward_mode(reward_mode)
        self.rules = get_rules(preset, **rule_overrides)
        self.render_mode = render_mode
        self.reward_mode = reward_mode
        self.encoder = Encoder(self.rules)
        self.possible_agents = [f"player_{i}" for i in range(NUM_SEATS)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        n_actions = self.encoder.table.num_actions
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.encoder.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (n_actions,), dtype=np.int8),
        })
        self._action_space = spaces.Discrete(n_actions)
        self._no_mask = np.zeros(n_actions, dtype=np.int8)
        self._no_mask.flags.writeable = False
        self._np_random, _ = seeding.np_random(None)
        self.game: Game | None = None

    # EzPickle alone rebuilds a fresh env from the constructor arguments; keep the game too
    _RUNTIME = ("game", "agents", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos",
                "agent_selection", "_np_random")

    def __getstate__(self) -> dict[str, Any]:
        state = EzPickle.__getstate__(self)
        state["_runtime"] = {k: self.__dict__[k] for k in self._RUNTIME if k in self.__dict__}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        runtime = state.pop("_runtime", {})
        EzPickle.__setstate__(self, state)
        self.__dict__.update(runtime)

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        game = self.game
        mask = game.legal_mask() if seat == game.current_player else self._no_mask
        return {"observation": self.encoder.encode(game, seat), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        self.game = Game(self.rules, seed=int(self._np_random.integers(2**63 - 1)))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[self.game.current_player]


    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """As AECEnv.last (written out: this runs every step), but a clear RuntimeError, not a
        KeyError, after the game."""
        agent = self.agent_selection
        try:
            rewards = self._cumulative_rewards[agent]
        except KeyError:  # every agent was removed: the game is over
            raise RuntimeError(_after_the_end("last")) from None
        return (self.observe(agent) if observe else None, rewards, self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def step(self, action: int) -> None:
        """Apply the selected agent's action (a dead agent's must be None, as PettingZoo's
        API says). Raises IllegalActionError (state unchanged) for an illegal action,
        TypeError for a non-integer one, RuntimeError once every agent is done and removed."""
        try:
            dead = self.terminations[self.agent_selection] or self.truncations[self.agent_selection]
        except KeyError:  # every agent was removed: the game is over
            raise RuntimeError(_after_the_end("step")) from None
        if dead:
            return self._was_dead_step(action)
        agent = self.agent_selection
        self._cumulative_rewards[agent] = 0
        game = self.game
        game.step(action)
        if game.is_over:
            scores = game.result.scores
            for a, s in zip(self.agents, scores, strict=True):
                self.rewards[a] = reward(s, self.reward_mode)
                self.terminations[a] = True
                self.infos[a] = {"scores": list(scores), "places": list(game.result.places),
                                 "roles": list(game.result.roles)}
        else:
            self.agent_selection = self.agents[game.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        return render_for_mode(self.game, self.render_mode)

    def close(self) -> None:
        pass
