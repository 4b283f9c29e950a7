"""A native Gymnasium vector env of `Baohuang-v0`: N games, one learner seat each, stepped together.

    envs = gymnasium.make_vec("Baohuang-v0", num_envs=256, vectorization_mode="vector_entry_point",
                              opponents="random")

It gives the same trajectories as `vectorization_mode="sync"` (N `BaohuangGymEnv`s in
Gymnasium's SyncVectorEnv) for the same seeds and actions: every env draws its episodes from
its own `np_random` through the same `gym_env.episode_seeds`, and its opponents are its own
agents built from the same specs. The N games are the rows of one `BatchedGames` on the array
engine (`baohuang_env.batched.kernels`: the play phase on compiled kernels), so the moves, masks
and observations are made for all envs at once, and the opponents of all envs move in rounds
(one move in every env that waits on an opponent, then the next), with no per-env wrapper or
stacking step. Envs whose four opponents are all `RandomAgent`s play their play phase up to the
learner's turn in one compiled call (`BatchedGames.play_random`: the same moves, the same
draws from each agent's generator). Opponents given as agent objects rather than specs are
shared by every env, as in "sync"; if they keep state, the order of their calls (round by
round here, env by env there) can make the two differ.

Autoreset (`autoreset_mode`, in `metadata["autoreset_mode"]`, as Gymnasium's vector envs say
it): `AutoresetMode.NEXT_STEP` (the default) — an env that ended shows PASS alone in its mask,
and its next step's action is ignored while it resets; `AutoresetMode.SAME_STEP` — it resets
within the step that ended it, its final observation and info in `info["final_obs"]` and
`info["final_info"]` (as SyncVectorEnv's same-step mode puts them), so every row is a live
decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .actions import PASS
from .agent import Agent, RandomAgent, act_each
from .batched.games import BatchedGames, BatchStep
from .cards import NUM_SEATS
from .batched.draws import drawable, state_addresses
from .game import GameResult, IllegalActionError
from .gym_env import MAX_DEALS_PER_EPISODE, BaohuangGymEnv, check_env_arguments, episode_seeds
from .rewards import reward


class BaohuangVectorEnv(VectorEnv):
    """N games of `Baohuang-v0` in one process; the arguments are BaohuangGymEnv's, but it
    renders nothing: a `render_mode` other than None is refused (Gymnasium's
    `vectorization_mode="sync"` renders each env, in the modes of `Baohuang-v0`)."""

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, preset: str = "jj", opponents: str | Sequence[Any] = "autoplay",
                 learner_seat: int | str = 0, reward_mode: str = "score", illegal_action: str = "terminate",
                 illegal_reward: float | None = None, autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 render_mode: str | None = None, **rule_overrides: Any) -> None:
        check_env_arguments("BaohuangVectorEnv", rule_overrides, BaohuangVectorEnv)
        if render_mode is not None:
            modes = BaohuangGymEnv.metadata["render_modes"]
            raise ValueError(f"render_mode {render_mode!r} is not supported by the native vector env, which renders "
                             f"nothing: use render_mode=None, or vectorization_mode='sync' (render modes {modes})")
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        modes = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
        if autoreset_mode not in modes and autoreset_mode not in [m.value for m in modes]:
            raise ValueError(f"autoreset_mode must be one of {[m.value for m in modes]}, got {autoreset_mode!r}")
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        # one scalar env checks the arguments and owns the spaces, the rules and the encoder
        first = BaohuangGymEnv(preset, opponents, learner_seat, reward_mode, illegal_action, illegal_reward,
                               **rule_overrides)
        self.num_envs = num_envs
        self.rules, self.encoder = first.rules, first.encoder
        self.reward_mode, self.illegal_action, self.illegal_reward = reward_mode, illegal_action, first.illegal_reward
        self.learner_seat_option = learner_seat
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(first.observation_space, num_envs)
        self.action_space = batch_space(first.action_space, num_envs)
        #: Each env's four opponents, in seat order after its learner (as BaohuangGymEnv.opponents).
        self.opponents: list[list[Agent]] = [first.opponents] + [
            first._make_opponents(opponents) for _ in range(num_envs - 1)]
        self._rngs: list[np.random.Generator | None] = [None] * num_envs
        #: The N games, one row each.
        self.batch = BatchedGames(self.rules, num_envs, autoreset="none", observe=False, records=False,
                                  engine="arrays")
        self._step: BatchStep | None = None  # what the batch showed last
        self._results: dict[int, GameResult] = {}  # games that ended since the learners last acted
        self.learners = np.zeros(num_envs, dtype=np.int64)
        self._over = np.ones(num_envs, dtype=bool)  # the episode is over (the game ended, or an illegal move)
        self._autoreset = np.zeros(num_envs, dtype=bool)  # ended at the last step: reset at this one
        self._masks = np.zeros((num_envs, first.action_space.n), dtype=np.int8)
        # envs whose opponents all move at random (`_note_random_opponents`)
        self._all_random = np.zeros(num_envs, dtype=bool)
        self._rng_states = np.zeros((num_envs, NUM_SEATS), dtype=np.uint64)
        self._random_rngs: list[list[np.random.Generator] | None] = [None] * num_envs

    def action_masks(self) -> np.ndarray:
        """(N, A) bool masks of the learners' legal actions; PASS alone in an env whose episode is over."""
        return self._masks.astype(bool)

    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new episode in every env; `seed` as in Gymnasium's vector envs (an int seeds
        env i with seed + i, a list gives each env its own, None continues each env's RNG)."""
        seeds = [None] * self.num_envs if seed is None else (
            [seed + i for i in range(self.num_envs)] if isinstance(seed, int) else list(seed))
        if len(seeds) != self.num_envs:
            raise ValueError(f"give one seed per env: {self.num_envs}, got {len(seeds)}")
        for i, s in enumerate(seeds):
            if s is not None or self._rngs[i] is None:
                self._rngs[i], _ = seeding.np_random(s)
        self._step = self.batch.reset(self._new_episodes(range(self.num_envs)))
        self._over[:] = False
        self._autoreset[:] = False
        self._results.clear()
        self._begin(np.arange(self.num_envs), dealt=True)
        return self._observe(), self._infos({})

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learners' actions (N,); an env that ended at the last step resets instead."""
        if self._step is None:
            raise RuntimeError("reset() the env before stepping it")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,):
            raise ValueError(f"give one action per env: {self.num_envs}, got shape {acts.shape}")
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        extras: dict[int, dict[str, Any]] = {}
        if (self._over & ~self._autoreset).any():
            raise RuntimeError("step() called after the episode ended; call reset()")  # as BaohuangGymEnv
        restart = np.flatnonzero(self._autoreset)
        moving = np.flatnonzero(~self._autoreset)
        ids = np.zeros(self.num_envs, dtype=np.int64)
        legal = np.ones(self.num_envs, dtype=bool)
        for i in moving.tolist():
            a = acts[i]
            legal[i] = isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) and \
                0 <= a < self._masks.shape[1] and bool(self._masks[i, a])
            ids[i] = a if legal[i] else PASS
        for i in moving[~legal[moving]].tolist():  # the game's own check says why; the game stays as it was
            err = self._illegal(i, acts[i])
            if self.illegal_action == "raise" or isinstance(err, TypeError):  # not an action id: always raised
                raise err
            self._over[i] = terminated[i] = True
            rewards[i] = self.illegal_reward
            extras[i] = {"illegal_action": True, "reason": str(err)}
        moved = moving[legal[moving]]
        self._results.clear()
        if moved.size:
            self._record(self.batch.step(ids, rows=moved))
        self._play_opponents(moved)
        if restart.size:
            self._begin(restart)
        for i in moved.tolist():  # the learners that moved: their games may have ended since
            result = self._results.get(i)
            if result is not None:
                self._over[i] = terminated[i] = True
                rewards[i] = float(reward(result.scores[self.learners[i]], self.reward_mode))
                extras[i] = {"scores": list(result.scores), "roles": list(result.roles)}
        if self.autoreset_mode == AutoresetMode.SAME_STEP and terminated.any():
            return self._reset_ended(terminated, rewards, extras)
        self._autoreset = terminated.copy()
        return self._observe(), rewards, terminated, np.zeros(self.num_envs, dtype=bool), self._infos(extras)

    def _illegal(self, i: int, action: Any) -> Exception:
        """The error the game itself gives for env i's learner's `action` (a rare path: the
        game is rebuilt, and tried on a copy)."""
        try:
            self.batch.games[i].copy().step(action)
        except (IllegalActionError, TypeError) as err:
            return err
        raise AssertionError(f"env {i}: its mask refused an action its game accepts")  # the masks are the game's

    def _reset_ended(self, ended: np.ndarray, rewards: np.ndarray, extras: dict[int, dict[str, Any]]
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """SAME_STEP: the envs that `ended` at this step start their next episode now; their
        final observation and info go into `final_obs` / `final_info`, the infos of the new
        episode's first decision in their place (as SyncVectorEnv does it)."""
        rows = [int(i) for i in np.flatnonzero(ended)]
        final_obs = self.batch.observe(rows, self.learners[rows])
        over_mask = np.zeros(self._masks.shape[1], dtype=np.int8)
        over_mask[PASS] = 1  # an ended episode's mask (`action_masks`)
        final_infos = [{"action_mask": over_mask.copy(), "seat": int(self.learners[i]), **extras[i]} for i in rows]
        self._begin(np.array(rows, dtype=np.int64))
        obs = self._observe()
        infos: dict[str, Any] = {}
        for i, final, info in zip(rows, final_obs, final_infos, strict=True):
            infos = self._add_info(infos, {"final_obs": final, "final_info": info}, i)
        infos.update(self._infos({}))  # only the envs that ended have extras, and they are final
        return obs, rewards, ended, np.zeros(self.num_envs, dtype=bool), infos

    def _begin(self, rows: np.ndarray, dealt: bool = False) -> None:
        """New episodes in envs `rows` (already dealt when `dealt`), each played by its
        opponents up to its learner's first decision; a deal that ends before it is no
        episode, and the env's next deal is drawn (as `BaohuangGymEnv.reset` does)."""
        for _ in range(MAX_DEALS_PER_EPISODE):
            if not dealt:
                self._step = self.batch.reset_rows(rows.tolist(), self._new_episodes(rows.tolist()))
            dealt = False
            self._over[rows] = False
            self._play_opponents(rows)
            rows = rows[self._step.seat[rows] < 0]
            if not rows.size:
                return
        raise RuntimeError(f"{MAX_DEALS_PER_EPISODE} deals in a row ended before the learner's first decision")

    def _new_episodes(self, rows: Sequence[int]) -> list[int]:
        """The deal seeds of envs `rows`' next episodes, each from its own RNG (`episode_seeds`,
        as BaohuangGymEnv.reset); their learner seats into `learners`."""
        deals = []
        for i in rows:
            self.learners[i], deal = episode_seeds(self._rngs[i], self.learner_seat_option, self.opponents[i])
            deals.append(deal)
            self._note_random_opponents(i)
        return deals

    def _note_random_opponents(self, i: int) -> None:
        """Whether env i's four opponents are `RandomAgent`s on PCG64 generators, whose moves
        `BatchedGames.play_random` then makes in the play phase; their generators' states
        by seat (the generators kept alive beside them: a reset opponent has a new one)."""
        opponents = self.opponents[i]
        rngs = [getattr(agent, "rng", None) for agent in opponents]
        self._all_random[i] = all(type(a) is RandomAgent for a in opponents) and all(map(drawable, rngs))
        if self._all_random[i]:
            seats = (self.learners[i] + 1 + np.arange(NUM_SEATS - 1)) % NUM_SEATS
            self._rng_states[i, seats] = state_addresses(rngs)
            self._random_rngs[i] = rngs

    def _record(self, step: BatchStep) -> None:
        self._step = step
        for b, result, _record in step.ended:
            self._results[b] = result

    def _play_opponents(self, rows: np.ndarray) -> None:
        """The opponents move in rounds until, in every env of `rows`, the learner is to act or
        the game is over; an opponent with `uses_observation` False gets no observation."""
        learners, opponents = self.learners, self.opponents
        while True:
            seats = self._step.seat
            waiting = rows[(seats[rows] >= 0) & (seats[rows] != learners[rows])]
            randoms = waiting[self._all_random[waiting]]
            randoms = randoms[self.batch.in_play_phase(randoms)]
            if randoms.size:  # their play phases in one compiled call, up to the learner's turn
                self._record(self.batch.play_random(randoms, learners[randoms], self._rng_states[randoms]))
                continue
            if not waiting.size:
                return
            agents = [opponents[i][(s - learners[i] - 1) % NUM_SEATS]
                      for i, s in zip(waiting.tolist(), seats[waiting].tolist(), strict=True)]
            moves = np.zeros(self.num_envs, dtype=np.int64)
            moves[waiting] = act_each(agents, self._step.mask[waiting],
                                      lambda js, waiting=waiting: self.batch.observe(waiting[js]))
            self._record(self.batch.step(moves, rows=waiting))

    def _observe(self) -> np.ndarray:
        """The learners' observations; the masks of their legal actions into `_masks`."""
        self._masks[:] = self._step.mask
        self._over |= self._step.seat < 0
        if self._over.any():
            self._masks[self._over] = 0
            self._masks[self._over, PASS] = 1
        return self.batch.observe(np.arange(self.num_envs), self.learners)

    def _infos(self, extras: dict[int, dict[str, Any]]) -> dict[str, Any]:
        """The infos as SyncVectorEnv stacks BaohuangGymEnv's: every env's mask and seat, and
        the end-of-episode entries of the envs that ended."""
        everyone = np.ones(self.num_envs, dtype=bool)
        infos: dict[str, Any] = {"action_mask": self._masks.copy(), "_action_mask": everyone,
                                 "seat": self.learners.copy(), "_seat": everyone.copy()}
        for i in sorted(extras):
            infos = self._add_info(infos, extras[i], i)
        return infos


__all__ = ["BaohuangVectorEnv"]
