"""`HeuristicAgent`: the strongest scripted bot here, in pure Python + numpy.

It sees only its seat's observation (decoded by `SeatView`), the action mask and the static
action table. The pieces:

* **Card tracking.** The observation's unseen counts (cards neither in my hand nor played)
  are spread over the other hands in proportion to their sizes; a binomial model (`_Odds`)
  then gives, for any play, the chance that no threatening seat can beat it. Jokers are
  tracked the same way: once no big joker is unseen, a play with a small joker is as safe as
  one with a big joker. A play with a BJ can never be beaten.
* **Teams.** From `SeatView.team`: the emperor is public; the guard knows everyone; a rebel
  knows everyone once the guard is known (open guard, or the marked guard card was played);
  an emperor knows his guard only then. Seats of unknown side count as threats.
* **Going out.** A play that empties the hand is always made. When every group but the last
  can be led without losing the lead (safe on its own, or made safe with a joker), the bot
  leads the safe groups first and the last one after them; under hold-the-sixes the 6s are
  that last group, so every play before them must be safe (`_plan`). When following, a play
  that surely wins the trick and leaves such a hand is made even if it costs jokers.
* **Leading.** Otherwise it leads its weakest group: the lowest rank, whole, without jokers,
  since low cards are hard to shed by following (safe groups are kept for the finish).
* **Following.** A partner's play is never overtaken, unless that goes out or takes the lead
  into a sure finish. Any other play is beaten whenever a cheap play can (so the guard blocks
  the rebels' cheap leads, 挡牌, and a rebel never lets the emperor shed for free), with the
  cheapest play: cost counts each joker (6), each 2 (3), a little per rank, and above all
  breaking a group (3): a whole group that sheds a rank is preferred to a lower split one.
  Jokers and 2s are saved: they are spent only in the end game (at most `spend_at` cards left
  after the play), or to stop a known opponent holding at most `danger_left` cards.
* **Role phase.** Fitted decision models looked up by (preset, prompt kind)
  (`agents.bots.role_policy`, data in `agents/role_models/<preset>.json`): per answer, a linear
  estimate of the deciding seat's final score from its hand features (jokers, 2s, aces, kings,
  weak groups, lowest-rank cards; SP; abdications or rebels so far where they matter), fitted
  on counterfactual play-outs (`agents.bots.role_fit`); the bot gives the answer with the best
  estimate. Where a preset has no model of a prompt, or its model was not significantly better
  than the auto-play default, the bot gives the default of docs/rules.md §7
  (`baohuang_env.autoplay.RoleDefaults`). `roles="none"` plays the defaults everywhere and
  `roles=KIND[,KIND...]` uses those models only (the held-out checks of docs/role_models.md). It never
  applies for the wind (in the engine `APPLY_WIND` acts exactly as a pass, docs/rules.md §4.6).
"""

from __future__ import annotations

from functools import cache
from math import comb
from typing import TypeVar
from weakref import WeakValueDictionary

import numpy as np

from baohuang_env.cards import COPIES_PER_RANK
from baohuang_env.actions import FIRST_PLAY, PASS, action_table
from baohuang_env.rules import Rules

from ..guard_belief import guard_candidates
from .role_policy import RolePolicy
from ..view import OPPONENT, PARTNER, SeatView

#: Resolution of the share of unseen cards a seat holds, in the binomial lookup table.
_P_BINS = 64
_MAX_U = COPIES_PER_RANK
#: Jokers a seat is assumed to hold at most, in the beat model (the last bucket is "or more").
_MAX_J = 4
#: Small jokers in a play that the beat model tells apart (a play with more counts as this many).
_MAX_S = 4

_Index = TypeVar("_Index", int, np.ndarray)

#: Likelihood ratio of a guard's over a rebel's overtaking the emperor's play (`guard_belief`).
OVERTAKE_LIKELIHOOD = 0.2

#: Tunable play parameters (`HeuristicAgent(rules, **overrides)`).
DEFAULTS: dict[str, float] = {
    "joker_cost": 6.0,  # cost of each joker in a following play
    "two_cost": 3.0,  # extra cost of each 2
    "rank_cost": 0.05,  # cost per card per rank step above the 6
    "split_cost": 3.0,  # cost of breaking a group
    "spend_at": 8,  # spend jokers or 2s following when at most this many cards are left after
    "danger_left": 6,  # an opponent holding at most this many cards is stopped with jokers and 2s
    "safe_eps": 0.08,  # a play is "safe" when nobody can beat it with probability >= 1 - safe_eps
    "opp_joker_use": 0.5,  # how readily opponents are assumed to spend jokers to beat a play
}


