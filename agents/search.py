"""Decision-time search: sample the hidden hands, play each candidate move out, pick the best.

Perfect Information Monte Carlo (Skat's Kermit, Bridge's GIB, SchafkopfRL's PIMC), over a
base policy. Before the endgame (`endgame`: more cards left in all hands than that) it plays
the base policy's move; from there on, at each decision with more than one legal move,
`SearchAgent`:

1. takes the candidates: the base policy's top `top` moves by its values (its own move
   first), plus PASS where legal;
2. samples `worlds` games the seat cannot tell apart from the true one, from its information
   state alone (`baohuang_env.resample.resample_info`: its dealt hand, the public record, the
   roles as far as it knows them), the hidden guard card's seat drawn from a belief
   (`sampler`: "informed" weights it by the heuristic bot's `guard_belief`, "prior" by the
   deal alone; "uniform", the baseline, ignores the roles and the hands beyond what a legal
   replay needs, `resample_info(uniform=True)`); "policy" draws `pool` x `w` worlds from the
   prior and keeps `w` of them in proportion to how likely the other seats' moves were in
   each under the base policy at temperature `tau` (`agents.play_belief`);
3. plays every candidate out in every world with `rollout` at all five seats, all worlds and
   candidates as the rows of one `BatchedGames` (the batched engine's compiled play phase),
   to the end of the deal (or for `depth` of the seat's own turns, then scored by the base
   network's values);
4. estimates each candidate's advantage over the base policy's move paired world by world
   (`Paired`: the mean of result(candidate) - result(base move) over the same worlds, with its
   standard error; `objective`: "win" is the sign of the score, as the shipped agents were
   trained; "score" the score itself), and leaves the base move only for a candidate whose
   mean difference is above `t` and whose lower bound, mean - `k` x SE, is above zero: of those,
   the largest difference. The worlds are played out `batch` at a time (sequential sampling,
   `race`) until a candidate clears that test, every other is pruned (mean + `k` x SE below
   `t`), or the worlds or the time are spent. With t=0, k=0 and every world in one batch
   (batch=0), this is the candidate with the best mean result, ties to the base policy's move
   (the rule before the paired defaults).
   With `double=1` each deviation is estimated again on fresh worlds and rollout seeds, not
   for the choice but for `SearchStats`, per phase of the deal (`PHASES`): how much of a
   deviation's estimated gain is real and how much is the noise that picked it.

It sees nothing hidden: drivers give it its seat's `InfoState` (`uses_info_state`), never the
game. Spec: `search[:KEY=VALUE:...]` (colons between: `baohuang serve`'s lists are
comma-separated), keys `w` (worlds), `m` (top moves), `rollout` (greedy, heuristic, random,
base), `depth` (the seat's own play-phase turns before the base's values score a play-out;
-1: to the end), `endgame` (search once at most that many cards are left in all hands; 0:
every decision), `stop` (search only while more than that many cards are left: with `endgame`,
one phase of the deal, e.g. `endgame=120:stop=80`; 0: to the end), `t` (the least mean
advantage over the base move to leave it), `k` (the standard errors the advantage's lower
bound must keep above zero), `batch` (worlds played out at a time, 1 to `w`; 0: all at once),
`double` (1: re-estimate every deviation), `tau` and `pool` (sampler=policy), `limit`
(milliseconds: no fresh world is drawn after half of it, and the play-outs still running when
one more batch step and the scoring would overrun it are scored by the base's values, so a
decision stays within it; 0: none), `sampler` (informed, policy, prior, uniform), `objective` (win,
score), and `base=SPEC` last (default `pretrained`: the preset's shipped agent), e.g.
`search:w=8:m=3:rollout=greedy:base=dmc:agents/pretrained/dmc_kickstart_jj.pt`. The defaults
(16 worlds, 4 at a time, 3 moves, base rollouts to the end, from 50 cards left, t=0.1, k=2)
were chosen on tuning deals: searching earlier in the deal gained nothing measurable, and the
plain argmax (t=0, k=0, batch=0) deviated from the base on noise (docs/search.md has the
method, its limits and the measurements)."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import asdict, astuple, dataclass, field

import numpy as np

from baohuang_env.actions import PASS
from baohuang_env.agent import Agent, RandomAgent, act_each, forced_move, make_agent
from baohuang_env.cards import NUM_SEATS
from baohuang_env.game import Game
from baohuang_env.infostate import InfoState
from baohuang_env.observation import observation_layout
from baohuang_env.resample import ResampleError, advance, resample_info
from baohuang_env.rewards import REWARD_MODES, reward
from baohuang_env.rules import Rules

from .play_belief import PlayBelief

ROLLOUTS = ("base", "greedy", "heuristic", "random")
#: Play-phase moves in which a seat still holding cards has its next turn (the four others
#: each act at most once in between): a play-out that reaches `TURN_PLIES * depth` moves
#: without the searching seat's turn is one where that seat has gone out.
TURN_PLIES = 5
SAMPLERS = ("informed", "policy", "prior", "uniform")
OBJECTIVES = REWARD_MODES
#: The phases of a deal by the cards left in all hands together, as (label, fewest cards left),
#: first match: the buckets `SearchStats` counts its decisions and re-estimates in (`phase`).
PHASES = ((">120", 121), ("120-81", 81), ("80-51", 51), ("50-0", 0))


def phase(cards: int) -> str:
    """The label of the phase of a deal with `cards` left in all hands together (`PHASES`)."""
    return next(label for label, least in PHASES if cards >= least)


@dataclass(frozen=True)
class SearchSettings:
    """How much a decision searches, and with what (module docstring)."""

    worlds: int = 16
    top: int = 3
    rollout: str = "base"
    sampler: str = "informed"
    objective: str = "win"
    depth: int = -1
    limit_ms: int = 0
    endgame: int = 50
    stop: int = 0
    thresh: float = 0.1
    k: float = 2.0
    batch: int = 4
    double: int = 0
    tau: float = 0.03
    pool: int = 2
    base: str = "pretrained"

    def __post_init__(self) -> None:
        for name, value in (("t", self.thresh), ("k", self.k)):
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"search: {name} must be a number >= 0, got {value}")
        if not (math.isfinite(self.tau) and self.tau > 0):
            raise ValueError(f"search: tau (the policy belief's temperature) must be a number > 0, got {self.tau}")
        if self.pool < 1:
            raise ValueError(f"search: pool (worlds drawn per world searched, sampler=policy) must be >= 1, "
                             f"got {self.pool}")
        if self.batch < 0:
            raise ValueError(f"search: batch is the worlds played out at a time, 1 or more (w={self.worlds} "
                             f"or more, or 0: all w at once), got {self.batch}")
        if self.double not in (0, 1):
            raise ValueError(f"search: double is 1 (re-estimate every deviation on fresh worlds) or 0, "
                             f"got {self.double}")
        if self.endgame < 0:
            raise ValueError(f"search: endgame must be 0 (search every decision) or the cards left in all hands "
                             f"at most which a decision is searched, got {self.endgame}")
        if self.stop < 0 or (self.endgame and self.stop >= self.endgame):
            below = f", below endgame={self.endgame}" if self.endgame else ""
            raise ValueError(f"search: stop must be 0 (search to the end of the deal) or the cards left in all "
                             f"hands at most which a decision is no longer searched{below}; got {self.stop}")
        if self.limit_ms < 0:
            raise ValueError(f"search: limit must be 0 (none) or a number of milliseconds, got {self.limit_ms}")
        if self.depth == 0 or self.depth < -1:
            raise ValueError(f"search: depth is the seat's own turns to play out before scoring (1 or more), "
                             f"or -1 to the end of the deal; got {self.depth}")
        if self.worlds < 1 or self.top < 1:
            raise ValueError(f"search needs w >= 1 worlds and m >= 1 moves, got w={self.worlds} m={self.top}")
        for name, value, allowed in (("rollout", self.rollout, ROLLOUTS), ("sampler", self.sampler, SAMPLERS),
                                     ("objective", self.objective, OBJECTIVES)):
            if value not in allowed:
                raise ValueError(f"search: {name}={value!r} is not one of {', '.join(allowed)}")

    @classmethod
    def parse(cls, arg: str | None) -> SearchSettings:
        """Settings from a spec's argument: "w=8:m=3:rollout=greedy:base=SPEC", colons between
        (the lists of `baohuang serve` are comma-separated); `base` last: its spec has colons."""
        if not arg:
            return cls()
        head, sep, base = arg.partition("base=")
        if sep and head and not head.endswith(":"):
            raise ValueError(f"search: write base=SPEC last, after a colon (got {arg!r})")
        keys = {"w": "worlds", "m": "top", "rollout": "rollout", "sampler": "sampler", "objective": "objective",
                "depth": "depth", "limit": "limit_ms", "endgame": "endgame", "stop": "stop", "t": "thresh",
                "k": "k", "batch": "batch", "double": "double", "tau": "tau", "pool": "pool"}
        numbers = {"w": int, "m": int, "depth": int, "limit": int, "endgame": int, "stop": int, "batch": int,
                   "double": int, "t": float, "k": float, "tau": float, "pool": int}
        values: dict[str, object] = {"base": base} if sep else {}
        for item in filter(None, head.split(":")):
            key, eq, value = item.partition("=")
            if not eq or key not in keys:
                raise ValueError(f"search: unknown setting {item!r}; settings: {', '.join(keys)}, base (last)")
            kind = numbers.get(key, str)
            try:
                values[keys[key]] = kind(value)
            except ValueError:
                raise ValueError(f"search: {key} must be {'an integer' if kind is int else 'a number'}, "
                                 f"got {value!r}") from None
        if sep and not base:
            raise ValueError("search: base= needs an agent spec, e.g. base=pretrained")
        return cls(**values)

    @property
    def spec(self) -> str:
        return (f"search:w={self.worlds}:m={self.top}:rollout={self.rollout}:sampler={self.sampler}:"
                f"objective={self.objective}:depth={self.depth}:limit={self.limit_ms}:endgame={self.endgame}:"
                f"stop={self.stop}:t={_number(self.thresh)}:k={_number(self.k)}:batch={self.batch}:"
                f"double={self.double}:tau={_number(self.tau)}:pool={self.pool}:base={self.base}")

    @property
    def batch_worlds(self) -> int:
        """The worlds played out at a time: `batch` (at most `worlds`), or all `worlds` at once (0)."""
        return min(self.batch, self.worlds) or self.worlds


def _number(x: float) -> str:
    """A float setting as the spec writes it: "0", "2", "0.1" (exactly, so that it parses back)."""
    return str(int(x)) if x.is_integer() else repr(x)


@dataclass(frozen=True)
class Paired:
    """A candidate's advantage over the base policy's move, paired world by world: over the
    worlds both were played out in, the mean of result(candidate) - result(base move), its
    standard error (infinite under two worlds), and the worlds where it did better and worse."""

    gain: float
    se: float
    worlds: int
    better: int
    worse: int

    @classmethod
    def of(cls, results: np.ndarray, i: int) -> Paired:
        """Candidate `i`'s estimate from `results` (worlds, candidates; NaN where it was not
        played out; column 0 the base move). The mean difference is taken as mean(candidate) -
        mean(base move), equal to the mean of the differences and, so written, positive exactly
        when the candidate's mean is above the base move's (today's argmax rule at t=0, k=0)."""
        played = ~np.isnan(results[:, i])
        mine, base = results[played, i], results[played, 0]
        d = mine - base
        se = float(d.std(ddof=1) / math.sqrt(d.size)) if d.size > 1 else math.inf
        return cls(float(mine.mean() - base.mean()), se, int(d.size), int((d > 0).sum()), int((d < 0).sum()))

    def clears(self, thresh: float, k: float) -> bool:
        """Whether the search may leave the base move for it: a gain above `thresh` whose lower
        bound gain - k * SE is above zero."""
        return self.gain > thresh and (self.gain - k * self.se if k else self.gain) > 0

    def pruned(self, thresh: float, k: float) -> bool:
        """Whether it is out of the race: its upper bound gain + k * SE is below `thresh`."""
        return (self.gain + k * self.se if k else self.gain) < thresh


@dataclass
class SearchResult:
    """One searched decision: the candidates (the base policy's move first), their mean
    results over the worlds each was played out in, their paired estimates against the base
    move (`Paired`; the base move's own is all zeros), the worlds played out, and the choice."""

    candidates: list[int]
    means: list[float]
    worlds: int
    choice: int
    seconds: float
    estimates: list[Paired] = field(default_factory=list)


@dataclass
class PhaseStats:
    """A phase of the deal's searched decisions (`PHASES`): how many, how many left the base
    move, and the re-estimates of those deviations' gains (`double=1`): their number, sum and
    sum of squares, for a mean and its confidence interval (`gain`)."""

    searched: int = 0
    deviations: int = 0
    reestimates: int = 0
    gain_sum: float = 0.0
    gain_squares: float = 0.0

    def gain(self) -> tuple[float, float] | None:
        """The mean re-estimated gain of a deviation and its standard error (None under two)."""
        n = self.reestimates
        if n < 2:
            return None
        mean = self.gain_sum / n
        var = max(0.0, (self.gain_squares - n * mean * mean) / (n - 1))
        return mean, math.sqrt(var / n)

    def merged(self, other: PhaseStats) -> PhaseStats:
        return PhaseStats(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))


