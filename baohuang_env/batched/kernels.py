"""The play phase of many games as arrays, stepped by compiled kernels: the array engine.

`BatchedGames` (engine "arrays") runs each row's role phase and deal on a scalar `Game`;
once its roles are fixed the row's play-phase state moves here, into a few integer arrays
(`PlayArrays`), and from then on Numba kernels play it: one call applies every row's move,
one writes every row's legal mask, one its observation. This is what turns a step of 1,024
games from ~20 µs a game (B `Game` objects) into a few.

Which rules exist twice, and why. A play-phase step must run without Python per game, so
these play-phase rules have a second, compiled form here beside the scalar `Game`'s:

* making a play: the cards leave the hand and count as played; a marked card played shows
  its mark (`RoleFacts.marked_card_played`);
* passing (and qingdao's APPLY_WIND, a logged pass);
* the turn: who plays next, when a trick is won, catching the wind (`Game._advance`);
* the legal mask's assembly (`ActionTable.legal_mask` / `legal_masks_batch`: the rank
  blocks, hold-the-sixes, jokers-only plays, the beats rows, APPLY_WIND), reading the very
  legality tables `ActionTable` builds, so what is legal has one owner;
* the observation's play-phase slices (`Encoder.encode`), written from the encoder's own
  float tables (`Encoder.lookup_tables`) into a per-seat template that the encoder itself
  made when the row arrived, so every float is the encoder's;
* and two bots' rules, so that their moves cost no Python per move: random opponents
  (`PlayArrays.play_random`): `RandomAgent.act`'s k-th legal action for k =
  `rng.integers(legal count)`, drawn from the agent's own generator by `draws.integer_below`;
  and the greedy bot's play phase (`PlayArrays.play_greedy`), the search's cheap play-outs:
  `GreedyAgent.act` reads a seat's observation, which a compiled loop never builds, so its
  choice is made a second time here from the row's hand and mask (`_greedy_move`), over
  the per-play tables both read (`greedy_tables`).

Everything else stays with its one owner and is called from here: the deal and the role
phase (`Game`), whether the deal is over, the final places and the score (the pure
functions `deal_over`, `final_order`, `finished_result` of `baohuang_env.game`, called for
the rare rows where a player just went out), and the replay record (`replay_record`).
tests/test_batched_kernels.py pins the two forms together: thousands of random games of every
preset stepped both ways, with the same seeds and actions, show identical seats, masks,
observations, rewards, results and replays at every step, and random players moved by
`play_random` making the moves and draws of `RandomAgent.act` one move at a time;
tests/test_greedy_kernel.py pins `play_greedy` to `GreedyAgent.act` the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import NamedTuple

import numba
import numpy as np

from ..actions import DECISION_ID, FIRST_PLAY, MAX_BIG, MAX_SMALL, PASS, action_table
from ..cards import NUM_SEATS
from .draws import NEXT_UINT32, integer_below
from ..encoding import Encoder
from ..game import PLAY, Game, GameResult, SettledRoles, deal_over, final_order, finished_result
from ..observation import HISTORY_LENGTH
from ..rules import Rules

APPLY_WIND = DECISION_ID["APPLY_WIND"]

#: Columns of `PlayArrays.facts` (B, NUM_FACTS) int32: the row's scalar play-phase state.
(SEAT, TOP, TOP_PLAYER, PASSES, EMPEROR, GUARD, GUARD_CARD_SEAT, GUARD_CARD_KIND, EMPEROR_CARD_SEAT,
 PUBLIC_GUARD, NUM_OUT, HISTORY_SIZE, NUM_LOGGED, OVER) = range(14)
NUM_FACTS = 14
#: Rows of `PlayArrays.seats` (B, 4, 5) int32: per seat.
CARDS_LEFT, PASSED, PLACES, FINISH_ORDER = range(4)
#: Rows of `PlayArrays.cards` (B, 11, K) int32: hands of seats 0..4, played by seats 0..4,
#: then the total played.
PLAYED, TOTAL_PLAYED = NUM_SEATS, 2 * NUM_SEATS
#: Most actions one game can take (each of at most 216 plays answered by at most 5 passes,
#: plus the role phase's decisions), the width of a row's action log.
MAX_ACTIONS = 2048
#: The observation's slices that the play phase leaves as they were when the roles were
#: fixed (with the preset-only ones: `ObservationLayout.preset_slices`).
_CONSTANT_SLICES = ("phase", "emperor", "emperor_card", "my_role", "open_guard", "open_solo", "declines")
#: Entries of `PlayArrays._offsets` (where the observation's play-phase slices start).
(_O_PHASE, _O_PHASE_LEN, _O_HAND, _O_UNSEEN, _O_LEFT, _O_PLAYED, _O_PASSED, _O_PLACE, _O_GUARD, _O_HOLD,
 _O_LEADING, _O_TRICK, _O_TRICK_PLAYER, _O_HISTORY) = range(14)


# ---------------------------------------------------------------------- kernels: moves
@numba.njit(cache=True, inline="always")
def _next_active(seats, b, seat):
    for k in range(1, NUM_SEATS + 1):
        nxt = (seat + k) % NUM_SEATS
        if seats[b, CARDS_LEFT, nxt]:
            return nxt
    return -1


@numba.njit(cache=True, inline="always")
def _new_trick(facts, seats, b, leader):
    facts[b, SEAT] = leader
    facts[b, TOP] = -1
    facts[b, TOP_PLAYER] = -1
    facts[b, PASSES] = 0
    seats[b, PASSED, :] = 0


@numba.njit(cache=True, inline="always")
def _advance(facts, seats, b, seat):
    """`Game._advance`: the next seat to act after `seat`'s move, closing a trick (or
    catching the wind after a finisher's play stood) when everyone else passed."""
    active = NUM_SEATS - facts[b, NUM_OUT]
    tp = facts[b, TOP_PLAYER]
    if seats[b, CARDS_LEFT, tp]:
        if facts[b, PASSES] == active - 1:
            _new_trick(facts, seats, b, tp)
            return
    elif facts[b, PASSES] == active:
        _new_trick(facts, seats, b, _next_active(seats, b, tp))
        return
    facts[b, SEAT] = _next_active(seats, b, seat)


