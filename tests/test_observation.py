"""The observation layout (`baohuang_env.observation`): the one owner of the slices and their
scales. docs/observation.md's tables must match it; `decode(encode(game, seat))` must give
back the integer facts of the game over random games of every preset; the encoder and
`SeatView` read it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from baohuang_env import FIRST_PLAY, PASS, PRESETS, Game, get_rules
from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import Encoder
from baohuang_env.game import PLAY, ROLE
from baohuang_env.observation import HISTORY_LENGTH, ObservationLayout, observation_layout

from helpers import random_game

DOC = Path(__file__).resolve().parents[1] / "docs" / "observation.md"


def doc_table(header: str) -> list[list[str]]:
    """The rows (cells, backticks stripped) of the Markdown table whose header starts `header`."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip().strip("`") for cell in line.strip().strip("|").split("|")])
    return rows


def scale_text(layout: ObservationLayout, name: str) -> str:
    """How the docs write a slice's scale: one number, "copies" (the copies of each card kind,
    per row), or "copies, then N" (the history: copies for the cards, then N)."""
    s = layout[name]
    values = set(s.scale.tolist())
    if len(values) == 1:
        return f"{values.pop():g}"
    rows = s.scale.reshape(-1, s.shape[-1])
    K = layout.num_kinds
    assert (rows == rows[0]).all(), f"{name}: rows with different scales"
    if np.array_equal(rows[0], layout.copies):
        return "copies"
    rest = set(rows[0, K:].tolist())
    assert np.array_equal(rows[0, :K], layout.copies) and len(rest) == 1, f"{name}: scale {rows[0]}"
    return f"copies, then {rest.pop():g}"


# --------------------------------------------------------------------------- the docs' tables


def test_the_jj_table_in_the_docs_is_the_layout():
    layout = observation_layout(get_rules("jj"))
    rows = doc_table("| slice | offset | length | scale |")
    documented = [(name, int(offset), int(length), scale) for name, offset, length, scale, _ in rows]
    actual = [(s.name, s.offset, s.length, scale_text(layout, s.name)) for s in layout.slices]
    assert documented == actual
    total = re.search(r"Total: \*\*(\d+)\*\* floats", DOC.read_text(encoding="utf-8"))
    assert total and int(total.group(1)) == layout.size


def test_the_preset_only_table_in_the_docs_is_the_layout():
    rows = doc_table("| slice | length | scale | presets |")
    documented = {name: (length, scale, {p.strip() for p in presets.split(",")}) for name, length, scale, presets, _
                  in rows}
    order = [row[0] for row in rows]
    seen: dict[str, set[str]] = {name: set() for name in documented}
    for preset in PRESETS:
        layout = observation_layout(get_rules(preset))
        extras = layout.preset_slices
        assert set(extras) <= set(documented), f"{preset}: undocumented slices {set(extras) - set(documented)}"
        assert list(extras) == [name for name in order if name in extras], f"{preset}: order {extras}"
        sizes = {"calls": layout.table.num_calls, "kinds": layout.num_kinds}
        for name in extras:
            length, scale, _ = documented[name]
            assert layout[name].length == sizes.get(length) or str(layout[name].length) == length, (preset, name)
            assert scale_text(layout, name) == scale, (preset, name)
            seen[name].add(preset)
    assert {name: presets for name, (_, _, presets) in documented.items()} == seen


def test_every_preset_has_the_jj_slices_and_its_own_before_the_history():
    jj = [s.name for s in observation_layout(get_rules("jj")).slices]
    assert observation_layout(get_rules("jj")).preset_slices == ()
    for preset in PRESETS:
        layout = observation_layout(get_rules(preset))
        names = [s.name for s in layout.slices]
        assert names == [*jj[:-1], *layout.preset_slices, jj[-1]], preset


# --------------------------------------------------------------------------- the layout object


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_slices_tile_the_vector_and_the_scale_vector_is_theirs(preset):
    rules = get_rules(preset)
    layout = observation_layout(rules)
    assert observation_layout(rules) is layout  # built once per rule set
    off = 0
    for s in layout.slices:
        assert s.offset == off and s.length == int(np.prod(s.shape)) == s.scale.size
        assert s.span == slice(s.offset, s.stop) and layout.bounds[s.name] == (s.offset, s.stop)
        np.testing.assert_array_equal(layout.scale[s.span], s.scale)
        off = s.stop
    assert off == layout.size == layout.scale.size
    assert (layout.scale >= 1).all() and not layout.scale.flags.writeable
    assert layout["declines"].scale[0] == layout.declines_scale == (10 if rules.void_deal else 5)
    # the encoder delegates to the layout: no second list of slices
    enc = Encoder(rules)
    assert enc.layout is layout and enc.size == layout.size and enc.phases == layout.phases
    assert enc.slices == list(layout.spans) == [(s.name, s.offset, s.length) for s in layout.slices]
    with pytest.raises(KeyError, match="no slice 'nope'"):
        layout["nope"]


def test_decode_without_unscale_gives_views_and_refuses_a_wrong_size():
    rules = get_rules("generic216")
    layout, enc = observation_layout(rules), Encoder(rules)
    v = enc.encode(Game(rules, seed=2), 1)
    views = layout.decode(v, unscale=False)
    assert list(views) == [s.name for s in layout.slices]
    for s in layout.slices:
        assert np.shares_memory(views[s.name], v) and views[s.name].dtype == np.float32
        np.testing.assert_array_equal(views[s.name], v[s.span])
    for name, part in enc.decode(v).items():  # the encoder's decode: views by default
        assert np.shares_memory(part, v), name
    ints = layout.decode(v)
    for s in layout.slices:
        assert ints[s.name].dtype == np.int64
        np.testing.assert_array_equal(layout.read(v, s.name), ints[s.name])
        np.testing.assert_array_equal(enc.decode(v, unscale=True)[s.name], ints[s.name])
    with pytest.raises(ValueError, match="expected"):
        layout.decode(v[:-1])


# --------------------------------------------------------------------------- decode(encode) = the facts


def check_facts(layout: ObservationLayout, enc: Encoder, game: Game) -> None:
    """decode(encode(game, seat), unscale=True) gives back the game's integer facts."""
    rules, table = game.rules, layout.table
    K = layout.num_kinds
    in_role, in_play = game.phase == ROLE, game.phase == PLAY
    for seat in range(NUM_SEATS):
        v = enc.encode(game, seat)
        f = layout.decode(v, unscale=True)
        # every entry is exactly an integer over its scale
        ints = np.concatenate([f[s.name] for s in layout.slices])
        np.testing.assert_allclose(ints / layout.scale, v, rtol=0, atol=1e-6)
        rot = [(seat + i) % NUM_SEATS for i in range(NUM_SEATS)]
        hand = game.hands[seat]
        assert f["my_hand"].reshape(layout["my_hand"].shape).sum(axis=1).tolist() == list(hand)
        deck = layout.copies.astype(int)
        assert f["unseen"].tolist() == [d - p - h for d, p, h in zip(deck, game.total_played, hand, strict=True)]
        assert f["cards_left"].tolist() == [game.cards_left[s] for s in rot]
        assert f["played"].reshape(NUM_SEATS, K).tolist() == [list(game.played[s]) for s in rot]
        assert f["passed"].tolist() == [int(game.passed[s]) for s in rot]
        places = f["place"].reshape(NUM_SEATS, NUM_SEATS)
        assert [int(p.argmax()) + 1 if p.any() else 0 for p in places] == [game.places[s] for s in rot]
        assert f["declines"][0] == (game.abdications if in_role and game.emperor < 0 else 0)
        assert f["hold_guard_card"][0] == (game.guard_card_seat == seat)
        beaten = in_play and game.top >= 0
        trick = table.counts[game.top] if beaten else np.zeros(K, dtype=int)
        assert f["trick"].tolist() == list(trick)
        assert f["trick_player"].tolist() == [int(beaten and s == game.top_player) for s in rot]
        assert f["leading"][0] == (in_play and not beaten and game.current_player == seat)
        history = f["history"].reshape(layout["history"].shape)
        recent = game.history[-HISTORY_LENGTH:][::-1]
        for row, (s, action) in zip(history, recent, strict=False):
            cards = table.counts[action - FIRST_PLAY] if action >= FIRST_PLAY else np.zeros(K, dtype=int)
            assert row[:K].tolist() == list(cards)
            assert row[K:K + NUM_SEATS].tolist() == [int(s == r) for r in rot]
            assert row[-1] == (action == PASS)
        assert not history[len(recent):].any()
        if rules.tribute:
            assert f["pile"].tolist() == list(game.pile)
        if rules.suits_matter and game.suits is None:
            assert not f["my_groups"].any()
        elif rules.suits_matter:
            groups = [game.suits[seat][k][s] if k < table.kinds.num_ranks else hand[k] for k, s in table.calls]
            assert f["my_groups"].tolist() == groups
        if rules.rebellion != "none":
            assert f["rebels"].tolist() == [int(s in game.rebels) for s in rot]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_decode_of_an_encoding_gives_back_the_integer_facts(preset):
    rules = get_rules(preset)
    layout, enc = observation_layout(rules), Encoder(rules)
    for seed in range(3):
        random_game(rules, seed=seed, policy_seed=seed + 100, check=lambda g: check_facts(layout, enc, g))


def check_seat_view(layout: ObservationLayout, enc: Encoder, game: Game) -> None:
    """`SeatView` reads the same facts as the layout's decode."""
    from agents.view import SeatView

    for seat in range(NUM_SEATS):
        v = enc.encode(game, seat)
        f, view = layout.decode(v), SeatView(v, game.rules)
        assert view.hand.tolist() == f["my_hand"].reshape(layout["my_hand"].shape).sum(axis=1).tolist()
        for name in ("unseen", "cards_left", "trick"):
            assert getattr(view, name).tolist() == f[name].tolist(), name
        assert view.played.tolist() == f["played"].reshape(layout["played"].shape).tolist()
        assert view.passed.tolist() == f["passed"].astype(bool).tolist()
        assert view.declines == f["declines"][0] and view.leading == bool(f["leading"][0])
        assert view.hold_guard_card == bool(f["hold_guard_card"][0])
        assert view.phase == (layout.phases[int(f["phase"].argmax())] if f["phase"].any() else None)
        history = f["history"].reshape(layout["history"].shape)
        assert view.history_cards.tolist() == history[:, :layout.num_kinds].tolist()


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_seat_view_reads_the_layout(preset):
    rules = get_rules(preset)
    layout, enc = observation_layout(rules), Encoder(rules)
    random_game(rules, seed=5, policy_seed=7, check=lambda g: check_seat_view(layout, enc, g))