@cache
def _binom_below() -> np.ndarray:
    """below[u, k, pb] = P(Binomial(u, p) < k) for p = pb / _P_BINS, k = 0 .. _MAX_U + 1."""
    p = np.arange(_P_BINS + 1) / _P_BINS
    pmf = np.zeros((_MAX_U + 1, _MAX_U + 1, _P_BINS + 1))
    for u in range(_MAX_U + 1):
        for x in range(u + 1):
            pmf[u, x] = comb(u, x) * p ** x * (1 - p) ** (u - x)
    below = np.zeros((_MAX_U + 1, _MAX_U + 2, _P_BINS + 1))
    below[:, 1:] = np.cumsum(pmf, axis=1)
    below = np.clip(below, 0.0, 1.0)
    below.flags.writeable = False
    return below


def _joker_odds(below: np.ndarray, jmax: int) -> np.ndarray:
    """(p bin, j): P(j jokers) for j < jmax, then P(>= jmax), from below[k, p bin] = P(< k jokers)."""
    odds = below[1:jmax + 2] - below[:jmax + 1]
    odds[-1] = 1.0 - below[jmax]
    return np.ascontiguousarray(odds.T)


def _odds_index(c: _Index, r: _Index, s: _Index, R: int) -> _Index:
    """How `_Odds.nobeat` names a play of c <= _MAX_U + 1 cards topped by rank r (-1: jokers
    only; R ranks) carrying s <= _MAX_S small jokers and no big joker (a play with more small
    jokers is named with _MAX_S): one int, for a batch of plays in one int array."""
    return (c * (R + 1) + r + 1) * (_MAX_S + 1) + s


class _Odds:
    """The card-tracking model of one decision with plays, built on first use (most early
    decisions never need it): the unseen cards of each kind are dealt to the threatening
    seats (`HeuristicAgent._threats`) independently, in proportion to their hand sizes.

    `nobeat(at)` is the probability that none of the seats can beat each play, the plays given
    by their `_odds_index`. A seat beats a play of c cards topped by rank r carrying s small
    jokers and no big joker when it holds >= s big jokers and c cards made of one rank above r
    plus its jokers; s small jokers alone are beaten only by s big jokers. Built once per
    decision: log-probability suffix sums over the ranks, from the bot's lookup tables
    (`HeuristicAgent._log_below`, `_joker_odds`, `_bj_ge`).

    `HeuristicAgent.decide` hands it out with the view it is made on (`view`), so that the
    advice read on the same decision neither decodes nor models it again.
    """

    __slots__ = ("_agent", "_bj_ge", "_needed", "_none", "_pj", "view")

    def __init__(self, agent: HeuristicAgent, v: SeatView) -> None:
        self._agent, self.view, self._none = agent, v, None

    def nobeat(self, at: np.ndarray | list[int]) -> np.ndarray:
        """P(no threat can beat each play), the plays given by their `_odds_index`."""
        if self._none is None:
            self._build()
        agent = self._agent
        c, rs = np.divmod(at, agent._odds_stride)
        col, s = np.divmod(rs, _MAX_S + 1)  # col: the top rank + 1
        none = self._none[:, col[:, None], self._needed[c]]  # (S, P, J): P(< c - j rank cards above r)
        bj_ge = self._bj_ge[:, s]
        can = (1.0 - (self._pj * none).sum(axis=2)) * bj_ge  # (S, P)
        jonly = agent._jokers_only[at]
        if jonly.any():
            can = np.where(jonly, bj_ge, can)
        return (1.0 - can).prod(axis=0)

    def _build(self) -> None:
        agent, v, R = self._agent, self.view, self._agent.R
        seats = agent._threats(v)
        left = v.cards_left.tolist()
        tot = float(sum(left[1:])) or 1.0
        share = [left[s] / tot for s in seats]  # (plain floats: a handful of seats)
        pb = np.array([int(x * _P_BINS + 0.5) for x in share], dtype=np.int64)  # (S,)
        pbj = [int(x * agent._joker_bins + 0.5) for x in share]
        u = v.unseen
        uJ = int(u[agent.SJ] + u[agent.BJ])
        self._pj = agent._joker_odds[uJ][pbj][:, None, :]  # (S, 1, J): P(j jokers), the last: j or more
        self._needed = agent._needed[uJ]  # [c, j]: rank cards still needed, max(c - j, 0)
        # log P(seat has < k of rank r'), ranks from the top, (S, R, k); suffix sums: none[s, j, k] =
        # P(seat s has < k of every rank >= j); index r + 1 answers "every rank above r" (r = -1: any rank)
        log_lt = agent._log_below[pb[:, None], u[R - 1::-1]]
        none = np.zeros((len(seats), R + 1, _MAX_U + 2))
        np.add.accumulate(log_lt, axis=1, out=none[:, R - 1::-1])
        np.exp(none, out=none)
        none[:, :, 0] = 0.0  # needing no rank card: the seat's jokers alone beat it
        self._none = none
        self._bj_ge = agent._bj_ge[int(u[agent.BJ])][pb]  # (S, s): P(>= s big jokers)


