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
* **Role phase.** Linear hand-strength models (`features`: jokers, 2s, aces, kings, weak
  groups, 6s), fitted on counterfactual self-play, decide: without the guard card the throne
  is always accepted (abdicating lost on average for every hand class measured); holding
  both marked cards, a hand too weak for a solo abdicates, a strong one accepts and declares
  an open solo (docs/rules.md §6.1: ±24); the guard declares open guard (x2) when the model
  expects the doubling to pay. The models were fitted on jj, so they are used only where the
  role phase means what it means in jj (accept/abdicate with no tribute and no void deal,
  JJ scoring, the 168-card deck). In every other preset, and for every prompt the models do
  not cover (weihai's decline, calls, grab, rebellion, kick, surrender), the bot gives the
  auto-play defaults of docs/rules.md §7 (`baohuang_env.autoplay.RoleDefaults`): accept, call the
  lowest triple or abdicate, and NO to everything else. It never applies for the wind.
"""

from __future__ import annotations

from functools import cache
from math import comb

import numpy as np

from baohuang_env.cards import COPIES_PER_RANK
from baohuang_env.actions import DECISION_ID, FIRST_PLAY, PASS, action_table
from baohuang_env.rules import Rules

from baohuang_env.autoplay import RoleDefaults
from .guard_belief import guard_candidates
from .view import OPPONENT, PARTNER, SeatView

ACCEPT = DECISION_ID["ACCEPT"]
ABDICATE = DECISION_ID["ABDICATE"]
NO = DECISION_ID["NO"]
OPEN_SOLO = DECISION_ID["OPEN_SOLO"]
OPEN_GUARD = DECISION_ID["OPEN_GUARD"]

#: Resolution of the share of unseen cards a seat holds, in the binomial lookup table.
_P_BINS = 64
_MAX_U = COPIES_PER_RANK
#: Jokers a seat is assumed to hold at most, in the beat model (the last bucket is "or more").
_MAX_J = 4

# Role-phase models: linear in `HeuristicAgent.features` (1, BJ, SJ, 2, A, K, weak groups, 6),
# fitted by least squares on counterfactual self-play of this bot (the same deal played out
# after each choice; 300 to 1,500 deals per model), and checked on fresh deals after the play
# was tuned: the solo rule scored +4.1 per both-cards holder (always accepting: +2.3, always
# abdicating: +1.0), the open-guard rule gained +0.11 per guard over never opening, and
# accepting without the guard card beat abdicating by 2.5 points on average (1,200 deals),
# for every joker count measured. Expected score of the deciding seat:
#: holding both marked cards: accept and declare an open solo
OPEN_SOLO_SCORE = np.array([-37.0, 12.66, 6.60, 2.56, 2.44, 1.05, -1.93, 0.85])
#: ... accept and keep the solo hidden
HIDDEN_SOLO_SCORE = np.array([-9.10, 5.05, 3.63, 1.41, 0.53, 0.14, -1.76, 0.13])
#: ... abdicate (and play as the hidden guard of whoever accepts)
ABDICATE_SCORE = np.array([-0.11, 0.69, 0.41, 0.20, 0.04, -0.03, -0.19, -0.04])
#: the guard: score gain of declaring open guard (x2) over staying hidden
OPEN_GUARD_GAIN = np.array([0.46, 0.52, 0.60, 0.13, -0.02, 0.06, -0.28, -0.16])

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


class _Odds:
    """Per-decision model of the threatening seats' hands: the unseen cards of each kind are
    dealt to the other active seats independently, in proportion to their hand sizes.

    `nobeat(c, r, s)` is the probability that none of the seats can beat a play of c cards
    topped by rank r (-1: jokers only) carrying s small jokers and no big joker. A seat beats
    it when it holds >= s big jokers and c cards made of one rank above r plus its jokers
    (all computed as log-probability suffix sums over the ranks, once per decision).
    """

    def __init__(self, agent: HeuristicAgent, v: SeatView, seats: np.ndarray) -> None:
        below = agent._below
        R, SJ, BJ = agent.R, agent.SJ, agent.BJ
        self.R = R
        self.empty = seats.size == 0
        if self.empty:
            return
        left = v.cards_left[seats].astype(np.float64)
        tot = float(v.cards_left[1:].sum())
        share = left / tot if tot > 0 else left
        pb = (share * _P_BINS + 0.5).astype(np.int64)  # (S,)
        pbj = (share * (agent.p["opp_joker_use"] * _P_BINS) + 0.5).astype(np.int64)
        u = v.unseen
        uJ = int(u[SJ] + u[BJ])
        jmax = min(uJ, _MAX_J)
        J = agent._arange[:jmax + 1]
        cdf = below[uJ][:, pbj]  # (k, S): P(< k jokers)
        pJ = cdf[1:jmax + 2] - cdf[:jmax + 1]  # (J, S)
        pJ[-1] = 1.0 - cdf[jmax]  # the last bucket: jmax or more
        self.pJ = pJ.T[:, None, :]  # (S, 1, J)
        self.J = J
        # log P(seat has < k of rank r'), (S, k, R); suffix sums: none[s, k, j] = P(seat s has < k
        # of every rank >= j); index r + 1 answers "every rank above r" (r = -1: any rank)
        log_lt = agent._log_below_t[pb][:, :, u[:R]]
        none = np.zeros((seats.size, _MAX_U + 2, R + 1))
        np.cumsum(log_lt[:, :, ::-1], axis=2, out=none[:, :, R - 1::-1])
        np.exp(none, out=none)
        none[:, 0, :] = 0.0  # needing no rank card: the seat's jokers alone beat it
        self.none = none
        self.bj_ge = 1.0 - below[int(u[BJ]), :5][:, pb].T  # (S, s): P(>= s big jokers)

    def nobeat(self, c: np.ndarray, r: np.ndarray, s: np.ndarray) -> np.ndarray:
        """P(no threat can beat each play) for plays (c cards, rank r or -1, s SJs, no BJ)."""
        if self.empty:
            return np.ones(len(c))
        idx = np.maximum(c[:, None] - self.J, 0)  # (P, J): rank cards still needed
        none = self.none[:, idx, (r + 1)[:, None]]  # (S, P, J)
        s = np.minimum(s, 4)
        can = (1.0 - (self.pJ * none).sum(axis=2)) * self.bj_ge[:, s]  # (S, P)
        jonly = (r < 0) & (s == c)  # s small jokers alone are beaten only by s big jokers
        if jonly.any():
            can = np.where(jonly, self.bj_ge[:, s], can)
        return (1.0 - can).prod(axis=0)


class _LazyOdds:
    """Builds the `_Odds` of a decision on first use (most early decisions never need it)."""

    __slots__ = ("_agent", "_odds", "_view")

    def __init__(self, agent: HeuristicAgent, v: SeatView) -> None:
        self._agent, self._view, self._odds = agent, v, None

    def nobeat(self, c: np.ndarray, r: np.ndarray, s: np.ndarray) -> np.ndarray:
        if self._odds is None:
            self._odds = _Odds(self._agent, self._view, self._agent._threats(self._view))
        return self._odds.nobeat(c, r, s)


class HeuristicAgent:
    """A card-tracking, team-aware scripted bot (see the module docstring)."""

    uses_observation = True

    #: Finishing plans are only looked for when at most this many groups would have to be
    #: safe without a joker (keeps early decisions cheap; such hands almost never finish).
    MAX_NATURAL_SAFE = 4

    def __init__(self, rules: Rules, **params: float) -> None:
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
        self._below = _binom_below()
        # log P(Binomial(u, p) < k) indexed [p bin, k, u]
        self._log_below_t = np.ascontiguousarray(np.log(np.maximum(self._below, 1e-300)).transpose(2, 1, 0))
        self._arange = np.arange(_MAX_U + 2)
        self.hold_sixes = rules.hold_sixes
        self._plays_end = FIRST_PLAY + t.num_plays  # the call block (calling presets) follows the plays
        self.roles = RoleDefaults(rules)
        #: the role models were fitted on jj: used only where the role phase means the same
        self.role_models = (rules.emperor_selection == "abdicate" and not rules.tribute and not rules.void_deal
                            and rules.scoring == "jj" and rules.deck_size == 168)

    # ================================================================== entry point
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        plays = np.flatnonzero(mask[FIRST_PLAY:self._plays_end])
        if plays.size == 0:
            if mask[PASS]:  # (never APPLY_WIND)
                return PASS
            if not self.role_models:
                return self.roles.choose(observation, mask)
            return self._role(SeatView(observation, self.rules), observation, mask)
        v = SeatView(observation, self.rules)
        out = plays[self._size[plays] == int(v.hand.sum())]
        if out.size:  # go out
            return int(out[0]) + FIRST_PLAY
        odds = _LazyOdds(self, v)
        if not mask[PASS]:
            return self._lead(v, plays, mask, odds)
        return self._follow(v, plays, mask, odds)

    # ================================================================== per-play odds
    def nobeat(self, v: SeatView, plays: np.ndarray) -> np.ndarray:
        """P(no seat that may beat it can beat each play) for play indices `plays`, by the
        card-tracking model this bot plays on (`_Odds`; a play with a big joker is never
        beaten). Read by `agents.advice`; the bot's own play does not call it."""
        out = np.ones(plays.size)
        no_bj = self._big[plays] == 0
        if no_bj.any():
            pl = plays[no_bj]
            out[no_bj] = _Odds(self, v, self._threats(v)).nobeat(self._size[pl], self._rank[pl], self._small[pl])
        return out

    # ================================================================== partner inference
    def guard_belief(self, observation: np.ndarray) -> np.ndarray:
        """P(guard = relative seat) as this bot would infer it (`baohuang study belief`); it
        does not play on it. Candidates are the seats whose side the observer does not know
        (`agents.guard_head.guard_candidates`); among them, the bot's own convention is the
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

    # ================================================================== role phase
    def features(self, hand: np.ndarray) -> np.ndarray:
        """Hand features of the role-phase models: 1, BJs, SJs, 2s, aces, kings, weak groups
        (how many of 7..Q are held), 6s."""
        R = self.R
        return np.array([1.0, hand[self.BJ], hand[self.SJ], hand[R - 1], hand[R - 2], hand[R - 3],
                         np.count_nonzero(hand[1:R - 3]), hand[0]], dtype=np.float64)

    def _role(self, v: SeatView, observation: np.ndarray, mask: np.ndarray) -> int:
        x = self.features(v.hand)
        if mask[ACCEPT] and mask[ABDICATE]:
            if v.hold_guard_card:  # accepting makes me a solo: only with a hand worth an open solo
                return ACCEPT if x @ OPEN_SOLO_SCORE > x @ ABDICATE_SCORE else ABDICATE
            return ACCEPT  # without the guard card the throne is worth taking with any hand
        if mask[OPEN_SOLO]:
            return OPEN_SOLO if x @ OPEN_SOLO_SCORE > x @ HIDDEN_SOLO_SCORE else NO
        if mask[OPEN_GUARD]:  # (without the x2 an open guard only tells the rebels who he is)
            worth = self.rules.open_guard_multiplier > 1 and x @ OPEN_GUARD_GAIN > 0
            return OPEN_GUARD if worth else NO
        return self.roles.choose(observation, mask)

    # ================================================================== finishing plan
    def _threats(self, v: SeatView) -> np.ndarray:
        """Other active seats that may beat my plays: everyone not known to be a partner."""
        return np.flatnonzero(v.active & (v.team != PARTNER))

    def _groups(self, hand: np.ndarray) -> np.ndarray:
        """Ranks held that may be led before the end (all ranks but the 6s under hold-the-sixes)."""
        first = 1 if self.hold_sixes else 0
        return np.flatnonzero(hand[first:self.R]) + first

    def _plan_possible(self, hand: np.ndarray, n_groups: int) -> bool:
        """Cheap pre-check: at most MAX_NATURAL_SAFE groups would have to be safe without a joker."""
        allowed_open = 0 if (self.hold_sixes and hand[0]) else 1
        return n_groups <= int(hand[self.SJ] + hand[self.BJ]) + allowed_open + self.MAX_NATURAL_SAFE

    def _plan(self, hand: list[int], safe: dict[tuple[int, int], tuple[bool, bool]]) -> list[int] | None:
        """A sequence of play indices that plays out `hand` (a list of counts) keeping the lead
        until the last play, or None. `safe[(rank, count)]` says whether that whole group is
        safe to lead plain, and with one small joker. Unsafe groups get a small joker where
        that suffices, else a big joker; spare jokers ride on the first play; under
        hold-the-sixes the 6s go last."""
        R = self.R
        nS, nB = hand[self.SJ], hand[self.BJ]
        sixes = hand[0] if self.hold_sixes else 0
        first = 1 if self.hold_sixes else 0
        ranks = [r for r in range(first, R) if hand[r]]
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

    def _safety(self, keys: list[tuple[int, int]], odds: _LazyOdds,
                extra: np.ndarray | None = None) -> tuple[dict, np.ndarray | None]:
        """Safety of whole groups (rank, count), plain and with one small joker, in one batch
        with optional extra plays (play indices without a BJ): ({key: (plain, sj)}, extra_safe)."""
        sure = 1.0 - self.p["safe_eps"]
        k = len(keys)
        r = np.array([x[0] for x in keys] * 2, dtype=np.int64)
        c = np.array([x[1] for x in keys], dtype=np.int64)
        c = np.concatenate([c, c + 1])
        s = np.repeat(np.array([0, 1], dtype=np.int64), k)
        if extra is not None and extra.size:
            r = np.concatenate([r, self._rank[extra]])
            c = np.concatenate([c, self._size[extra]])
            s = np.concatenate([s, self._small[extra]])
        ok = (odds.nobeat(c, r, s) >= sure).tolist() if r.size else []
        safe = {key: (ok[i], ok[k + i]) for i, key in enumerate(keys)}
        return safe, (np.array(ok[2 * k:], dtype=bool) if extra is not None else None)

    # ================================================================== leading
    def _lead(self, v: SeatView, plays: np.ndarray, mask: np.ndarray, odds: _LazyOdds) -> int:
        hand = v.hand
        ranks = self._groups(hand)
        if self._plan_possible(hand, ranks.size):
            h = hand.tolist()
            safe, _ = self._safety([(r, h[r]) for r in ranks.tolist()], odds)
            plan = self._plan(h, safe)
            if plan is not None and mask[plan[0] + FIRST_PLAY]:
                return plan[0] + FIRST_PLAY
        return self._weakest_lead(v, plays)

    def _weakest_lead(self, v: SeatView, plays: np.ndarray) -> int:
        """The lowest whole group without jokers (with only 6s and jokers left: all jokers)."""
        rank = self._rank[plays]
        plain = (self._small[plays] == 0) & (self._big[plays] == 0) & (rank >= 0)
        whole = plays[plain & (self._n[plays] == v.hand[np.maximum(rank, 0)])]
        if whole.size == 0:
            return int(plays[np.argmax(self._size[plays])]) + FIRST_PLAY
        return int(whole[np.argmin(self._rank[whole])]) + FIRST_PLAY

    # ================================================================== following
    def _follow(self, v: SeatView, plays: np.ndarray, mask: np.ndarray, odds: _LazyOdds) -> int:
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

    def _finishing_follow(self, v: SeatView, plays: np.ndarray, odds: _LazyOdds) -> int | None:
        """A play that surely wins the trick, after which the rest of the hand plays out
        keeping the lead (`_plan`); the cheapest few such candidates are tried."""
        hand = v.hand
        ranks = self._groups(hand)
        if not self._plan_possible(hand, ranks.size + 1):  # a follow may remove one group
            return None
        h = hand.tolist()
        keys = {(r, h[r]) for r in ranks.tolist()}
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