@numba.njit(cache=True, inline="always")
def _play_cards(cards, b, seat, kind, count):
    """`count` cards of `kind` leave `seat`'s hand and count as played (`Hands.play`)."""
    if count:
        cards[b, seat, kind] -= count
        cards[b, PLAYED + seat, kind] += count
        cards[b, TOTAL_PLAYED, kind] += count


@numba.njit(cache=True)
def _step_rows(rows, actions, facts, seats, cards, history, log, rank, n, small, big, special, sj, bj, sp,
               went_out):
    """Apply `actions[i]` (legal, already checked) at `rows[i]` (`_step_row`)."""
    for i in range(rows.size):
        _step_row(rows[i], actions[i], facts, seats, cards, history, log, rank, n, small, big, special, sj, bj, sp,
                  went_out)


@numba.njit(cache=True, inline="always")
def _step_row(b, a, facts, seats, cards, history, log, rank, n, small, big, special, sj, bj, sp, went_out):
    """Apply action `a` (legal) at row b. A row whose mover went out is left at that point
    with `went_out` set: whether its deal is over is `deal_over`'s call (`PlayArrays.step`),
    and the turn moves on by `_advance_rows` if not."""
    seat = facts[b, SEAT]
    log[b, facts[b, NUM_LOGGED]] = a
    facts[b, NUM_LOGGED] += 1
    h = facts[b, HISTORY_SIZE] % history.shape[1]
    history[b, h, 0] = seat
    history[b, h, 1] = a
    facts[b, HISTORY_SIZE] += 1
    if a < FIRST_PLAY:  # PASS, or APPLY_WIND (a logged pass, §9 #30)
        facts[b, PASSES] += 1
        seats[b, PASSED, seat] = 1
        _advance(facts, seats, b, seat)
        return
    p = a - FIRST_PLAY
    c, s, bg, x = n[p], small[p], big[p], special[p]
    _play_cards(cards, b, seat, rank[p], c)
    _play_cards(cards, b, seat, sj, s)
    _play_cards(cards, b, seat, bj, bg)
    _play_cards(cards, b, seat, sp, x)
    seats[b, CARDS_LEFT, seat] -= c + s + bg + x
    # a marked card is played when its holder has none of its kind left (§4.9)
    if seat == facts[b, GUARD_CARD_SEAT] and cards[b, seat, facts[b, GUARD_CARD_KIND]] == 0:
        facts[b, GUARD_CARD_SEAT] = -1
        facts[b, PUBLIC_GUARD] = seat
    if bg and seat == facts[b, EMPEROR_CARD_SEAT] and cards[b, seat, bj] == 0:
        facts[b, EMPEROR_CARD_SEAT] = -1
    facts[b, TOP] = p
    facts[b, TOP_PLAYER] = seat
    facts[b, PASSES] = 0
    seats[b, PASSED, :] = 0
    if seats[b, CARDS_LEFT, seat] == 0:
        seats[b, FINISH_ORDER, facts[b, NUM_OUT]] = seat
        facts[b, NUM_OUT] += 1
        seats[b, PLACES, seat] = facts[b, NUM_OUT]
        went_out[b] = 1
    else:
        _advance(facts, seats, b, seat)


@numba.njit(cache=True)
def _advance_rows(rows, facts, seats):
    """The turn after a player went out and the deal goes on."""
    for i in range(rows.size):
        b = rows[i]
        _advance(facts, seats, b, facts[b, SEAT])


