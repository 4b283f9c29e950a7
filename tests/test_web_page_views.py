"""What the game page's payload says to a person, checked on seeded deals: who won the deal
and why the scores are what they are (the scoring rule with this deal's numbers), why the
6s are missing from the moves under hold-the-sixes, and each seat's last play in the trick.
"""

from __future__ import annotations

import pytest

from baohuang_env import Game, get_rules
from baohuang_env.actions import DECISION_ID, FIRST_PLAY
from baohuang_env.agent import make_agent
from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import Encoder
from baohuang_env.rules import PRESETS
from baohuang_web.views import VIEW_KEYS, result_view, seat_view

OPEN_GUARD = DECISION_ID["OPEN_GUARD"]


def _played(preset: str, seed: int, bot: str = "greedy", open_guard: bool = False,
            until=lambda game: game.is_over) -> Game:
    """A deal of `preset` played by `bot` at every seat until `until` (default: the end);
    with `open_guard` the guard declares himself when he may."""
    rules = get_rules(preset)
    game, agent, enc = Game(rules, seed=seed), make_agent(bot, rules, seed), Encoder(rules)
    while not until(game):
        mask = game.legal_mask()
        if open_guard and mask[OPEN_GUARD]:
            game.step(OPEN_GUARD)
        else:
            game.step(agent.act(enc.encode(game, game.current_player), mask))
    return game


def _view(game: Game, seat: int | None = None) -> dict:
    seat = game.current_player if seat is None else seat
    return seat_view(game, seat, [f"seat {s}" for s in range(NUM_SEATS)], [None] * len(game.log))


def test_the_end_screen_of_a_jj_deal_names_the_winning_side_and_the_formulas_numbers():
    game = _played("jj", seed=1)  # greedy bots: emperor 2nd, guard 3rd
    res = game.result
    e, g = res.emperor, res.guard
    view = result_view(game)
    assert view["winner"] == f"The emperor's side wins: emperor seat {e} and guard seat {g}."
    assert view["score_lines"] == [
        "JJ formula: g = 6 − (emperor's place 2 + guard's place 3) = 1; emperor 2g = +2, guard g = +1, "
        "each rebel −g = -1.",
        "Scores: emperor +2, guard +1, each rebel -1.",
    ]
    assert res.scores[e] == 2 and res.scores[g] == 1


def test_an_open_guard_doubles_the_formula_and_the_end_screen_says_so():
    for seed in range(40):
        game = _played("jj", seed, open_guard=True)
        res = game.result
        if res.open_guard and res.scores[res.emperor]:
            break
    else:
        pytest.fail("no open guard with a non-zero score in 40 deals")
    e, g = res.emperor, res.guard
    rebel = next(s for s in range(NUM_SEATS) if s not in (e, g))
    lines = result_view(game)["score_lines"]
    assert lines[0].startswith(f"JJ formula: g = 6 − (emperor's place {res.places[e]} + guard's place "
                               f"{res.places[g]}) = {(res.scores[g] // 2):d};")
    assert lines[1] == (f"× 2 (open guard 明保): emperor {res.scores[e]:+d}, guard {res.scores[g]:+d}, "
                        f"each rebel {res.scores[rebel]:+d}.")


def test_solo_and_draw_end_screens():
    solo = _played("jj", seed=3)  # a hidden solo won from 1st place
    e = solo.result.emperor
    view = result_view(solo)
    assert view["winner"] == f"Seat {e}, the solo emperor, wins alone against the other four."
    assert view["score_lines"][0].startswith("Solo table: hidden solo (暗独)")
    assert view["score_lines"][1] == f"Seat {e} came 1st: emperor +12, each other player -3."
    draw = _played("jj", seed=2)  # emperor 2nd, guard 4th: g = 0
    view = result_view(draw)
    assert view["winner"] == "A draw: neither side scores."
    assert view["score_lines"][-1] == "g = 0: nobody scores."


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_presets_end_screen_agrees_with_the_engines_scores(preset):
    for seed in range(12):
        game = _played(preset, seed, bot="random")
        res, view = game.result, result_view(game)
        text = " ".join(view["score_lines"])
        e = res.emperor
        if res.end == "void":
            assert view["winner"].startswith("No winner") and not view["score_lines"]
            continue
        side = res.scores[e]
        assert view["winner"].startswith("A draw" if side == 0 else "Seat" if side > 0 and res.solo != "none"
                                         else "The emperor's side" if side > 0 else "The other four" if
                                         res.solo != "none" else "The rebels")
        if res.end == "surrender":
            assert f"the emperor scores {side:+d}" in text
        elif game.rules.scoring == "qingdao":
            assert "place points" in text and f"{side:+d}, the rebels" in text
        else:
            assert f"emperor {side:+d}" in text or (side == 0 and text.endswith("nobody scores."))


def test_hold_the_sixes_is_explained_when_the_sixes_are_missing_from_the_moves():
    def holds_sixes_and_more(game: Game) -> bool:
        s = game.current_player
        return game.phase == "play" and game.hands[s][0] > 0 and sum(game.hands[s]) > game.hands[s][0]

    game = _played("jj", seed=4, until=holds_sixes_and_more)
    view = _view(game)
    assert "6" not in [m["label"][0] for m in view["moves"] if m["kind"] == "play"]
    assert "Hold-the-sixes (憋6): a 6 may only be played as your whole remaining hand" in view["hint_text"]
    # without the rule the 6s are ordinary cards, and nothing is said about them
    game = _played("lianzhong_simple", seed=4, until=holds_sixes_and_more)
    assert "Hold-the-sixes" not in _view(game)["hint_text"]


def test_each_seat_shows_its_last_play_of_the_trick_and_nothing_more():
    game = _played("jj", seed=6, until=lambda g: g.phase == "play" and len(g.history) >= 9)
    view = _view(game)
    assert set(view) == VIEW_KEYS
    trick_start = max(i for i, e in enumerate(game.log) if e[0] in ("trick", "roles"))
    expected: dict[int, str] = {}
    for event in game.log[trick_start + 1:]:
        if event[0] == "play":
            expected[event[1]] = game.describe(event[2])
        elif event[0] == "pass":
            expected[event[1]] = "pass"
    assert expected, "no play in the trick on the table"
    for row in view["seats"]:
        last = row["last_play"]
        if row["seat"] not in expected:
            assert last is None
            continue
        assert last["label"] == expected[row["seat"]]
        assert "".join(last["cards"]) == last["label"].replace("+", "") if last["cards"] else last["label"] == "pass"
    # a new trick clears the table
    while game.log[-1][0] != "trick":
        game.step(int(next(a for a in game.legal_actions() if a >= FIRST_PLAY or game.trick is not None)))
    assert all(row["last_play"] is None for row in _view(game)["seats"])