@dataclass
class SearchStats:
    """What an agent's decisions cost and did: every decision asked, the time searching, the
    failed draws, the play-outs (rows played to the end or scored), and per phase of the deal
    (`PhaseStats`) the decisions searched, the deviations and their re-estimates. Mergeable
    (`merged`, over agents or runs) and serialisable (`to_dict`, `from_dict`)."""

    decisions: int = 0  # decisions it was asked (the drivers play a forced move without asking)
    seconds: float = 0.0
    failed: int = 0  # decisions where no world could be sampled (the base policy's move is played)
    playouts: int = 0
    phases: dict[str, PhaseStats] = field(default_factory=lambda: {label: PhaseStats() for label, _ in PHASES})

    @property
    def searched(self) -> int:
        return sum(p.searched for p in self.phases.values())

    @property
    def changed(self) -> int:
        """Searched decisions where the choice is not the base policy's move."""
        return sum(p.deviations for p in self.phases.values())

    def merged(self, other: SearchStats) -> SearchStats:
        return SearchStats(self.decisions + other.decisions, self.seconds + other.seconds,
                           self.failed + other.failed, self.playouts + other.playouts,
                           {label: p.merged(other.phases[label]) for label, p in self.phases.items()})

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> SearchStats:
        return cls(d["decisions"], d["seconds"], d["failed"], d["playouts"],
                   {label: PhaseStats(**d["phases"][label]) for label, _ in PHASES})