class _RecentDecisions:
    """The actions of the last `SIZE` decisions of one bot configuration (class, rules and
    parameters), whose action is a function of the observation and mask alone: every bot of
    the configuration shares them. Why: a DMC actor asks its advice's bot about a turn's
    taught decisions (one per game it plays at once, up to `SIZE`) and then its teacher, a
    second such bot, about each; the teacher's answers are lookups. The key is the inputs'
    content (dtype, shape and bytes), never their identity, so a reused buffer or another
    seat's decision is a miss; the oldest entry goes first. Kept while a bot of the
    configuration lives (`_RECENT` holds them weakly)."""

    SIZE = 256

    __slots__ = ("__weakref__", "_entries")

    def __init__(self) -> None:
        self._entries: dict[tuple, tuple[tuple, int]] = {}  # observation's key -> (mask's key, action)

    @staticmethod
    def key(obs: np.ndarray, mask: np.ndarray) -> tuple[tuple, tuple]:
        """(the observation's key, the mask's key) of one decision."""
        return (obs.dtype.str, obs.shape, obs.tobytes()), (mask.dtype.str, mask.shape, mask.tobytes())

    def get(self, key: tuple[tuple, tuple]) -> int | None:
        """The action remembered for these inputs, or None."""
        entry = self._entries.get(key[0])
        return entry[1] if entry is not None and entry[0] == key[1] else None

    def put(self, key: tuple[tuple, tuple], action: int) -> None:
        entries = self._entries
        entries.pop(key[0], None)  # (re)inserted last: the newest
        entries[key[0]] = (key[1], action)
        if len(entries) > self.SIZE:
            del entries[next(iter(entries))]


#: The recent decisions of each configuration: (class, rules, repr of the role models and sorted parameters) -> them.
_RECENT: WeakValueDictionary[tuple[type, Rules, str], _RecentDecisions] = WeakValueDictionary()