# ---------------------------------------------------------------------- kernels: masks
@numba.njit(cache=True, inline="always")
def _holds(hand, p, rank, n, small, big, special, num_ranks, sj, bj, sp, jokers_only_plays, hold_sixes,
           six_no_jokers):
    """May a seat holding `hand` make play index `p`? `check_play`'s card rules (the cards
    are there, jokers-only plays, hold-the-sixes), without the beats test."""
    r, c = rank[p], n[p]
    if (c and hand[r] < c) or hand[sj] < small[p] or hand[bj] < big[p] or (special[p] and hand[sp] < special[p]):
        return False
    if c == 0:  # jokers alone: where the rules allow them, or from a hand without rank cards
        if jokers_only_plays:
            return True
        for k in range(num_ranks):
            if hand[k]:
                return False
        return True
    if hold_sixes and r == 0:  # the 6s only as the whole remaining hand (§4.5)
        total = 0
        for k in range(num_ranks):
            total += hand[k]
        if total != c:
            return False
        if six_no_jokers:
            return small[p] == 0 and big[p] == 0 and hand[sj] + hand[bj] == 0
        return small[p] == hand[sj] and big[p] == hand[bj]
    return True


@numba.njit(cache=True)
def _masks(rows, dest, facts, seats, cards, out, block_table, jokers_only, indptr, beaters, rank, n, small, big,
           special, num_ranks, sj, bj, sp, jokers_only_plays, hold_sixes, six_no_jokers, apply_wind):
    """Row `dest[i]` of `out`: the legal mask of `rows[i]`'s acting seat (`_mask_row`)."""
    for i in range(rows.size):
        _mask_row(rows[i], out[dest[i]], facts, seats, cards, block_table, jokers_only, indptr, beaters, rank, n,
                  small, big, special, num_ranks, sj, bj, sp, jokers_only_plays, hold_sixes, six_no_jokers,
                  apply_wind)


@numba.njit(cache=True, inline="always")
def _mask_row(b, o, facts, seats, cards, block_table, jokers_only, indptr, beaters, rank, n, small, big, special,
              num_ranks, sj, bj, sp, jokers_only_plays, hold_sixes, six_no_jokers, apply_wind):
    """`o`: the legal mask of row b's acting seat.

    Leading, every play the hand holds: `ActionTable.legal_masks_batch`'s rank blocks (the
    same tables), hold-the-sixes fixed up after. Following, only the plays that beat the one
    on the table can be legal (a few dozen of the ~4,000): each is checked against the hand
    (`_holds`), which is far cheaper than a whole beats row; plus PASS, and qingdao's
    APPLY_WIND as a finisher's play's first answer."""
    width = block_table.shape[1]
    combos = width // 16
    grid = num_ranks * width
    seat = facts[b, SEAT]
    hand = cards[b, seat]
    top = facts[b, TOP]
    if top >= 0:
        o[:] = 0
        o[PASS] = 1
        for q in range(indptr[top], indptr[top + 1]):
            p = beaters[q]
            if _holds(hand, p, rank, n, small, big, special, num_ranks, sj, bj, sp, jokers_only_plays,
                      hold_sixes, six_no_jokers):
                o[FIRST_PLAY + p] = 1
        if apply_wind and facts[b, PASSES] == 0 and seats[b, CARDS_LEFT, facts[b, TOP_PLAYER]] == 0:
            o[APPLY_WIND] = 1
        return
    ns = min(hand[sj], MAX_SMALL)
    nbig = min(hand[bj], MAX_BIG)
    j = ns * (MAX_BIG + 1) + nbig
    if combos != (MAX_SMALL + 1) * (MAX_BIG + 1):  # a deck with SP: (small, big, special)
        j = 2 * j + min(hand[sp], 1)
    o[:FIRST_PLAY] = 0
    for r in range(num_ranks):
        src = block_table[hand[r] * combos + j]
        base = FIRST_PLAY + r * width
        for k in range(width):
            o[base + k] = src[k]
    src = jokers_only[j]
    base = FIRST_PLAY + grid
    alone = jokers_only_plays
    if not alone:  # jokers alone only from a hand without rank cards
        alone = True
        for r in range(num_ranks):
            if hand[r]:
                alone = False
    for k in range(src.size):
        o[base + k] = src[k] if alone else 0
    sixes = hand[0]
    if hold_sixes and sixes:
        o[FIRST_PLAY:FIRST_PLAY + width] = 0
        total = 0
        for r in range(num_ranks):
            total += hand[r]
        if total == sixes:
            if six_no_jokers:
                if ns + nbig == 0:
                    o[FIRST_PLAY + (sixes - 1) * combos] = 1
            else:
                o[FIRST_PLAY + (sixes - 1) * combos + j] = 1


