"""The core issue's property tests for every preset (Hypothesis over seeds and random legal
play), and 1,000 random full games per preset."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baohuang_env import PRESETS, Game, IllegalActionError, get_rules
from baohuang_env.cards import NUM_SEATS

from helpers import random_game

PRESET_NAMES = sorted(PRESETS)
#: The room options of docs/rules.md §8 that change play, each with the rest of its preset.
VARIANTS = [("lianzhong_simple", {"roasting": True}), ("lianzhong_classic", {"roasting": True, "hold_sixes": True}),
            ("lianzhong_simple", {"grab_solo": True}), ("jj", {"hold_sixes": False})]
seeds = st.integers(min_value=0, max_value=2**63 - 1)
PROPERTY = settings(max_examples=25, deadline=None)


def total_cards(game: Game) -> int:
    return sum(map(sum, game.hands)) + sum(game.total_played) + sum(game.pile)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@PROPERTY
@given(seed=seeds, policy_seed=seeds)
def test_cards_conserved_masks_never_empty_and_results_consistent(preset, seed, policy_seed):
    rules = get_rules(preset)
    start = Game(rules, seed=seed)
    cards = total_cards(start)
    per_kind = np.array(start.hands).sum(axis=0)

    def check(game):
        mask = game.legal_mask()
        assert mask.dtype == np.int8 and mask.shape == (game.table.num_actions,) and mask.any()
        assert np.array_equal(np.flatnonzero(mask), game.legal_actions())
        assert 0 <= game.current_player < NUM_SEATS
        assert total_cards(game) == cards
        if not game.kinds.special:  # a call turns one card into SP there
            held = np.array(game.hands).sum(axis=0) + np.array(game.total_played) + np.array(game.pile)
            np.testing.assert_array_equal(held, per_kind)
        if game.phase == "play":
            assert game.cards_left[game.current_player] > 0
            assert not mask[game.table.first_call:].any()

    game = random_game(rules, seed, policy_seed, check)
    r = game.result
    assert not game.legal_mask().any() and game.legal_actions().size == 0
    if rules.scoring != "qingdao":
        assert sum(r.scores) == 0
    if r.end == "played":
        out = [p for p in r.places if p]
        assert sorted(out) == [1, 2, 3, 4, 5]
        side = {r.emperor, r.guard}
        if rules.scoring == "qingdao":  # team scores: teammates equal, the sides opposite
            assert len({r.scores[s] for s in side}) == 1
            rebels = [s for s in range(NUM_SEATS) if s not in side]
            assert len({r.scores[s] for s in rebels}) == 1
            assert r.scores[rebels[0]] == -r.scores[r.emperor]
    else:
        assert r.end in ("void", "surrender") and (r.end != "surrender" or rules.surrender)
    # replays reproduce the game, through JSON
    again = Game.from_replay(json.loads(json.dumps(game.to_replay())))
    assert again.result == r and again.log == game.log


@pytest.mark.parametrize("preset", PRESET_NAMES)
@PROPERTY
@given(seed=seeds, policy_seed=seeds, probe=st.integers(min_value=0, max_value=10**6))
def test_illegal_actions_raise_and_change_nothing(preset, seed, policy_seed, probe):
    rules = get_rules(preset)
    rng = random.Random(policy_seed)
    game = Game(rules, seed=seed)
    for _ in range(probe % 60):
        if game.is_over:
            break
        game.step(rng.choice(game.legal_actions().tolist()))
    if game.is_over:
        return
    illegal = np.flatnonzero(game.legal_mask() == 0)
    action = int(illegal[probe % illegal.size])
    before = json.dumps(game.to_replay()), [h[:] for h in game.hands], game.current_player, list(game.log)
    with pytest.raises(IllegalActionError):
        game.step(action)
    assert (json.dumps(game.to_replay()), game.hands, game.current_player, game.log) == before
    with pytest.raises(IllegalActionError):
        game.step(game.table.num_actions + 3)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_one_thousand_random_games(preset):
    rules = get_rules(preset)
    rng = np.random.default_rng(2026)
    ends: dict[str, int] = {}
    for seed in range(1000):
        game = Game(rules, seed=seed)
        while not game.is_over:
            legal = game.legal_actions()
            game.step(int(legal[rng.integers(legal.size)]))
        r = game.result
        ends[r.end] = ends.get(r.end, 0) + 1
        assert rules.scoring == "qingdao" or sum(r.scores) == 0
        assert r.end != "played" or sorted(r.places) == [1, 2, 3, 4, 5]
    assert ends.get("played", 0) > 900, ends


@pytest.mark.parametrize(("preset", "flags"), VARIANTS)
def test_room_options_play_through(preset, flags):
    """Every action the mask offers is accepted by `step` (roasting, grab, no hold-six)."""
    rules = get_rules(preset, **flags)
    rng = np.random.default_rng(11)
    for seed in range(150):
        game = Game(rules, seed=seed)
        while not game.is_over:
            legal = game.legal_actions()
            game.step(int(legal[rng.integers(legal.size)]))
        assert rules.scoring == "qingdao" or sum(game.result.scores) == 0


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_observations_stay_in_the_unit_box(preset):
    """The envs declare Box(0, 1): every seat's observation at every step of random games
    (abdications skewed up so that long role phases occur) stays inside it."""
    from baohuang_env.encoding import Encoder

    rules = get_rules(preset)
    enc = Encoder(rules)
    rng = np.random.default_rng(3)
    for seed in range(40):
        game = Game(rules, seed=seed)
        while not game.is_over:
            for seat in range(NUM_SEATS):
                o = enc.encode(game, seat)
                assert o.min() >= 0.0 and o.max() <= 1.0, (seed, seat, enc.decode(o))
            legal = game.legal_actions()
            abdicate = [a for a in legal.tolist() if game.describe(a) == "ABDICATE"]
            game.step(abdicate[0] if abdicate and rng.random() < 0.8 else int(legal[rng.integers(legal.size)]))