class SearchAgent:
    """PIMC over a base policy (module docstring)."""

    uses_observation = True
    uses_info_state = True

    def __init__(self, rules: Rules, settings: SearchSettings | None = None, seed: int | None = None,
                 base: Agent | None = None) -> None:
        self.rules = rules
        self.settings = settings = settings or SearchSettings()
        self.base = base if base is not None else make_agent(settings.base, rules)
        if not hasattr(self.base, "values_many"):
            raise ValueError(f"search needs a base agent with action values (a DMC checkpoint), "
                             f"not {settings.base!r}")
        from .bots.heuristic import HeuristicAgent

        self._belief = HeuristicAgent(rules) if settings.sampler == "informed" else None
        self._play_belief = PlayBelief(self.base, rules, settings.tau) if settings.sampler == "policy" else None
        self._rollout = self._rollout_agent(settings.rollout)
        #: Whether greedy play-outs to the end play their play phase in one compiled call
        #: (`BatchedGames.play_greedy`), not a move at a time through `GreedyAgent.act` (the
        #: same moves: tests/test_search.py compares the two).
        self.compiled_rollout = settings.rollout == "greedy" and settings.depth < 0
        self.rng = np.random.default_rng(seed)
        self._fresh = _fresh_rng(seed)
        self.stats = SearchStats()
        self._games = self._batch()  # built now: its first build loads the compiled engine (about a second)
        self._scoring = 0.0  # seconds the last scoring by the base's values took (the deadline's reserve)
        self._particles: dict[int, list[Game]] = {}  # per seat: the worlds of its last decision
        self._loglik: dict[int, np.ndarray] = {}  # sampler=policy: per seat, those worlds' log-likelihoods

    def _rollout_agent(self, name: str) -> Agent:
        if name == "base":
            return self.base
        if name == "random":
            return RandomAgent(0)
        return make_agent(name, self.rules)

    def reset(self, seed: int | None = None) -> None:
        """A new game: fresh generators for the worlds, the re-estimates and the random rollouts
        (the counters stay)."""
        self.rng = np.random.default_rng(seed)
        self._fresh = _fresh_rng(seed)
        self._particles, self._loglik = {}, {}
        if isinstance(self._rollout, RandomAgent):
            self._rollout = RandomAgent(None if seed is None else seed + 1)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise ValueError("the search agent decides from its seat's information state (act_info); this driver "
                         "gives only an observation: play it with baohuang eval, play or serve")

    def act_info(self, info: InfoState) -> int:
        """The move for the seat of `info` (its information state, the seat to act): the
        forced one, the base policy's at a decision it does not search, else the search's."""
        self.stats.decisions += 1
        forced = forced_move(info.mask)
        if forced is not None:
            return forced
        if not self.searches(info.observation):
            return int(self.base.act(info.observation, info.mask))
        return self.search(info).choice

    def unsearched_move(self, observation: np.ndarray, mask: np.ndarray) -> int | None:
        """The base policy's move at a decision before the endgame, None where it searches: the
        drivers ask this first and build the information state only for a None."""
        if self.searches(observation):
            return None
        self.stats.decisions += 1
        return int(self.base.act(observation, mask))

    def searches(self, observation: np.ndarray) -> bool:
        """Whether a decision is searched: always, or with `endgame` N once at most N cards are
        left in all hands together (public: the observation's `cards_left`), and with `stop` L
        only while more than L are."""
        endgame, stop = self.settings.endgame, self.settings.stop
        if not (endgame or stop):
            return True
        left = cards_left(observation, self.rules)
        return (not endgame or left <= endgame) and left > stop

    def candidates(self, info: InfoState) -> list[int]:
        """The base policy's top moves by value (its own move first), and PASS where legal."""
        legal = np.flatnonzero(info.mask)
        q = np.asarray(self.base.action_values(info.observation, legal, info.mask))
        order = np.argsort(-q, kind="stable")[:self.settings.top]
        moves = [int(legal[i]) for i in order]
        if info.mask[PASS] and PASS not in moves:
            moves.append(PASS)
        return moves

    def guard_weights(self, info: InfoState) -> list[float] | None:
        """Per absolute seat, the weight of each candidate to hold the hidden guard card:
        the heuristic's `guard_belief` ("informed"), or None (the deal's own prior)."""
        if self._belief is None or len(info.guard_seats) < 2:
            return None
        rel = self._belief.guard_belief(info.observation)
        w = [0.0] * NUM_SEATS
        for r in range(NUM_SEATS):
            w[(info.viewer + r) % NUM_SEATS] = float(rel[r])
        if sum(w[s] for s in info.guard_seats) <= 0:
            return None
        return w

    def search(self, info: InfoState) -> SearchResult:
        """Sample, play out, choose (module docstring); with `double=1`, re-estimate a deviation."""
        start = time.perf_counter()
        moves = self.candidates(info)
        if len(moves) == 1:
            return SearchResult(moves, [0.0], 0, moves[0], 0.0)
        limit = self.settings.limit_ms / 1000
        results, best = self.race(info, moves, start + limit / 2 if limit else None, start + limit if limit else None)
        if not results.size:
            return SearchResult(moves, [0.0] * len(moves), 0, moves[0], time.perf_counter() - start)
        seconds = time.perf_counter() - start
        estimates = [Paired.of(results, i) for i in range(len(moves))]
        self.stats.seconds += seconds
        self.stats.playouts += int(np.count_nonzero(~np.isnan(results)))
        bucket = self.stats.phases[phase(cards_left(info.observation, self.rules))]
        bucket.searched += 1
        if best:
            bucket.deviations += 1
            if self.settings.double:
                self._reestimate(info, [moves[0], moves[best]], estimates[best].worlds, bucket)
        means = [float(np.nanmean(results[:, i])) for i in range(len(moves))]
        return SearchResult(moves, means, len(results), moves[best], seconds, estimates)

    def race(self, info: InfoState, moves: list[int], draw_by: float | None = None,
             play_by: float | None = None) -> tuple[np.ndarray, int]:
        """Sequential sampling: the worlds in batches (`world_batches`, drawn up to `draw_by`), each
        batch's worlds x the candidates still in the race played out together (the base move always,
        `play_out` up to `play_by`), until a candidate clears the test (`Paired.clears`), every other
        is pruned (`Paired.pruned`), or the worlds or the time are spent. Returns the results
        (worlds, candidates; NaN where a pruned candidate was not played out) and the index of the
        choice: of the candidates that clear the test, the largest gain; 0 (the base move) if none."""
        t, k = self.settings.thresh, self.settings.k
        results = np.empty((0, len(moves)))
        live, best = list(range(1, len(moves))), 0
        for worlds in self.world_batches(info, draw_by):
            rows = np.full((len(worlds), len(moves)), np.nan)
            at = [0, *live]
            rows[:, at] = self.play_out(info.viewer, worlds, [moves[i] for i in at], play_by)
            results = np.vstack([results, rows])
            estimates = {i: Paired.of(results, i) for i in live}
            cleared = [i for i in live if estimates[i].clears(t, k)]
            if cleared:
                best = max(cleared, key=lambda i: estimates[i].gain)  # ties to the first (the base's order)
                break
            live = [i for i in live if not estimates[i].pruned(t, k)]
            if not live:
                break
        return results, best

    def _reestimate(self, info: InfoState, pair: list[int], worlds: int, bucket: PhaseStats) -> None:
        """An independent second estimate of a deviation's gain over the base move (`pair`: the
        base move, the choice), on `worlds` fresh worlds with fresh rollout seeds from a generator
        of its own (the choice's worlds and the agent's later draws untouched), added to `bucket`:
        a measure of how much of the search's estimated gain is selection noise, not used to choose."""
        fresh = self.draw(info, worlds, self._fresh)
        if not fresh:
            return
        results = self.play_out(info.viewer, fresh, pair, seeds=self._fresh)
        gain = Paired.of(results, 1).gain
        bucket.reestimates += 1
        bucket.gain_sum += gain
        bucket.gain_squares += gain * gain

    def world_batches(self, info: InfoState, deadline: float | None = None) -> Iterator[list[Game]]:
        """`settings.worlds` games the seat cannot tell from its information state, `batch` at a
        time: those of its last decision that still agree with it, stepped on (`resample.advance`:
        a particle filter with the seat's observations as its 0/1 likelihood), and fresh draws
        (`resample_info`) for the rest, as long as `deadline` (a `perf_counter` time) allows (at
        least one world; no batch is begun past it). The worlds used are kept for the next decision."""
        want, size = self.settings.worlds, self.settings.batch_worlds
        if self._play_belief is not None:
            chosen = self._believed(info, deadline)
            for at in range(0, len(chosen), size):
                yield chosen[at:at + size]
            return
        uniform = self.settings.sampler == "uniform"
        pool = [w for w in self._particles.get(info.viewer, []) if advance(w, info, not uniform) is not None][:want]
        self._particles[info.viewer] = pool
        weights = self.guard_weights(info) if len(pool) < want else None
        used = 0
        while used < want and not (used and self._past(deadline)):
            batch = pool[used:used + size]
            while len(batch) < size and used + len(batch) < want and not ((used or batch) and self._past(deadline)):
                try:
                    batch.append(resample_info(info, self.rng, weights, uniform=uniform))
                except ResampleError:
                    self.stats.failed += 1
                    want = used + len(batch)
                    break
                pool.append(batch[-1])
            if not batch:
                return
            used += len(batch)
            yield batch

    def _believed(self, info: InfoState, deadline: float | None) -> list[Game]:
        """sampler=policy: the worlds of the seat's last decision stepped on and rescored by the
        belief, and fresh draws to make `pool` x `worlds` candidates (at least one fresh draw
        when none is kept; none begun past `deadline`), of which `worlds` are chosen in
        proportion to their likelihood under the base policy (`PlayBelief.choose`) and kept for
        the next decision."""
        want = self.settings.worlds
        kept, loglik = self._play_belief.score(self._particles.get(info.viewer, []), info)
        earlier = self._loglik.get(info.viewer, np.zeros(len(kept)))
        alive = [i for i, w in enumerate(kept) if w is not None]
        worlds, loglik = [kept[i] for i in alive], (earlier + loglik)[alive]
        fresh = self._scored_draws(info, self.settings.pool * want - len(worlds), self.rng, deadline,
                                   at_least=0 if worlds else 1)
        worlds += fresh[0]
        loglik = np.concatenate([loglik, fresh[1]])
        chosen = PlayBelief.choose(loglik, want, self.rng)
        self._particles[info.viewer] = [worlds[i] for i in chosen]
        self._loglik[info.viewer] = loglik[chosen]
        return list(self._particles[info.viewer])

    def _scored_draws(self, info: InfoState, n: int, rng: np.random.Generator, deadline: float | None = None,
                      at_least: int = 0) -> tuple[list[Game], np.ndarray]:
        """Up to `n` fresh worlds (the deal's prior) with the log-likelihood of their whole
        history under the belief (`PlayBelief.score` of each from its start); the draws stop at
        `deadline` once `at_least` are in, or at a failed draw."""
        drawn: list[Game] = []
        for _ in range(max(0, n)):
            if len(drawn) >= at_least and self._past(deadline):
                break
            try:
                drawn.append(resample_info(info, rng).restarted())
            except ResampleError:
                self.stats.failed += 1
                break
        worlds, loglik = self._play_belief.score(drawn, info)
        ok = [i for i, w in enumerate(worlds) if w is not None]  # (the draws passed the same check)
        return [worlds[i] for i in ok], loglik[ok]

    def worlds(self, info: InfoState, deadline: float | None = None) -> list[Game]:
        """All the worlds of `world_batches` at once."""
        return [world for batch in self.world_batches(info, deadline) for world in batch]

    def draw(self, info: InfoState, n: int, rng: np.random.Generator) -> list[Game]:
        """`n` fresh worlds from `rng` (fewer where a draw fails), none kept for later decisions
        (sampler=policy: chosen by the belief from `pool` x `n` draws)."""
        if self._play_belief is not None:
            worlds, loglik = self._scored_draws(info, self.settings.pool * n, rng)
            return [worlds[i] for i in PlayBelief.choose(loglik, n, rng)]
        uniform = self.settings.sampler == "uniform"
        weights = self.guard_weights(info)
        drawn: list[Game] = []
        for _ in range(n):
            try:
                drawn.append(resample_info(info, rng, weights, uniform=uniform))
            except ResampleError:
                break
        return drawn

    @staticmethod
    def _past(deadline: float | None) -> bool:
        return deadline is not None and time.perf_counter() > deadline

    def play_out(self, viewer: int, worlds: list[Game], moves: list[int], deadline: float | None = None,
                 seeds: np.random.Generator | None = None) -> np.ndarray:
        """The result for `viewer` of each move in each world, (len(worlds), len(moves)): each (world, move) played
        out by the rollout policy at every seat, all as rows of one batch (common random numbers:
        the base's and the scripted rollouts are deterministic, and random rollouts draw each
        world's moves from one seed shared by its candidates, drawn from `seeds`, by default the
        rollout's own generator; `_random_rows`), until `viewer`'s
        `depth`-th turn of the play phase after the move (-1: to the end), where the base
        network's value for `viewer` scores it: its own best Q there, one estimator for every
        candidate. A row whose seat has gone out before that turn is scored where it stands
        after `TURN_PLIES * depth` play-phase moves, by the acting seat's values (signed), and
        so is every row still playing once `deadline` (a `perf_counter` time) leaves no room
        for one more step of the batch and the scoring after it, each as long as it took before
        (`_over_time`): the play-outs end within the deadline, not one step and a scoring past it.
        Greedy rollouts to the end (`compiled_rollout`) play the play-phase rows out in one
        compiled call (`BatchedGames.play_greedy`); rows in their role phase step as above."""
        began = time.perf_counter()
        results = np.zeros((len(worlds), len(moves)))
        flat = results.reshape(-1)  # row w * len(moves) + i: world w, move i
        games, owner = [], []
        for w, world in enumerate(worlds):
            for i, move in enumerate(moves):
                g = world.copy()
                g.step(move)
                if g.is_over:
                    flat[w * len(moves) + i] = self._result(g.result.scores[viewer])
                else:
                    games.append(g)
                    owner.append(w * len(moves) + i)
        if not games:
            return results
        depth = self.settings.depth
        batch = self._games
        rows = np.arange(len(games))
        randoms = self._random_rows([b // len(moves) for b in owner], len(worlds), seeds)
        step = batch.load_rows(rows, games)
        actions = np.zeros(batch.num_games, dtype=np.int64)
        played = np.zeros(batch.num_games, dtype=np.int64)  # play-phase moves made by each row
        turns = np.zeros(batch.num_games, dtype=np.int64)  # viewer's play-phase turns reached by each row
        lap_start = time.perf_counter()
        lap = lap_start - began  # the longest step so far; at first, setting the rows up
        while True:
            for b, result, _record in step.ended:
                flat[owner[b]] = self._result(result.scores[viewer])
            live = rows[step.seat[rows] >= 0]
            play = live[batch.in_play_phase(live)] if live.size else live
            cut = live[:0]  # the rows scored here by the base's values
            if depth > 0 and live.size:
                mine = play[step.seat[play] == viewer]
                turns[mine] += 1
                cut = np.union1d(mine[turns[mine] >= depth], play[played[play] >= TURN_PLIES * depth])
            if self._over_time(deadline, lap):
                cut = live
            if cut.size:
                scoring = time.perf_counter()
                roles = [batch.roles(b) for b in cut.tolist()]
                values = self._values(batch.observe(cut), step.mask[cut], step.seat[cut].tolist(),
                                      [(r.emperor, r.guard) for r in roles], viewer)
                flat[[owner[b] for b in cut.tolist()]] = values
                live, play = np.setdiff1d(live, cut), np.setdiff1d(play, cut)
                self._scoring = time.perf_counter() - scoring
            if not live.size:
                return results
            if self.compiled_rollout and play.size:  # the play-phase rows to the end, in one call
                step = batch.play_greedy(play)
                continue
            played[play] += 1
            actions[live] = self._rollout_moves(batch, live, step.mask[live], randoms)
            step = batch.step(actions, live)
            now = time.perf_counter()
            lap, lap_start = max(lap, now - lap_start), now

    def _over_time(self, deadline: float | None, lap: float) -> bool:
        """Whether the play-outs must stop now to end by `deadline`: one more step of the
        batch (`lap` seconds, the longest so far) and then scoring every row still playing
        (as long as the last scoring, or a step's time before any) would pass it."""
        if deadline is None:
            return False
        return time.perf_counter() + lap + max(lap, self._scoring) > deadline

    def _random_rows(self, world_of_row: list[int], worlds: int,
                     seeds: np.random.Generator | None) -> list[RandomAgent] | None:
        """For random rollouts, each row's own random player, seeded by its world's seed (one per
        world from `seeds`, by default the rollout's generator): the candidates of one world
        draw the same numbers. None for the other rollouts."""
        if not isinstance(self._rollout, RandomAgent):
            return None
        world_seeds = (seeds or self._rollout.rng).integers(2**63, size=worlds)
        return [RandomAgent(int(world_seeds[w])) for w in world_of_row]

    def _rollout_moves(self, batch, live: np.ndarray, masks: np.ndarray,
                       randoms: list[RandomAgent] | None) -> np.ndarray:
        """The rollout policy's moves in the rows `live`: the base network's as one batch
        (`DMCAgent.act_many`), the random rows' own players (`randoms`), another policy's
        row by row (`act_each`)."""
        if self._rollout is self.base:
            at, legal = np.nonzero(masks)
            counts = np.bincount(at, minlength=len(masks))
            return self.base.act_many(batch.observe(live), masks, legal, counts)
        players = [randoms[b] for b in live.tolist()] if randoms is not None else [self._rollout] * live.size
        return np.asarray(act_each(players, masks, lambda js: batch.observe(live[js])))

    def _values(self, observations: np.ndarray, masks: np.ndarray, seats: list[int],
                royals: list[tuple[int, int]], viewer: int) -> np.ndarray:
        """The base network's value of each position for `viewer`: the acting seat's best Q
        (its expected result), with the sign of its side against the viewer's in that world
        (the emperor and the guard against the rebels)."""
        v = self.base.values_many(observations, masks).astype(np.float64)
        same = np.array([(seat in royal) == (viewer in royal) for seat, royal in zip(seats, royals, strict=True)])
        return np.where(same, v, -v)

    def _batch(self):
        """A batch for the play-outs: a row per (world, candidate), made once per agent."""
        from baohuang_env.batched.games import BatchedGames

        rows = self.settings.worlds * (self.settings.top + 1)
        games = BatchedGames(self.rules, rows, autoreset="none", observe=False, engine="arrays")
        games.reset([0] * rows)
        return games

    def _result(self, score: int) -> float:
        return reward(score, self.settings.objective)


def _fresh_rng(seed: int | None) -> np.random.Generator:
    """The generator of the re-estimates' worlds and rollout seeds (`double=1`): its own, so that
    re-estimating changes none of the agent's choices."""
    return np.random.default_rng(None if seed is None else (seed, 36))


def cards_left(observation: np.ndarray, rules: Rules) -> int:
    """The cards left in all hands together, read from a seat's observation (its layout's
    `cards_left` slice and scale)."""
    at = observation_layout(rules)["cards_left"]
    return int(np.rint(observation[at.span] * at.scale).sum())


def make_search(arg: str | None, rules: Rules, seed: int | None) -> SearchAgent:
    """The `search[:KEY=VALUE:...]` agent kind (module docstring)."""
    return SearchAgent(rules, SearchSettings.parse(arg), seed)


__all__ = ["OBJECTIVES", "PHASES", "ROLLOUTS", "SAMPLERS", "Paired", "PhaseStats", "SearchAgent", "SearchResult",
           "SearchSettings", "SearchStats", "make_search", "phase"]