# ---------------------------------------------------------------------- kernels: random players
@numba.njit(cache=True)
def _play_random(next_uint32, rows, until, states, scratch, went_out, last_mover, facts, seats, cards, history, log,
                 rank, n, small, big, special, sj, bj, sp, block_table, jokers_only, indptr, beaters, num_ranks,
                 jokers_only_plays, hold_sixes, six_no_jokers, apply_wind):
    """Each row `rows[i]` played on by `RandomAgent`'s rule until seat `until[i]` is to act,
    the deal is over or a player went out (`went_out`, for `PlayArrays` to settle): the acting
    seat takes its k-th legal action (ascending) for k = `Generator.integers(legal count)` of
    the generator whose state is at `states[i, seat]` (`draws.integer_below`; `next_uint32`:
    `draws.NEXT_UINT32`). `last_mover[i]`:
    the seat that moved last (unchanged if none did)."""
    for i in range(rows.size):
        b = rows[i]
        while facts[b, SEAT] >= 0 and facts[b, SEAT] != until[i] and not facts[b, OVER]:
            seat = facts[b, SEAT]
            _mask_row(b, scratch, facts, seats, cards, block_table, jokers_only, indptr, beaters, rank, n, small,
                      big, special, num_ranks, sj, bj, sp, jokers_only_plays, hold_sixes, six_no_jokers, apply_wind)
            a = _kth(scratch, integer_below(next_uint32, states[i, seat], _count(scratch)))
            _step_row(b, a, facts, seats, cards, history, log, rank, n, small, big, special, sj, bj, sp, went_out)
            last_mover[i] = seat
            if went_out[b]:
                break


# ---------------------------------------------------------------------- kernels: greedy players
#: Most cards a greedy player may keep after a following play with a joker or a 2
#: (`GreedyAgent.SPEND_AT`, read from here).
GREEDY_SPEND_AT = 8


class GreedyTables(NamedTuple):
    """What the greedy rule reads of each play index (`greedy_tables`), int64 (P,) each."""

    cost: np.ndarray  # its cheapness, lexicographic: big jokers, small jokers, 2s, rank (jokers alone last)
    size: np.ndarray  # the cards it takes from the hand
    rank: np.ndarray  # its rank, -1 for jokers alone
    n: np.ndarray  # its cards of that rank
    plain: np.ndarray  # 1: no joker in it
    precious: np.ndarray  # 1: a joker or a 2 in it


@cache
def greedy_tables(rules: Rules) -> GreedyTables:
    """The greedy rule's per-play tables, derived from the action table once per rule set: the
    one source of both `GreedyAgent` and the compiled `_play_greedy`."""
    t = action_table(rules)
    two = (t.rank == t.kinds.num_ranks - 1) & (t.n > 0)  # the 2 is the highest ordinary rank
    rank = np.where(t.rank >= 0, t.rank, t.kinds.num_ranks).astype(np.int64)
    cost = ((t.big.astype(np.int64) * 8 + t.small) * 2 + two) * 16 + rank
    columns = (cost, t.size, t.rank, t.n, (t.small == 0) & (t.big == 0), (t.big > 0) | (t.small > 0) | two)
    return GreedyTables(*(np.ascontiguousarray(c, dtype=np.int64) for c in columns))


@numba.njit(cache=True, inline="always")
def _greedy_move(mask, hand, held, cost, size, rank, n, plain, precious, spend_at):
    """`GreedyAgent.act`'s play-phase move for a seat holding `hand` (`held` cards in all)
    under the legal `mask`: the first legal play that goes out; leading (PASS not legal), the
    cheapest legal whole group without jokers, else the largest play (all jokers); following,
    the cheapest legal play unless it spends a joker or a 2 and leaves more than `spend_at`
    cards, else PASS. Ties go to the lowest action id, as `np.argmin`/`np.argmax` give them."""
    leading = mask[PASS] == 0
    whole, biggest, cheapest = -1, -1, -1
    for p in range(cost.size):
        if not mask[FIRST_PLAY + p]:
            continue
        if size[p] == held:
            return FIRST_PLAY + p
        if leading:
            r = rank[p]
            if plain[p] and r >= 0 and n[p] == hand[r] and (whole < 0 or cost[p] < cost[whole]):
                whole = p
            if biggest < 0 or size[p] > size[biggest]:
                biggest = p
        elif cheapest < 0 or cost[p] < cost[cheapest]:
            cheapest = p
    if leading:
        return FIRST_PLAY + (whole if whole >= 0 else biggest)
    if cheapest < 0 or (precious[cheapest] and held - size[cheapest] > spend_at):
        return PASS
    return FIRST_PLAY + cheapest


@numba.njit(cache=True)
def _play_greedy(rows, until, scratch, went_out, last_mover, facts, seats, cards, history, log, rank, n, small,
                 big, special, sj, bj, sp, block_table, jokers_only, indptr, beaters, num_ranks, jokers_only_plays,
                 hold_sixes, six_no_jokers, apply_wind, cost, size, g_rank, g_n, plain, precious, spend_at):
    """Each row `rows[i]` played on by `GreedyAgent`'s play-phase rule (`_greedy_move`) until
    seat `until[i]` is to act (-1: nobody), the deal is over or a player went out (`went_out`,
    for `PlayArrays` to settle). `last_mover[i]`: the seat that moved last (unchanged if none did)."""
    for i in range(rows.size):
        b = rows[i]
        while facts[b, SEAT] >= 0 and facts[b, SEAT] != until[i] and not facts[b, OVER]:
            seat = facts[b, SEAT]
            _mask_row(b, scratch, facts, seats, cards, block_table, jokers_only, indptr, beaters, rank, n, small,
                      big, special, num_ranks, sj, bj, sp, jokers_only_plays, hold_sixes, six_no_jokers, apply_wind)
            a = _greedy_move(scratch, cards[b, seat], seats[b, CARDS_LEFT, seat], cost, size, g_rank, g_n, plain,
                             precious, spend_at)
            _step_row(b, a, facts, seats, cards, history, log, rank, n, small, big, special, sj, bj, sp, went_out)
            last_mover[i] = seat
            if went_out[b]:
                break