class HeuristicAgent:
    """A card-tracking, team-aware scripted bot (see the module docstring)."""

    uses_observation = True

    #: Finishing plans are only looked for when at most this many groups would have to be
    #: safe without a joker (keeps early decisions cheap; such hands almost never finish).
    MAX_NATURAL_SAFE = 4

    def __init__(self, rules: Rules, roles: str = "all", **params: float) -> None:
        """`roles`: the role-phase models to use, "all" (default), "none" (the auto-play
        defaults) or prompt kinds joined by commas (`agents.bots.role_policy.role_choices`); `params`: play
        parameters overriding `DEFAULTS`."""
        unknown = set(params) - set(DEFAULTS)
        if unknown:
            raise ValueError(f"unknown HeuristicAgent parameters {sorted(unknown)}; known: {sorted(DEFAULTS)}")
        self.p = {**DEFAULTS, **params}
        self.rules = rules
        t = action_table(rules)
        self.table = t
        kinds = t.kinds
        self.R = kinds.num_ranks
        self.SJ, self.BJ = kinds.sj, kinds.bj
        self.TWO = self.R - 1
        self._rank = t.rank.astype(np.int64)
        self._n = t.n.astype(np.int64)
        self._small = t.small.astype(np.int64)
        self._big = t.big.astype(np.int64)
        self._size = t.size.astype(np.int64)
        self._counts = t.counts.astype(np.int64)
        self._rank0 = np.maximum(self._rank, 0)
        two = (self._rank == self.TWO) & (self._n > 0)
        p = self.p
        # static part of a following play's cost (ties: fewer big jokers, then lower rank)
        self._cost = (p["joker_cost"] * (self._small + self._big) + p["two_cost"] * two * self._n
                      + p["rank_cost"] * self._rank0 * self._n + 0.001 * (self._big * 10 + self._small)
                      + 0.0001 * self._rank)
        self._split_cost = p["split_cost"]
        self._precious = two | (self._small > 0) | (self._big > 0)
        self._plain = (self._small == 0) & (self._big == 0) & (self._rank >= 0)  # ranked cards alone
        below = _binom_below()
        # the lookup tables of `_Odds`: log P(Binomial(u, p) < k) indexed [p bin, u, k]; P(>= s
        # big jokers) indexed [u][p bin, s]; the joker counts a seat holds (the last bucket:
        # _MAX_J or more) indexed [u][p bin, j]; the rank cards still needed, max(c - j, 0),
        # indexed [u][c, j]; each play's `_odds_index`; which indices are small jokers alone
        self._log_below = np.ascontiguousarray(np.log(np.maximum(below, 1e-300)).transpose(2, 0, 1))
        self._bj_ge = [np.ascontiguousarray((1.0 - below[u, :_MAX_S + 1]).T) for u in range(_MAX_U + 1)]
        self._joker_odds = [_joker_odds(below[u], min(u, _MAX_J)) for u in range(_MAX_U + 1)]
        cards = np.arange(_MAX_U + 2)
        self._needed = [np.maximum(cards[:, None] - cards[:min(u, _MAX_J) + 1], 0) for u in range(_MAX_U + 1)]
        self._odds_at = _odds_index(self._size, self._rank, np.minimum(self._small, _MAX_S), self.R)
        self._odds_stride = (self.R + 1) * (_MAX_S + 1)  # of c in an `_odds_index`
        c, rs = np.divmod(np.arange((_MAX_U + 2) * self._odds_stride), self._odds_stride)
        self._jokers_only = (rs // (_MAX_S + 1) == 0) & (rs % (_MAX_S + 1) == c)  # small jokers alone, by index
        self._joker_bins = p["opp_joker_use"] * _P_BINS
        self.hold_sixes = rules.hold_sixes
        self._plays_end = FIRST_PLAY + t.num_plays  # the call block (calling presets) follows the plays
        self.roles = RolePolicy(rules, roles)
        self._recent = _RECENT.setdefault((type(self), rules, repr((roles, sorted(self.p.items())))),
                                          _RecentDecisions())

    # ================================================================== entry point
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The bot's action; a lookup when a bot of this configuration decided on the same
        inputs lately (`_RecentDecisions`)."""
        obs, mask = np.asarray(observation), np.asarray(action_mask)
        key = _RecentDecisions.key(obs, mask)
        action = self._recent.get(key)
        if action is None:
            action = self._decide(obs, mask)[0]
            self._recent.put(key, action)
        return action

    def decide(self, observation: np.ndarray, action_mask: np.ndarray) -> tuple[int, _Odds | None]:
        """`act`'s action, and the card-tracking model it was made on (None when the mask has no
        play): its `view` is the decision's `SeatView`, and `nobeat(odds.view, plays, odds)`
        reads the same model. Always decides afresh, and remembers the action for `act`."""
        obs, mask = np.asarray(observation), np.asarray(action_mask)
        decision = self._decide(obs, mask)
        self._recent.put(_RecentDecisions.key(obs, mask), decision[0])
        return decision

    def _decide(self, observation: np.ndarray, mask: np.ndarray) -> tuple[int, _Odds | None]:
        # (nonzero() of a bool array is several times faster than of an int8 one)
        plays = mask[FIRST_PLAY:self._plays_end].astype(bool, copy=False).nonzero()[0]
        if plays.size == 0:
            if mask[PASS]:  # (never APPLY_WIND)
                return PASS, None
            return self.roles.choose(observation, mask), None
        v = SeatView(observation, self.rules)
        odds = _Odds(self, v)
        out = plays[self._size[plays] == int(v.hand.sum())]
        if out.size:  # go out
            return int(out[0]) + FIRST_PLAY, odds
        if not mask[PASS]:
            return self._lead(v, plays, mask, odds), odds
        return self._follow(v, plays, mask, odds), odds

    # ================================================================== per-play odds
    def nobeat(self, v: SeatView, plays: np.ndarray, odds: _Odds | None = None) -> np.ndarray:
        """P(no seat that may beat it can beat each play) for play indices `plays`, by the
        card-tracking model this bot plays on (`_Odds`; a play with a big joker is never
        beaten). `odds`: the model `decide` made its decision on `v` with, to reuse instead of
        building it again. Read by `agents.nets.advice`; the bot's own play does not call it."""
        if odds is None:
            odds = _Odds(self, v)
        elif odds.view is not v:
            raise ValueError("odds made on another view: pass their own (odds.view)")
        out = np.ones(plays.size)
        no_bj = self._big[plays] == 0
        if no_bj.any():
            out[no_bj] = odds.nobeat(self._odds_at[plays[no_bj]])
        return out

    # ================================================================== partner inference
    def guard_belief(self, observation: np.ndarray) -> np.ndarray:
        """P(guard = relative seat) as this bot would infer it (`baohuang study belief`); it
        does not play on it. Candidates are the seats whose side the observer does not know
        (`agents.nets.guard_head.guard_candidates`); among them, the bot's own convention is the
        evidence: a guard never overtakes the emperor's play (unless that finishes a hand),
        while a rebel beats it whenever a cheap play can. So each play of a candidate right
        over the emperor's, in the observation's recent history, divides its odds by
        1 / OVERTAKE_LIKELIHOOD. (Trick boundaries are not in the history: a play led
        after the emperor went out counts too, a rare error.)"""
        v = SeatView(observation, self.rules)
        weight = guard_candidates(v).astype(np.float64)
        if weight.sum() > 1 and v.emperor >= 0:
            seats, passes = v.history_seat.tolist(), v.history_pass.tolist()
            last = -1
            for seat, passed in zip(reversed(seats), reversed(passes), strict=True):  # oldest first
                if seat < 0 or passed:
                    continue
                if last == v.emperor and seat != v.emperor and weight[seat] > 0:
                    weight[seat] *= OVERTAKE_LIKELIHOOD
                last = seat
        return weight / weight.sum() if weight.any() else np.full(len(weight), 1.0 / len(weight))

    # ================================================================== finishing plan
    def _threats(self, v: SeatView) -> list[int]:
        """Other active seats that may beat my plays: everyone not known to be a partner."""
        return [s for s, (left, team) in enumerate(zip(v.cards_left.tolist(), v.team.tolist(), strict=True))
                if left > 0 and team != PARTNER]

    def _groups(self, hand: list[int]) -> list[int]:
        """Ranks held that may be led before the end (all ranks but the 6s under hold-the-sixes),
        of a hand given as a list of counts (plain Python: a dozen kinds)."""
        first = 1 if self.hold_sixes else 0
        return [r for r in range(first, self.R) if hand[r]]

    def _plan_possible(self, hand: list[int], n_groups: int) -> bool:
        """Cheap pre-check: at most MAX_NATURAL_SAFE groups would have to be safe without a joker."""
        allowed_open = 0 if (self.hold_sixes and hand[0]) else 1
        return n_groups <= hand[self.SJ] + hand[self.BJ] + allowed_open + self.MAX_NATURAL_SAFE

    def _plan(self, hand: list[int], safe: dict[tuple[int, int], tuple[bool, bool]]) -> list[int] | None:
        """A sequence of play indices that plays out `hand` (a list of counts) keeping the lead
        until the last play, or None. `safe[(rank, count)]` says whether that whole group is
        safe to lead plain, and with one small joker. Unsafe groups get a small joker where
        that suffices, else a big joker; spare jokers ride on the first play; under
        hold-the-sixes the 6s go last."""
        nS, nB = hand[self.SJ], hand[self.BJ]
        sixes = hand[0] if self.hold_sixes else 0
        ranks = self._groups(hand)
        table = self.table
        tail = [table.play_index(0, sixes, 0, 0)] if sixes else []
        if not ranks:
            return [table.play_index(-1, 0, nS, nB), *tail] if nS + nB else None
        allowed_open = 0 if sixes else 1
        need = [r for r in ranks if not safe[(r, hand[r])][0]]
        if len(need) > nB + nS + allowed_open:
            return None
        small = dict.fromkeys(ranks, 0)
        big = dict.fromkeys(ranks, 0)
        left_s, left_b = nS, nB
        open_groups = []
        for r in need:  # a small joker where it suffices ...
            if left_s and safe[(r, hand[r])][1]:
                small[r] = 1
                left_s -= 1
        for r in need:  # ... big jokers for the rest
            if not small[r]:
                if left_b:
                    big[r] = 1
                    left_b -= 1
                else:
                    open_groups.append(r)
        if len(open_groups) > allowed_open:
            return None
        last = open_groups[0] if open_groups else None
        seq = [r for r in ranks if r != last]
        if left_b or left_s:  # spare jokers ride on the first play (never on the 6s)
            host = seq[0] if seq else last
            big[host] += left_b
            small[host] += left_s
        if last is not None:
            seq.append(last)
        return [table.play_index(r, hand[r], small[r], big[r]) for r in seq] + tail

    def _safety(self, keys: list[tuple[int, int]], odds: _Odds,
                extra: np.ndarray | None = None) -> tuple[dict, np.ndarray | None]:
        """Safety of whole groups (rank, count), plain and with one small joker, in one batch
        with optional extra plays (play indices without a BJ): ({key: (plain, sj)}, extra_safe)."""
        sure = 1.0 - self.p["safe_eps"]
        k, R = len(keys), self.R
        at = [_odds_index(n, r, 0, R) for r, n in keys] + [_odds_index(n + 1, r, 1, R) for r, n in keys]
        if extra is not None and extra.size:
            at += self._odds_at[extra].tolist()
        ok = (odds.nobeat(at) >= sure).tolist() if at else []
        safe = {key: (ok[i], ok[k + i]) for i, key in enumerate(keys)}
        return safe, (np.array(ok[2 * k:], dtype=bool) if extra is not None else None)

    # ================================================================== leading
    def _lead(self, v: SeatView, plays: np.ndarray, mask: np.ndarray, odds: _Odds) -> int:
        h = v.hand.tolist()
        ranks = self._groups(h)
        if self._plan_possible(h, len(ranks)):
            safe, _ = self._safety([(r, h[r]) for r in ranks], odds)
            plan = self._plan(h, safe)
            if plan is not None and mask[plan[0] + FIRST_PLAY]:
                return plan[0] + FIRST_PLAY
        return self._weakest_lead(v, plays)

    def _weakest_lead(self, v: SeatView, plays: np.ndarray) -> int:
        """The lowest whole group without jokers (with only 6s and jokers left: all jokers)."""
        whole = plays[self._plain[plays] & (self._n[plays] == v.hand[self._rank0[plays]])]
        if whole.size == 0:
            return int(plays[np.argmax(self._size[plays])]) + FIRST_PLAY
        return int(whole[np.argmin(self._rank[whole])]) + FIRST_PLAY

    # ================================================================== following
    def _follow(self, v: SeatView, plays: np.ndarray, mask: np.ndarray, odds: _Odds) -> int:
        owner = v.trick_seat
        finisher = self._finishing_follow(v, plays, odds)
        if finisher is not None:
            return finisher
        if v.team[owner] == PARTNER:
            return PASS  # never overtake my own side's play
        # the cheapest play: static card costs, plus breaking a group
        r0 = self._rank0[plays]
        n = self._n[plays]
        cost = self._cost[plays] + self._split_cost * ((n > 0) & (n < v.hand[r0]))
        best = int(np.argmin(cost))
        pi = int(plays[best])
        if not self._precious[pi]:
            return pi + FIRST_PLAY
        # jokers and 2s: only in the end game, or to stop an opponent close to going out
        p = self.p
        if int(v.hand.sum()) - int(self._size[pi]) <= p["spend_at"]:
            return pi + FIRST_PLAY
        if v.team[owner] == OPPONENT and v.cards_left[owner] <= p["danger_left"]:
            return pi + FIRST_PLAY
        return PASS

    def _finishing_follow(self, v: SeatView, plays: np.ndarray, odds: _Odds) -> int | None:
        """A play that surely wins the trick, after which the rest of the hand plays out
        keeping the lead (`_plan`); the cheapest few such candidates are tried."""
        hand = v.hand
        h = hand.tolist()
        ranks = self._groups(h)
        if not self._plan_possible(h, len(ranks) + 1):  # a follow may remove one group
            return None
        keys = {(r, h[r]) for r in ranks}
        for r, n in set(zip(self._rank[plays].tolist(), self._n[plays].tolist(), strict=True)):
            if n and h[r] > n:
                keys.add((r, h[r] - n))
        keys = sorted(keys)
        big = self._big[plays]
        no_bj = plays[big == 0]
        safe, no_bj_safe = self._safety(keys, odds, no_bj)
        # candidates, cheapest first (fewest jokers, then lowest rank): safe plays without a
        # big joker, then plays with one
        good = np.concatenate([no_bj[no_bj_safe], plays[big > 0]])
        cand = good[np.lexsort((self._rank[good], self._small[good] + self._big[good]))][:8]
        counts = self._counts
        for pi in cand.tolist():
            rest = (hand - counts[pi]).tolist()
            if self._plan(rest, safe) is not None:
                return pi + FIRST_PLAY
        return None


__all__ = ["DEFAULTS", "HeuristicAgent"]
