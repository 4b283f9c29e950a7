"""Property tests over seeds and random legal play (Hypothesis), and 2,000 random full games."""

from __future__ import annotations

import json
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import reference
from baohuang_env import FIRST_PLAY, PASS, Game, IllegalActionError, action_table, get_rules
from baohuang_env.cards import deck_counts

from helpers import random_game

RULES = get_rules("jj")
TABLE = action_table(RULES)
DECK = deck_counts(RULES).astype(int).tolist()

#: Upper bound on the steps of one deal, from the rules: at most 5 abdication decisions and 5
#: declarations (docs/rules.md §3.2); in play every play removes at least one card (at most 168
#: plays), and after a play at most 4 players pass before the trick ends or someone plays.
MAX_STEPS = 10 + 5 * 168

seeds = st.integers(min_value=0, max_value=2**63 - 1)
PROPERTY = settings(max_examples=60, deadline=None)


def _play_counts(action: int) -> list[int]:
    p = TABLE.play(action)
    counts = [0] * 12
    if p.n:
        counts[reference.RANKS.index(p.rank)] += p.n
    counts[reference.SJ] += p.small
    counts[reference.BJ] += p.big
    return counts


@PROPERTY
@given(seed=seeds, policy_seed=seeds)
def test_cards_are_conserved(seed, policy_seed):
    game = Game(RULES, seed=seed)
    rng = random.Random(policy_seed)
    played = [0] * 12
    while True:
        in_hands = np.sum([game.hand(s) for s in range(5)], axis=0).tolist()
        assert [h + p for h, p in zip(in_hands, played, strict=True)] == DECK
        assert all(c >= 0 for s in range(5) for c in game.hand(s).tolist())
        if game.is_over:
            break
        action = rng.choice(game.legal_actions().tolist())
        seat, hand_before = game.current_player, game.hand(game.current_player).tolist()
        game.step(action)
        if action >= FIRST_PLAY and game.phase != "role":
            used = _play_counts(action)
            played = [a + b for a, b in zip(played, used, strict=True)]
            assert game.hand(seat).tolist() == [a - b for a, b in zip(hand_before, used, strict=True)]


@PROPERTY
@given(seed=seeds, policy_seed=seeds)
def test_game_ends_with_zero_sum_scores_and_valid_places(seed, policy_seed):
    game = random_game(RULES, seed, policy_seed, step_limit=MAX_STEPS)
    r = game.result
    assert game.phase == "over" and game.is_over
    assert sum(r.scores) == 0
    assert sorted(r.places) == [1, 2, 3, 4, 5]
    assert r.emperor in range(5) and r.guard in range(5)
    assert (r.guard == r.emperor) == (r.solo != "none")
    assert r.solo in ("none", "hidden", "open")
    expected_roles = ["rebel"] * 5
    if r.solo == "none":
        expected_roles[r.guard] = "guard"
        expected_roles[r.emperor] = "emperor"
    else:
        expected_roles[r.emperor] = "solo"
    assert r.roles == expected_roles
    # everyone on the same side scores the same, and the emperor's side is never split
    if r.solo == "none":
        rebels = [r.scores[s] for s in range(5) if r.roles[s] == "rebel"]
        assert len(set(rebels)) == 1
        assert r.scores[r.emperor] == 2 * r.scores[r.guard] == -2 * rebels[0]
    else:
        others = {r.scores[s] for s in range(5) if s != r.emperor}
        assert len(others) == 1 and r.scores[r.emperor] == -4 * others.pop()


@PROPERTY
@given(seed=seeds, policy_seed=seeds)
def test_every_game_ends_within_the_bound_and_the_mask_is_never_empty(seed, policy_seed):
    steps = []

    def check(game):
        mask = game.legal_mask()
        assert mask.dtype == np.int8 and mask.shape == (TABLE.num_actions,)
        assert mask.any()
        assert np.array_equal(np.flatnonzero(mask), game.legal_actions())
        assert game.current_player in range(5)
        assert game.hand(game.current_player).sum() > 0 or game.phase == "role"
        if game.phase == "play":
            assert bool(mask[PASS]) == (game.trick is not None)
            assert not mask[1:FIRST_PLAY].any()
        steps.append(1)

    game = random_game(RULES, seed, policy_seed, check, step_limit=MAX_STEPS)
    assert game.is_over and len(steps) <= MAX_STEPS
    assert not game.legal_mask().any() and game.legal_actions().size == 0


@PROPERTY
@given(seed=seeds, policy_seed=seeds)
def test_play_phase_mask_matches_the_reference_generator(seed, policy_seed):
    def check(game):
        if game.phase != "play":
            return
        trick = game.trick
        previous = None if trick is None else tuple(trick[0])
        expected = reference.legal_plays(game.hand(game.current_player).tolist(), previous, RULES)
        got = {tuple(TABLE.play(a)) for a in game.legal_actions().tolist() if a >= FIRST_PLAY}
        assert got == expected

    random_game(RULES, seed, policy_seed, check, step_limit=MAX_STEPS)


def _state(game: Game):
    return (json.dumps(game.to_replay(), sort_keys=True), [game.hand(s).tolist() for s in range(5)],
            game.current_player, game.phase, game.trick, game.legal_mask().tolist(), len(game.log))


@settings(max_examples=25, deadline=None)
@given(seed=seeds, policy_seed=seeds)
def test_legal_actions_step_and_illegal_ones_raise_without_changing_the_state(seed, policy_seed):
    rng = random.Random(policy_seed)

    def check(game):
        legal = game.legal_actions().tolist()
        # every legal action steps (on copies; a sample when there are many)
        for action in legal if len(legal) <= 12 else rng.sample(legal, 12):
            twin = game.copy()
            twin.step(action)
        # a random illegal action raises and changes nothing
        mask = game.legal_mask()
        illegal = rng.choice([*np.flatnonzero(mask == 0).tolist(), TABLE.num_actions + 3, -2])
        before = _state(game)
        try:
            game.step(illegal)
        except IllegalActionError as err:
            assert err.seat == game.current_player and err.phase == game.phase and err.action == illegal
        else:
            raise AssertionError(f"illegal action {illegal} was accepted")
        assert _state(game) == before

    random_game(RULES, seed, policy_seed, check, step_limit=MAX_STEPS)


@settings(max_examples=30, deadline=None)
@given(seed=seeds, policy_seed=seeds)
def test_replay_reproduces_random_games(seed, policy_seed):
    game = random_game(RULES, seed, policy_seed, step_limit=MAX_STEPS)
    again = Game.from_replay(json.loads(json.dumps(game.to_replay())))
    assert again.result == game.result and again.log == game.log


def test_two_thousand_random_games():
    rng = random.Random(2024)
    outcomes = {"none": 0, "hidden": 0, "open": 0}
    open_guards = abdications = 0
    for seed in range(2000):
        game = Game(RULES, seed=seed)
        steps = 0
        while not game.is_over:
            actions = game.legal_actions()
            game.step(int(actions[rng.randrange(len(actions))]))
            steps += 1
        assert steps <= MAX_STEPS
        r = game.result
        assert sum(r.scores) == 0 and sorted(r.places) == [1, 2, 3, 4, 5]
        outcomes[r.solo] += 1
        open_guards += r.open_guard
        abdications += r.emperor != game.first_emperor_card_seat
    # random play reaches every kind of deal (a solo needs E to hold the guard card: ~1 in 5)
    assert all(n > 0 for n in outcomes.values()), outcomes
    assert open_guards > 0 and abdications > 0