@cache
def _beaters(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """The plays that beat each play, as CSR: the play indices `beaters[indptr[p]:indptr[p + 1]]`
    beat play index p (from the beats tables `ActionTable` owns; a few dozen per play)."""
    table = action_table(rules)
    legal = table.tables(rules)
    P = table.num_plays
    if table.kinds.special:
        rows = [legal.group_cols[legal.group_array[p]][legal.beats_local[p, :legal.group_cols[
            legal.group_array[p]].size].view(bool)] - FIRST_PLAY for p in range(P)]
    else:
        m = legal.beats[:P, FIRST_PLAY:FIRST_PLAY + P].view(bool)
        rows = [np.flatnonzero(m[p]) for p in range(P)]
    indptr = np.zeros(P + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([r.size for r in rows])
    return indptr, np.concatenate(rows).astype(np.int32)


# ---------------------------------------------------------------------- kernels: observations
@numba.njit(cache=True)
def _observe(rows, dest, view_seats, facts, seats, cards, history, template, constant, out, offsets, deck, thermo,
             scaled, left, place, play_rows):
    """`Encoder.encode` of `view_seats[i]` at `rows[i]` into `out[dest[i]]`: the slices the play
    phase does not change (the spans `constant`) from the row's template for that seat (cut
    from the encoder's own vector of it), then every play-phase slice from the encoder's
    tables. An ended row (`OVER`) shows what `encode` shows of a finished game: no phase, no
    trick, nobody leading."""
    K = cards.shape[2]
    levels = thermo.shape[1]
    H = history.shape[1]
    width = K + NUM_SEATS + 1
    for i in range(rows.size):
        b = rows[i]
        me = view_seats[i]
        o = out[dest[i]]
        src = template[b, me]
        x = 0
        for span in range(constant.shape[0]):
            for y in range(constant[span, 0], constant[span, 1]):
                o[y] = src[x]
                x += 1
        over = facts[b, OVER]
        if over:
            for x in range(offsets[_O_PHASE], offsets[_O_PHASE] + offsets[_O_PHASE_LEN]):
                o[x] = 0.0
        a, u = offsets[_O_HAND], offsets[_O_UNSEEN]
        for k in range(K):
            c = cards[b, me, k]
            for x in range(levels):
                o[a + k * levels + x] = thermo[c, x]
            o[u + k] = scaled[k, deck[k] - cards[b, TOTAL_PLAYED, k] - c]
        for rel in range(NUM_SEATS):
            s = (me + rel) % NUM_SEATS
            o[offsets[_O_LEFT] + rel] = left[seats[b, CARDS_LEFT, s]]
            a = offsets[_O_PLAYED] + rel * K
            for k in range(K):
                o[a + k] = scaled[k, cards[b, PLAYED + s, k]]
            o[offsets[_O_PASSED] + rel] = seats[b, PASSED, s]
            a = offsets[_O_PLACE] + rel * NUM_SEATS
            pl = seats[b, PLACES, s]
            for x in range(NUM_SEATS):
                o[a + x] = place[pl, x]
        guard = me if facts[b, GUARD] == me else facts[b, PUBLIC_GUARD]
        _seat_onehot(o, offsets[_O_GUARD], guard, me)
        o[offsets[_O_HOLD]] = 1.0 if facts[b, GUARD_CARD_SEAT] == me else 0.0
        top = facts[b, TOP]
        a = offsets[_O_TRICK]
        if not over and top >= 0:
            o[offsets[_O_LEADING]] = 0.0
            for k in range(K):
                o[a + k] = play_rows[top + FIRST_PLAY, k]
            _seat_onehot(o, offsets[_O_TRICK_PLAYER], facts[b, TOP_PLAYER], me)
        else:
            o[offsets[_O_LEADING]] = 1.0 if not over and facts[b, SEAT] == me else 0.0
            for k in range(K):
                o[a + k] = 0.0
            _seat_onehot(o, offsets[_O_TRICK_PLAYER], -1, me)
        size = facts[b, HISTORY_SIZE]
        a = offsets[_O_HISTORY]
        for x in range(a, a + H * width):
            o[x] = 0.0
        for e in range(min(size, H)):  # most recent first
            h = (size - 1 - e) % H
            act = history[b, h, 1]
            base = a + e * width
            for k in range(K):
                o[base + k] = play_rows[act, k]
            o[base + K + (history[b, h, 0] - me) % NUM_SEATS] = 1.0
            if act == PASS:
                o[base + K + NUM_SEATS] = 1.0


@numba.njit(cache=True, inline="always")
def _seat_onehot(o, a, seat, me):
    """The encoder's seat one-hot (`Encoder` `onehot` rows: 1.0 at the seat relative to `me`,
    all zero for nobody) at `o[a:a + 5]`."""
    for x in range(NUM_SEATS):
        o[a + x] = 0.0
    if seat >= 0:
        o[a + (seat - me) % NUM_SEATS] = 1.0


@numba.njit(cache=True)
def pick_legal(masks, u):
    """Row b's k-th legal action id (ascending) for k = floor(u[b] * its legal count): a
    uniformly random legal action per row for uniform `u` in [0, 1) (`batched.random_legal`)."""
    counts = legal_counts(masks)
    ks = np.empty(counts.size, dtype=np.int64)
    for b in range(counts.size):
        ks[b] = int(u[b] * counts[b])
    return kth_legal(masks, ks)


@numba.njit(cache=True)
def legal_counts(masks):
    """How many actions each row of 0/1 masks (B, N) allows."""
    counts = np.zeros(masks.shape[0], dtype=np.int64)
    for b in range(counts.size):
        counts[b] = _count(masks[b])
    return counts


@numba.njit(cache=True, inline="always")
def _count(row):
    """How many actions a 0/1 mask row allows."""
    count = 0
    for a in range(row.size):
        count += row[a]
    return count


@numba.njit(cache=True)
def kth_legal(masks, ks):
    """Row b's `ks[b]`-th legal action id (ascending, from 0) of 0/1 masks (B, N); -1 where the
    row allows `ks[b]` or fewer (`_kth`)."""
    picks = np.empty(masks.shape[0], dtype=np.int64)
    for b in range(picks.size):
        picks[b] = _kth(masks[b], ks[b])
    return picks


#: How many entries of a mask `_kth` adds up at a time (a sum the compiler vectorizes).
_KTH_BLOCK = 64


@numba.njit(cache=True, inline="always")
def _kth(row, k):
    """The `k`-th legal action id (ascending, from 0) of a 0/1 mask row; -1 if it allows k
    or fewer. Whole blocks of the row are skipped by their sums, then the block that holds
    it is scanned."""
    N = row.size
    a = 0
    while a + _KTH_BLOCK <= N:
        s = 0
        for j in range(_KTH_BLOCK):
            s += row[a + j]
        if s > k:
            break
        k -= s
        a += _KTH_BLOCK
    while a < N:
        if row[a] != 0:
            if k == 0:
                return a
            k -= 1
        a += 1
    return -1


# ---------------------------------------------------------------------- the arrays
class PlayArrays:
    """The play-phase state of B rows (see the module docstring), one owner per fact:

    * `facts` (B, NUM_FACTS) int32: the acting seat, the play to beat and its player, the
      passes, the roles (emperor, guard) and the marked cards' seats, the public guard, how
      many are out, the history's and the log's lengths, whether the deal is over;
    * `seats` (B, 4, 5): cards left, passed, places, finishing order per seat;
    * `cards` (B, 11, K): the hands, the cards each seat played, the total played;
    * `history` (B, HISTORY_LENGTH, 2): the last plays (seat, action), a ring;
    * `log` (B, MAX_ACTIONS) int16: every action of the row's game, role phase included (the
      replay); `seed` its deal seed; `settled` its `SettledRoles`;
    * `template` (B, 5, D) float32: each seat's observation when the row arrived.

    A row holds a game from `load(b, game)` (a `Game` that has just entered its play phase)
    until the next `load`; `game(b)` rebuilds the `Game` itself from the seed (or the hand-built
    deal) and the log.
    """

    def __init__(self, rules: Rules, num_games: int, encoder: Encoder) -> None:
        self.rules, self.encoder = rules, encoder
        table = self.table = encoder.table
        kinds = table.kinds
        B, K = num_games, kinds.num_kinds
        self.facts = np.zeros((B, NUM_FACTS), dtype=np.int32)
        self.seats = np.zeros((B, 4, NUM_SEATS), dtype=np.int32)
        self.cards = np.zeros((B, 2 * NUM_SEATS + 1, K), dtype=np.int32)
        self.history = np.zeros((B, HISTORY_LENGTH, 2), dtype=np.int32)
        self.log = np.zeros((B, MAX_ACTIONS), dtype=np.int16)
        layout = encoder.layout
        spans = [(layout[name].offset, layout[name].stop) for name in (*_CONSTANT_SLICES, *layout.preset_slices)]
        #: The (start, stop) spans of the observation that stay fixed through the play phase.
        self.constant = np.array(spans, dtype=np.int64)
        self._constant_columns = np.concatenate([np.arange(a, z) for a, z in spans])
        self.template = np.zeros((B, NUM_SEATS, self._constant_columns.size), dtype=np.float32)
        self.seed = [0] * B
        self.custom_deal: list[dict | None] = [None] * B  # a hand-built deal's record (`Game.custom_deal`)
        self.settled: list[SettledRoles | None] = [None] * B
        self._went_out = np.zeros(B, dtype=np.int8)
        self._plays = (table.rank.astype(np.int32), table.n.astype(np.int32), table.small.astype(np.int32),
                       table.big.astype(np.int32), table.special.astype(np.int32))
        self._kinds = (kinds.sj, kinds.bj, max(kinds.sp, 0))
        legal = table.tables(rules)
        self._mask_tables = (legal.block_table, legal.jokers_only_table, *_beaters(rules))
        lt = encoder.lookup_tables
        phase = layout["phase"]
        self._offsets = np.array([phase.offset, phase.length, *(layout[name].offset for name in (
            "my_hand", "unseen", "cards_left", "played", "passed", "place", "known_guard", "hold_guard_card",
            "leading", "trick", "trick_player", "history"))], dtype=np.int64)
        if not (lt.onehot[:NUM_SEATS] == np.eye(NUM_SEATS)).all() or lt.onehot[NUM_SEATS].any():
            raise AssertionError("the encoder's seat one-hots are not the identity rows `_seat_onehot` writes")
        self._obs_tables = (layout.copies.astype(np.int32), lt.thermo, lt.scaled_rows, lt.left, lt.place,
                            lt.history_cards)

    # ------------------------------------------------------------------ rows in and out
    def load(self, rows: list[int], games: list[Game]) -> None:
        """Rows `rows[i]` take over `games[i]`, each just entered its play phase (the `Game`
        is not used again: the arrays own its state from here)."""
        for b, game in zip(rows, games, strict=True):
            if game.phase != PLAY:
                raise ValueError(f"only a game in its play phase moves to the arrays, not one in {game.phase!r}")
            if len(game.actions) + 1 > MAX_ACTIONS:
                raise ValueError(f"a game of more than {MAX_ACTIONS} actions does not fit a row's log")
            f, roles = self.facts[b], game.roles
            f[:] = (game.current_player, game.top, game.top_player, game.passes, roles.emperor, roles.guard,
                    roles.guard_card_seat, roles.guard_card_kind, roles.emperor_card_seat, roles.public_guard,
                    len(game.finish_order), 0, len(game.actions), 0)
            s = self.seats[b]
            s[CARDS_LEFT] = game.cards_left
            s[PASSED] = game.passed
            s[PLACES] = game.places
            s[FINISH_ORDER] = -1
            s[FINISH_ORDER, :len(game.finish_order)] = game.finish_order
            c = self.cards[b]
            c[:NUM_SEATS] = game.hands
            c[PLAYED:TOTAL_PLAYED] = game.played
            c[TOTAL_PLAYED] = game.total_played
            for seat, action in game.history[-HISTORY_LENGTH:]:
                h = f[HISTORY_SIZE] % HISTORY_LENGTH
                self.history[b, h] = seat, action
                f[HISTORY_SIZE] += 1
            self.log[b, :len(game.actions)] = game.actions
            self.seed[b], self.custom_deal[b] = game.seed, game.custom_deal
            self.settled[b] = SettledRoles.of(roles)
        views = self.encoder.encode_many([g for g in games for _ in range(NUM_SEATS)],
                                         list(range(NUM_SEATS)) * len(games))
        self.template[rows] = views[:, self._constant_columns].reshape(len(rows), NUM_SEATS, -1)

    def actions_of(self, b: int) -> list[int]:
        """Every action of row b's game so far."""
        return self.log[b, :self.facts[b, NUM_LOGGED]].tolist()

    def game(self, b: int) -> Game:
        """Row b's game as a `Game`, rebuilt from its seed (or hand-built deal) and actions
        (exact, not cheap)."""
        d = self.custom_deal[b]
        game = Game(self.rules, seed=self.seed[b]) if d is None else Game.from_deal(
            d.get("hands"), d["emperor_card_seat"], d["guard_card_seat"], self.rules, suits=d.get("suits"))
        for a in self.actions_of(b):
            game.step(a)
        return game

    # ------------------------------------------------------------------ stepping
    def step(self, rows: np.ndarray, actions: np.ndarray) -> list[tuple[int, GameResult]]:
        """Apply `actions[i]` (checked legal) at each of `rows` (live rows); returns (row,
        result) of every deal that ended, whose row is then `OVER`."""
        _step_rows(rows, actions, self.facts, self.seats, self.cards, self.history, self.log, *self._plays,
                   *self._kinds, self._went_out)
        return self._settle()[0]

    def play_random(self, rows: np.ndarray, until: np.ndarray, states: np.ndarray
                    ) -> tuple[list[tuple[int, GameResult]], np.ndarray]:
        """Play on at each of `rows` (live rows) by `RandomAgent`'s rule, seat s of `rows[i]`
        drawing from the generator at `states[i, s]` (`draws.state_addresses`), until seat
        `until[i]` is to act or the deal is over. Returns (row, result) of every deal that
        ended, and the seat that moved last at each row (-1 where none moved)."""
        return self._play_on(rows, lambda todo, scratch, moved, rules_args: _play_random(
            NEXT_UINT32, rows[todo], until[todo], states[todo], scratch, self._went_out, moved, *rules_args))

    def play_greedy(self, rows: np.ndarray, until: np.ndarray) -> tuple[list[tuple[int, GameResult]], np.ndarray]:
        """Play on at each of `rows` (live rows) by `GreedyAgent`'s play-phase rule
        (`_play_greedy`) until seat `until[i]` is to act (-1: until the deal is over). Returns
        as `play_random`."""
        g = greedy_tables(self.rules)
        return self._play_on(rows, lambda todo, scratch, moved, rules_args: _play_greedy(
            rows[todo], until[todo], scratch, self._went_out, moved, *rules_args, *g, GREEDY_SPEND_AT))

    def _play_on(self, rows: np.ndarray, play: Callable[[np.ndarray, np.ndarray, np.ndarray, tuple], None]
                 ) -> tuple[list[tuple[int, GameResult]], np.ndarray]:
        """Drive a compiled player over `rows`: `play(todo, scratch, moved, rules_args)` moves
        the rows `rows[todo]` until each stops (`moved`: their last movers, updated in place;
        `rules_args`: the arrays and rule flags every play kernel reads); the rows where a player
        went out and the deal goes on are played on again. Returns (row, result) of every deal
        that ended, and the seat that moved last at each row (-1 where none moved)."""
        r, last = self.rules, np.full(rows.size, -1, dtype=np.int64)
        scratch = np.empty(self.table.num_actions, dtype=np.int8)
        rules_args = (self.facts, self.seats, self.cards, self.history, self.log, *self._plays, *self._kinds,
                      *self._mask_tables, self.table.kinds.num_ranks, r.jokers_only_plays, r.hold_sixes,
                      r.six_no_jokers, r.catch_wind == "apply")
        todo, ended = np.arange(rows.size), []
        while todo.size:
            moved = last[todo]
            play(todo, scratch, moved, rules_args)
            last[todo] = moved
            done, go_on = self._settle()
            ended += done
            todo = todo[np.isin(rows[todo], go_on)]  # a player went out and the deal goes on
        return ended, last

    def _settle(self) -> tuple[list[tuple[int, GameResult]], np.ndarray]:
        """The rows whose mover went out: (row, result) of those whose deal is over (now
        `OVER`), and the rows whose deal goes on (the turn moved on)."""
        went_out = self._went_out
        out = np.flatnonzero(went_out)
        if not out.size:
            return [], out
        went_out[out] = 0
        ended, go_on = [], []
        for b in out.tolist():
            f, s, roles = self.facts[b], self.seats[b], self.settled[b]
            order = s[FINISH_ORDER, :f[NUM_OUT]].tolist()
            if deal_over(self.rules, order, s[PLACES].tolist(), roles.emperor, roles.guard, roles.solo):
                ended.append((b, self._end(b, order)))
            else:
                go_on.append(b)
        go_on = np.array(go_on, dtype=np.int64)
        if go_on.size:
            _advance_rows(go_on, self.facts, self.seats)
        return ended, go_on

    def _end(self, b: int, order: list[int]) -> GameResult:
        f, s = self.facts[b], self.seats[b]
        order = final_order(order, s[CARDS_LEFT].tolist())
        for place, seat in enumerate(order, 1):
            s[PLACES, seat] = place
        s[FINISH_ORDER] = order
        f[NUM_OUT] = len(order)
        f[OVER] = 1
        f[SEAT] = -1
        return finished_result(self.rules, s[PLACES].tolist(), self.settled[b])

    # ------------------------------------------------------------------ what a row shows
    def masks(self, rows: np.ndarray, dest: np.ndarray, out: np.ndarray) -> None:
        """The legal mask of `rows[i]`'s acting seat (a live row) into `out[dest[i]]`."""
        r = self.rules
        _masks(rows, dest, self.facts, self.seats, self.cards, out, *self._mask_tables, *self._plays,
               self.table.kinds.num_ranks, *self._kinds, r.jokers_only_plays, r.hold_sixes, r.six_no_jokers,
               r.catch_wind == "apply")

    def observe(self, rows: np.ndarray, dest: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        """`Encoder.encode` of `seats[i]` at `rows[i]` into `out[dest[i]]`."""
        _observe(rows, dest, seats, self.facts, self.seats, self.cards, self.history, self.template, self.constant,
                 out, self._offsets, *self._obs_tables)


__all__ = ["GREEDY_SPEND_AT", "MAX_ACTIONS", "GreedyTables", "PlayArrays", "greedy_tables", "kth_legal", "legal_counts",
           "pick_legal"]
