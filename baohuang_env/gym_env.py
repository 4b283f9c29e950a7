"""A Gymnasium single-agent view of Baohuang (`Baohuang-v0`).

One learner seat; the other four seats are played inside `step` by given policies (default:
the auto-play 托管 bot of docs/rules.md §7). The observation is the learner's float32 vector (see
`baohuang_env.encoding`); the legal actions are in `info["action_mask"]` and
`env.action_masks()` (the MaskablePPO convention); once an episode is over they hold PASS
alone, the action that a vector env's next-step autoreset ignores (`action_masks`).

Vector envs: `gymnasium.make_vec("Baohuang-v0", num_envs=N)` (Gymnasium's sync or async
wrappers, next-step autoreset) stacks the masks in `info["action_mask"]` (N, A).

Illegal actions: check_env and unmasked samplers send any id in `Discrete(N)`. By default
(`illegal_action="terminate"`) an illegal action ends the episode at once with reward
`illegal_reward` and `info["illegal_action"] = True`, the game untouched, like PettingZoo's
TerminateIllegalWrapper. `illegal_action="raise"` raises `IllegalActionError`. An illegal move
never pays better than the worst legal deal, or an agent that ignores the mask would learn to
play one: the default `illegal_reward=None` is the preset's worst score minus 1 with
`reward_mode="score"` (-25 for jj) and -1 with `reward_mode="win"`; an explicit value better
than the worst legal reward is refused (`baohuang_env.rewards.illegal_move_reward`).
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from .actions import PASS
from .agent import Agent, act_in_game, check_agent, make_agent, resets
from .cards import NUM_SEATS
from .encoding import Encoder
from .game import Game, IllegalActionError
from .rewards import check_reward_mode, illegal_move_reward, reward
from .text import render_for_mode, render_table
from .rules import RULE_FLAGS, Rules, get_rules

ILLEGAL_ACTION_MODES = ("terminate", "raise")


#: Deals an env draws for one episode at most, each ending before the learner's first decision
#: (about one in twenty in qingdao with random opponents, never in the other presets).
MAX_DEALS_PER_EPISODE = 1000


def check_env_arguments(env_name: str, rule_overrides: Mapping[str, Any], *constructors: Callable[..., Any]) -> None:
    """Refuse the names among an env's `rule_overrides` (the keywords its constructors'
    `**kwargs` caught) that are neither a rule flag nor a named parameter of one of its
    `constructors` (read from their signatures): a `ValueError` that names each, with the
    closest argument or flag as a guess, and lists what `env_name` takes. The one message of
    every env adapter (`Baohuang-v0`, its native vector env, `env()`, `raw_env()`)."""
    flags = list(RULE_FLAGS)
    unknown = [name for name in rule_overrides if name not in flags]
    if not unknown:  # the signatures are read only when there is something to refuse
        return
    arguments = list(dict.fromkeys(
        p.name for c in constructors for p in inspect.signature(c).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)))
    unknown = [name for name in unknown if name not in arguments]
    if not unknown:
        return
    named = []
    for name in unknown:
        guess = difflib.get_close_matches(name, arguments + flags, n=1)
        named.append(f"{name!r} (did you mean {guess[0]}?)" if guess else repr(name))
    what = "rule flag or argument" if len(unknown) == 1 else "rule flags or arguments"
    raise ValueError(f"unknown {what} {', '.join(named)}: {env_name} takes {', '.join(arguments)}, "
                     f"or a rule flag: {', '.join(sorted(flags))}")


def episode_seeds(rng: np.random.Generator, learner_seat: int | str, opponents: Sequence[Agent]) -> tuple[int, int]:
    """(learner seat, deal seed) of an episode, drawn from the env's `rng` in this order: the
    learner seat (when "random"), each opponent's reset seed (the opponents are reset with
    it), the deal's seed. The one sequence `Baohuang-v0` and its native vector env
    (`gym_vector`) share: the same seeds give both the same episodes."""
    learner = int(rng.integers(NUM_SEATS)) if learner_seat == "random" else int(learner_seat)
    for agent in opponents:
        if resets(agent):
            agent.reset(int(rng.integers(2**31)))
    return learner, int(rng.integers(2**63 - 1))


def start_episode(rng: np.random.Generator, rules: Rules, learner_seat: int | str,
                  opponents: Sequence[Agent]) -> tuple[int, Game]:
    """(learner seat, new game) of an episode (`episode_seeds`)."""
    learner, seed = episode_seeds(rng, learner_seat, opponents)
    return learner, Game(rules, seed=seed)


class BaohuangGymEnv(gymnasium.Env):
    """Baohuang for one learner seat against fixed opponent policies."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(
        self,
        preset: str = "jj",
        opponents: str | Sequence[Any] = "autoplay",
        learner_seat: int | str = 0,
        reward_mode: str = "score",
        illegal_action: str = "terminate",
        illegal_reward: float | None = None,
        render_mode: str | None = None,
        **rule_overrides: Any,
    ) -> None:
        check_env_arguments("Baohuang-v0", rule_overrides, BaohuangGymEnv)
        self.rules = get_rules(preset, **rule_overrides)
        check_reward_mode(reward_mode)
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action {illegal_action!r} is not supported; use one of {ILLEGAL_ACTION_MODES}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not supported; use None, 'human' or 'ansi'")
        if not (learner_seat == "random" or learner_seat in range(NUM_SEATS)):
            raise ValueError(f"learner_seat must be 0..4 or 'random', got {learner_seat!r}")
        self.reward_mode, self.illegal_action = reward_mode, illegal_action
        #: The reward of the illegal move that ends an episode (see the module docstring).
        self.illegal_reward = illegal_move_reward(self.rules, reward_mode, illegal_reward)
        self.render_mode = render_mode
        self.learner_seat_option = learner_seat
        self.encoder = Encoder(self.rules)
        self.opponents = self._make_opponents(opponents)
        n_actions = self.encoder.table.num_actions
        self.observation_space = spaces.Box(0.0, 1.0, (self.encoder.size,), dtype=np.float32)
        self.action_space = spaces.Discrete(n_actions)
        self.game: Game | None = None
        self.learner = 0
        self._episode_over = True

    def _make_opponents(self, opponents: str | Sequence[Any]) -> list[Agent]:
        specs = [opponents] * (NUM_SEATS - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != NUM_SEATS - 1:
            raise ValueError(f"give one opponent name/agent or a list of 4, got {len(specs)}")
        return [make_agent(s, self.rules) if isinstance(s, str) else check_agent(s, f"opponent {i}")
                for i, s in enumerate(specs)]

    # ------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions. Once the episode is over it holds PASS
        alone: the action that a vector env's next-step autoreset ignores (that step resets
        this env), so the row of an env that just ended still offers a masked sampler one
        legal choice."""
        mask = np.zeros(self.action_space.n, dtype=bool)
        if self._episode_over:
            mask[PASS] = True
        elif self.game.current_player == self.learner:
            mask[:] = self.game.legal_mask()
        return mask

    def _obs_info(self, **extra: Any) -> tuple[np.ndarray, dict[str, Any]]:
        info = {"action_mask": self.action_masks().astype(np.int8), "seat": self.learner, **extra}
        return self.encoder.encode(self.game, self.learner), info

    def _play_opponents(self) -> None:
        """The opponents move until the learner is to act or the game ends, each by `act_in_game`
        (the rule every driver moves its bots by: an opponent that reads only the mask,
        `uses_observation` False as autoplay and random, gets no observation, which would cost
        more than its move). One game needs no batch: a one-row `BatchedGames` costs several
        times a scalar move (docs/batched.md)."""
        game, learner, opponents, encode = self.game, self.learner, self.opponents, self.encoder.encode
        while not game.is_over and (seat := game.current_player) != learner:
            agent = opponents[(seat - learner - 1) % NUM_SEATS]
            game.step(act_in_game(agent, game, seat, encode))

    def _reward(self) -> float:
        return float(reward(self.game.result.scores[self.learner], self.reward_mode))

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """A new episode: the next deal from the env's RNG (`start_episode`) played by the
        opponents up to the learner's first decision. A deal that ends before it (qingdao's
        surrender, when the opponents decide it) is no episode: the next deal is drawn."""
        super().reset(seed=seed)
        for _ in range(MAX_DEALS_PER_EPISODE):
            self.learner, self.game = start_episode(self.np_random, self.rules, self.learner_seat_option,
                                                    self.opponents)
            self._play_opponents()
            if not self.game.is_over:
                self._episode_over = False
                return self._obs_info()
        raise RuntimeError(f"{MAX_DEALS_PER_EPISODE} deals in a row ended before the learner's first decision")

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        game = self.game
        if self._episode_over:
            raise RuntimeError("step() called after the episode ended; call reset()")
        try:
            game.step(action)  # a non-integer action raises TypeError in any illegal_action mode
        except IllegalActionError as err:
            if self.illegal_action == "raise":
                raise
            self._episode_over = True  # the game itself is left as it was
            obs, info = self._obs_info(illegal_action=True, reason=str(err))
            return obs, float(self.illegal_reward), True, False, info
        self._play_opponents()
        if self.render_mode == "human":
            print(render_table(game))
        if game.is_over:
            self._episode_over = True
            obs, info = self._obs_info(scores=list(game.result.scores), roles=list(game.result.roles))
            return obs, self._reward(), True, False, info
        obs, info = self._obs_info()
        return obs, 0.0, False, False, info

    def render(self) -> str | None:
        return render_for_mode(self.game, self.render_mode)
