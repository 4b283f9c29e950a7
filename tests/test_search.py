"""Decision-time search (agents/search.py) and what it stands on: the information state
(baohuang_env/infostate.py), drawing and advancing worlds from it (resample_info, advance),
and loading a game into a batch row (BatchedGames.load_rows)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.search import PHASES, PhaseStats, SearchAgent, SearchSettings, SearchStats, cards_left, phase
from baohuang_env.agent import RandomAgent, act_each, make_agent
from baohuang_env.batched.games import BatchedGames
from baohuang_env.encoding import Encoder
from baohuang_env.game import PLAY, Game
from baohuang_env.infostate import info_state
from baohuang_env.resample import advance, resample, resample_info
from baohuang_env.rules import PRESETS, get_rules
from baohuang_eval.play import Table, play_games


def played_to(rules, seed: int, steps: int) -> Game:
    """A game of `seed` after `steps` random moves (a seeded generator of its own)."""
    game, rng = Game(rules, seed=seed), np.random.default_rng(seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.step(int(rng.choice(game.legal_actions())))
    return game


def twin(game: Game, seat: int, rng) -> Game:
    """A game `seat` cannot tell from `game` whose hidden hands differ from it."""
    for _ in range(50):
        other = resample(game, seat, rng)
        if other.hands != game.hands:
            return other
    raise AssertionError("no draw with other hidden hands")


@pytest.mark.parametrize("preset", list(PRESETS))
def test_games_a_seat_cannot_tell_apart_give_it_one_information_state(preset):
    rules = get_rules(preset)
    rng = np.random.default_rng(3)
    for seed, steps in ((1, 40), (2, 90)):
        game = played_to(rules, seed, steps)
        seat = game.current_player
        other = twin(game, seat, rng)
        assert other.hands[seat] == game.hands[seat] and other.hands != game.hands
        assert info_state(other, seat).key() == info_state(game, seat).key()
        # and another seat, who sees other cards, tells them apart
        assert any(info_state(other, s).key() != info_state(game, s).key() for s in range(5) if s != seat)


@pytest.mark.parametrize("preset", ["jj", "lianzhong_classic", "generic216"])
def test_a_world_advanced_by_the_next_moves_still_agrees_with_the_seat(preset):
    rules = get_rules(preset)
    rng = np.random.default_rng(4)
    game = played_to(rules, 5, 60)
    seat = game.current_player
    world = resample_info(info_state(game, seat), rng)
    moves = np.random.default_rng(9)
    for _ in range(12):
        if game.is_over:
            break
        game.step(int(moves.choice(game.legal_actions())))
    kept = advance(world.copy(), info_state(game, seat))
    if kept is not None:  # it may fall out (a move the world's hands cannot make); if kept, it agrees
        enc = Encoder(rules)
        assert kept.actions == game.actions
        assert enc.encode(kept, seat).tobytes() == enc.encode(game, seat).tobytes()
    assert advance(game.copy(), info_state(game, seat)) is not None  # the true game always agrees
    assert advance(played_to(rules, 6, 60), info_state(game, seat)) is None  # another deal's history does not


@pytest.mark.parametrize("preset", ["jj", "qingdao", "lianzhong_classic"])
def test_a_loaded_row_plays_on_as_its_game(preset):
    rules = get_rules(preset)
    enc = Encoder(rules)
    games = [played_to(rules, s, n) for s, n in ((1, 3), (2, 45), (3, 80))]
    games = [g for g in games if not g.is_over]
    world = resample(games[-1], games[-1].current_player, np.random.default_rng(0))  # a hand-built deal
    games.append(world)
    batch = BatchedGames(rules, len(games) + 1, autoreset="none", observe=False)
    batch.reset(list(range(len(games) + 1)))
    step = batch.load_rows(range(len(games)), games)
    mirrors = [g.copy() for g in games]
    rng = np.random.default_rng(7)
    for _ in range(400):
        live = [b for b in range(len(games)) if step.seat[b] >= 0]
        if not live:
            break
        for b in live:
            assert step.mask[b].tobytes() == mirrors[b].legal_mask().tobytes()
            assert batch.observe([b])[0].tobytes() == enc.encode(mirrors[b], mirrors[b].current_player).tobytes()
        actions = np.zeros(batch.num_games, dtype=np.int64)
        for b in live:
            actions[b] = int(rng.choice(mirrors[b].legal_actions()))
            mirrors[b].step(int(actions[b]))
        step = batch.step(actions, live)
        for b, result, _ in step.ended:
            assert result.scores == mirrors[b].result.scores
    assert all(m.is_over for m in mirrors)
    assert batch.games[len(games) - 1].actions == mirrors[-1].actions  # a hand-built deal's row rebuilds


def test_settings_from_a_spec():
    assert SearchSettings.parse(None) == SearchSettings()
    s = SearchSettings.parse("w=4:m=2:rollout=heuristic:depth=3:limit=50:endgame=60:base=dmc:runs/a:b.pt")
    assert (s.worlds, s.top, s.rollout, s.depth, s.limit_ms, s.endgame, s.base) == (
        4, 2, "heuristic", 3, 50, 60, "dmc:runs/a:b.pt")
    assert SearchSettings.parse(s.spec.removeprefix("search:")) == s
    paired = SearchSettings.parse("w=12:t=0.15:k=2:batch=4:double=1")
    assert (paired.thresh, paired.k, paired.batch, paired.batch_worlds, paired.double) == (0.15, 2.0, 4, 4, 1)
    assert ":t=0.15:k=2:batch=4:double=1:" in paired.spec
    assert SearchSettings.parse(paired.spec.removeprefix("search:")) == paired
    window = SearchSettings.parse("endgame=120:stop=80")  # one phase of the deal
    assert (window.endgame, window.stop, SearchSettings().stop) == (120, 80, 0)
    assert ":endgame=120:stop=80:" in window.spec
    assert SearchSettings.parse(window.spec.removeprefix("search:")) == window
    assert SearchSettings.parse("endgame=0:stop=120").stop == 120  # every decision while more than 120 are left
    default = SearchSettings()  # the paired rule chosen on tuning deals (docs/search.md)
    assert (default.worlds, default.thresh, default.k, default.batch_worlds, default.double) == (16, 0.1, 2.0, 4, 0)
    assert SearchSettings(worlds=3).batch_worlds == 3  # a batch larger than the worlds: all at once
    for bad, says in (("w=0", "w >= 1"), ("rollout=mcts", "rollout='mcts'"), ("x=1", "unknown setting"),
                      ("w=two", "integer"), ("base=", "needs an agent spec"), ("m=2base=heuristic", "base=SPEC last"),
                      ("limit=-1", "milliseconds"), ("depth=0", "the seat's own turns"),
                      ("endgame=-5", "cards left in all hands"), ("k=-1", "k must be a number >= 0"),
                      ("t=-0.5", "t must be a number >= 0"), ("t=nan", "t must be"), ("k=two", "k must be a number"),
                      ("w=4:batch=-1", "1 or more"), ("double=2", "double is 1"),
                      ("batch=1.5", "batch must be an integer"), ("stop=-1", "stop must be 0"),
                      ("endgame=80:stop=80", "below endgame=80"), ("stop=x", "stop must be an integer")):
        with pytest.raises(ValueError, match=says):
            SearchSettings.parse(bad)


@pytest.fixture(scope="module")
def jj_base():
    return make_agent("pretrained:dmc_kickstart_jj", get_rules("jj"))


def test_search_sees_only_the_information_state_swapped_hidden_hands_give_one_decision(jj_base):
    rules = get_rules("jj")
    rng = np.random.default_rng(11)
    settings = SearchSettings(worlds=3, top=2, depth=1, sampler="informed")
    checked = 0
    for seed in range(20, 40):
        game = played_to(rules, seed, 50)
        if game.is_over or game.phase != PLAY or np.count_nonzero(game.legal_mask()) < 2:
            continue
        seat = game.current_player
        other = twin(game, seat, rng)
        a = SearchAgent(rules, settings, seed=5, base=jj_base)
        b = SearchAgent(rules, settings, seed=5, base=jj_base)
        ra, rb = a.search(info_state(game, seat)), b.search(info_state(other, seat))
        assert (ra.candidates, ra.means, ra.choice) == (rb.candidates, rb.means, rb.choice)
        checked += 1
    assert checked >= 5


def test_search_plays_whole_games_through_the_evaluation_driver(jj_base):
    rules = get_rules("jj")
    search = SearchAgent(rules, SearchSettings(worlds=2, top=2, depth=1, endgame=0), seed=1, base=jj_base)
    tables = [Table(seed, [search, jj_base, jj_base, jj_base, jj_base], ["search", *["base"] * 4], f"deal {seed}")
              for seed in (100, 101)]
    for played in play_games(rules, tables):
        assert played.result is not None and sum(1 for p in played.result.places if p) >= 4
    # the driver plays its forced moves without asking it (nor building its information state)
    assert search.stats.searched > 0 and search.stats.decisions == search.stats.searched
    assert search.stats.failed == 0


def mid_deal_decision(rules):
    """A jj decision with a choice 70 random moves into deal 31: (game, seat, its observation,
    its mask, the cards left in all hands, which the observation's `cards_left` agrees with)."""
    game = played_to(rules, 31, 70)
    seat = game.current_player
    obs, mask = Encoder(rules).encode(game, seat), game.legal_mask()
    left = sum(game.cards_left)
    assert cards_left(obs, rules) == left and np.count_nonzero(mask) > 1
    return game, seat, obs, mask, left


def test_an_endgame_search_plays_the_base_move_until_few_cards_are_left(jj_base):
    """endgame=N: the base policy's move, asked from the observation alone (`unsearched_move`:
    the drivers build no information state for it), while more than N cards are left in all
    hands together; the search's from there on."""
    rules = get_rules("jj")
    game, seat, obs, mask, left = mid_deal_decision(rules)
    early = SearchAgent(rules, SearchSettings(worlds=2, top=2, endgame=left - 1), seed=2, base=jj_base)
    assert early.unsearched_move(obs, mask) == jj_base.act(obs, mask)
    assert early.act_info(info_state(game, seat)) == jj_base.act(obs, mask)
    assert (early.stats.decisions, early.stats.searched) == (2, 0)
    late = SearchAgent(rules, SearchSettings(worlds=2, top=2, endgame=left), seed=2, base=jj_base)
    assert late.unsearched_move(obs, mask) is None
    late.act_info(info_state(game, seat))
    assert (late.stats.decisions, late.stats.searched) == (1, 1)
    # the evaluation driver asks before it builds an information state: a whole game, its end searched
    agent = SearchAgent(rules, SearchSettings(worlds=2, top=2, endgame=80), seed=2, base=jj_base)
    table = Table(102, [agent, jj_base, jj_base, jj_base, jj_base], ["search", *["base"] * 4], "deal 102")
    assert play_games(rules, [table])[0].result is not None
    assert 0 < agent.stats.searched < agent.stats.decisions


def test_a_stop_searches_only_while_more_cards_are_left(jj_base):
    """stop=L: the base policy's move once at most L cards are left in all hands, so that
    endgame=N:stop=L searches one window of the deal, N >= cards left > L."""
    rules = get_rules("jj")
    game, seat, obs, mask, left = mid_deal_decision(rules)
    for endgame, stop, searched in ((left, left - 1, True), (0, left - 1, True), (left + 10, left, False),
                                    (0, left, False), (left - 1, left - 10, False)):
        agent = SearchAgent(rules, SearchSettings(worlds=2, top=2, endgame=endgame, stop=stop), seed=2, base=jj_base)
        assert (agent.unsearched_move(obs, mask) is None) is searched
        move = agent.act_info(info_state(game, seat))
        assert (agent.stats.searched == 1) is searched
        if not searched:
            assert move == jj_base.act(obs, mask)
    # a whole game through the evaluation driver: only the window's decisions are searched
    agent = SearchAgent(rules, SearchSettings(worlds=2, top=2, endgame=120, stop=80), seed=2, base=jj_base)
    table = Table(102, [agent, jj_base, jj_base, jj_base, jj_base], ["search", *["base"] * 4], "deal 102")
    assert play_games(rules, [table])[0].result is not None
    assert agent.stats.searched == agent.stats.phases["120-81"].searched > 0
    assert agent.stats.searched < agent.stats.decisions


def test_a_play_out_is_scored_by_the_seats_own_value_at_its_next_turn(jj_base):
    """depth=1 with the base as rollout: each (world, candidate) is the base's moves at the
    other seats up to the searching seat's next turn, scored there by its own best Q."""
    rules = get_rules("jj")
    enc = Encoder(rules)
    game = played_to(rules, 31, 70)
    seat = game.current_player
    agent = SearchAgent(rules, SearchSettings(worlds=2, top=2, depth=1), seed=2, base=jj_base)
    info = info_state(game, seat)
    moves = agent.candidates(info)
    worlds = agent.worlds(info)
    got = agent.play_out(seat, worlds, moves)
    assert got.shape == (len(worlds), len(moves))
    for w, world in enumerate(worlds):
        for i, move in enumerate(moves):
            g = world.copy()
            g.step(move)
            while not g.is_over and g.current_player != seat:
                g.step(jj_base.act(enc.encode(g, g.current_player), g.legal_mask()))
            if g.is_over:
                want = float(np.sign(g.result.scores[seat]))
            else:
                want = float(jj_base.values_many(enc.encode(g, seat)[None], g.legal_mask()[None])[0])
            assert got[w, i] == pytest.approx(want, abs=1e-5)


def test_full_rollouts_score_each_candidate_over_every_world(jj_base):
    rules = get_rules("jj")
    game = played_to(rules, 31, 70)
    assert game.phase == PLAY and not game.is_over
    agent = SearchAgent(rules, SearchSettings(worlds=2, top=2, rollout="greedy", depth=-1), seed=2, base=jj_base)
    result = agent.search(info_state(game, game.current_player))
    assert result.worlds == 2 and len(result.means) == len(result.candidates) >= 2
    assert all(-1.0 <= m <= 1.0 for m in result.means)  # win results: the mean of signs
    assert result.choice == result.candidates[int(np.argmax(result.means))] or \
        max(result.means) == result.means[0]


def test_drivers_without_the_information_state_refuse_a_searching_agent(jj_base):
    rules = get_rules("jj")
    agent = SearchAgent(rules, SearchSettings(worlds=1, top=1), base=jj_base)
    mask = Game(rules, seed=0).legal_mask()
    with pytest.raises(ValueError, match="information state"):
        agent.act(np.zeros(1, dtype=np.float32), mask)
    with pytest.raises(ValueError, match="does not give"):
        act_each([agent, RandomAgent(0)], [mask, mask], lambda js: None)
    with pytest.raises(ValueError, match="action values"):
        SearchAgent(rules, SearchSettings(base="heuristic"))


def test_the_page_hint_of_a_search_lists_each_candidates_mean_and_the_worlds_within_its_limit(jj_base):
    pytest.importorskip("starlette")
    from web_helpers import client_for, seeded_store, start_game

    store = seeded_store(hint_spec="search:w=3:m=2:depth=1:limit=2000:base=pretrained:dmc_kickstart_jj,heuristic")
    client = client_for(store)
    game_id, headers, view = start_game(client, seat=0)
    hint = None
    for _ in range(400):  # the human plays its first legal move until a play-phase turn with a choice
        if view["your_turn"] and view["phase"] == "play" and len(view["moves"]) > 1:
            hint = client.get(f"/api/games/{game_id}/hints", headers=headers).json()
            break
        url = "action" if view["your_turn"] else "advance"
        body = {"action": view["moves"][0]["id"]} if view["your_turn"] else {}
        view = client.post(f"/api/games/{game_id}/{url}", headers=headers, json=body).json()
    assert hint is not None and hint["agent"].startswith("search:") and hint["kind"] == "search"
    assert hint["worlds"] == 3 and hint["limit_ms"] == 2000 and "3 imagined deals" in hint["value_name"]
    values = [m["value"] for m in hint["moves"]]
    assert values == sorted(values, reverse=True) and len(values) >= 2
    assert {m["id"] for m in hint["moves"]} <= {m["id"] for m in view["moves"]}


def test_a_time_limit_stops_drawing_worlds(jj_base):
    rules = get_rules("jj")
    game = played_to(rules, 31, 70)
    info = info_state(game, game.current_player)
    every_world = {"thresh": 0, "k": 0, "batch": 0}  # the race never stops before the last world
    free = SearchAgent(rules, SearchSettings(worlds=40, top=2, depth=1, **every_world), seed=3,
                       base=jj_base).search(info)
    limited = SearchAgent(rules, SearchSettings(worlds=40, top=2, depth=1, limit_ms=1, **every_world), seed=3,
                          base=jj_base).search(info)
    assert free.worlds == 40 and 1 <= limited.worlds < 40


def test_play_outs_still_running_at_the_time_limit_are_scored_by_the_base_values(jj_base):
    """With the deadline passed, every (world, candidate) is scored right after the move by the
    base's value of the acting seat, signed by its side against the searching seat's: the
    limit bounds the play-outs too (a hint comes within the limit the page states)."""
    rules = get_rules("jj")
    enc = Encoder(rules)
    game = played_to(rules, 31, 70)
    seat = game.current_player
    agent = SearchAgent(rules, SearchSettings(worlds=2, top=2, depth=-1), seed=2, base=jj_base)
    info = info_state(game, seat)
    moves, worlds = agent.candidates(info), agent.worlds(info)
    got = agent.play_out(seat, worlds, moves, deadline=0.0)
    for w, world in enumerate(worlds):
        for i, move in enumerate(moves):
            g = world.copy()
            g.step(move)
            actor = g.current_player
            value = float(jj_base.values_many(enc.encode(g, actor)[None], g.legal_mask()[None])[0])
            royal = (g.emperor, g.guard)
            assert got[w, i] == pytest.approx(value if (actor in royal) == (seat in royal) else -value, abs=1e-5)


def test_baohuang_play_against_search_opponents_finishes_a_game(tmp_path, capsys, monkeypatch, jj_base):
    import io
    import sys

    from baohuang_cli import cli

    path = tmp_path / "game.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("#1\n" * 400))  # the human always plays its first move
    assert cli.main(["play", "--seat", "4", "--seed", "4", "--opponents", "search:w=2:m=2:depth=1",
                     "--save", str(path)]) == 0
    out = capsys.readouterr().out
    assert "seat 0: search:w=2:m=2:depth=1" in out and "Your score:" in out
    assert Game.from_replay(path.read_text()).is_over


@pytest.mark.parametrize("preset", ["jj", "lianzhong_classic"])
def test_uniform_worlds_replay_legally_and_spread_a_hidden_guard_card_over_every_other_seat(preset):
    rules = get_rules(preset)
    rng = np.random.default_rng(8)
    # the first of these games where some seat does not know the guard (a hidden guard card)
    game = next(g for g in (played_to(rules, seed, 45) for seed in range(12, 40))
                if preset != "jj" or len(info_state(g, g.current_player).guard_seats) > 1)
    spread = 0
    for seat in range(5):
        info = info_state(game, seat)
        holders = set()
        for _ in range(30):
            world = resample_info(info, rng, uniform=True)
            assert world.actions == game.actions and world.cards_left == game.cards_left
            assert world.hands[seat] == game.hands[seat]
            holders.add(world.guard_card_seat)
        if info.guard_card_kept and len(info.guard_seats) > 1:  # hidden from him: any other seat may hold it
            assert holders == {s for s in range(5) if s != seat}
            spread += 1
    assert spread >= (2 if preset == "jj" else 0)  # jj: the guard is hidden from the rebels here


def test_generic216s_call_turning_the_4th_copy_into_sp_tells_no_other_seat_who_holds_it():
    """The call relabels the guard's 4th copy as SP in his hand, a secret move: the cards each
    seat is known to have given away (`dealt_at_least`) are the same just before and after it,
    for every seat but the guard (who knows), and a played SP counts as a card of the called rank."""
    rules = get_rules("generic216")
    checked = 0
    for seed in range(40):
        game, rng = Game(rules, seed=seed), np.random.default_rng(seed)
        while not game.is_over and game.roles.called < 0:
            before = game.copy()
            game.step(int(rng.choice(game.legal_actions())))
        guard = game.roles.guard_card_seat
        if game.roles.called < 0 or guard < 0:
            continue  # no call, or a hidden solo: no 4th copy changed hands
        checked += 1
        for viewer in range(5):
            if viewer != guard:
                np.testing.assert_array_equal(info_state(game, viewer).dealt_at_least,
                                              info_state(before, viewer).dealt_at_least)
        assert info_state(game, 0).dealt_at_least[:, game.kinds.sp].sum() == 0
    assert checked >= 10


def searched_decisions(rules, count: int) -> list[tuple[Game, int]]:
    """`count` seeded play-phase decisions of jj with more than one legal move: (game, seat)."""
    found = []
    for seed in range(60, 200):
        game = played_to(rules, seed, 40 + seed % 60)
        if not game.is_over and game.phase == PLAY and np.count_nonzero(game.legal_mask()) > 1:
            found.append((game, game.current_player))
        if len(found) == count:
            return found
    raise AssertionError(f"fewer than {count} decisions")


def recording(agent: SearchAgent, monkeypatch) -> list[np.ndarray]:
    """The per-world results of every `play_out` of `agent` from now on."""
    seen, real = [], agent.play_out

    def play_out(*args, **kwargs):
        seen.append(real(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(agent, "play_out", play_out)
    return seen


def test_no_threshold_no_bound_and_one_batch_choose_exactly_todays_argmax(jj_base, monkeypatch):
    """t=0, k=0, all worlds in one batch (the rule before the paired defaults): the mean paired difference from the base
    move is positive exactly when the mean is above the base move's, so the choice is today's
    argmax of the means over the same per-world results, ties to the base move."""
    rules = get_rules("jj")
    deviated = kept = 0
    for game, seat in searched_decisions(rules, 8):
        argmax = SearchSettings(worlds=6, top=3, depth=1, thresh=0, k=0, batch=0)
        agent = SearchAgent(rules, argmax, seed=seat, base=jj_base)
        seen = recording(agent, monkeypatch)
        result = agent.search(info_state(game, seat))
        [results] = seen
        means = results.mean(axis=0)
        today = max(range(len(result.candidates)), key=lambda i: (means[i], i == 0))
        assert result.choice == result.candidates[today]
        assert result.means == pytest.approx(means.tolist())
        assert [e.gain for e in result.estimates] == pytest.approx((means - means[0]).tolist())
        deviated += today != 0
        kept += today == 0
    assert deviated and kept  # both kinds of choice were checked


@pytest.mark.parametrize("strict", ["t=10", "k=100"])
def test_a_high_threshold_or_a_wide_bound_keeps_the_base_move(jj_base, strict):
    rules = get_rules("jj")
    settings = SearchSettings.parse(f"w=6:m=3:depth=1:{strict}")
    for game, seat in searched_decisions(rules, 6):
        agent = SearchAgent(rules, settings, seed=seat, base=jj_base)
        result = agent.search(info_state(game, seat))
        assert result.choice == result.candidates[0]
        assert agent.stats.changed == 0


def scripted(agent: SearchAgent, monkeypatch, gains: dict[int, list[float]]) -> list[list[int]]:
    """Replace `agent.play_out` by fixed results: the base move 0 in every world, candidate i
    `gains[i]` in world w (cycling over the list, w counted over the calls); returns the moves
    of each call."""
    calls: list[list[int]] = []
    done = [0]

    def play_out(viewer, worlds, moves, deadline=None, seeds=None):
        calls.append(list(moves))
        out = np.zeros((len(worlds), len(moves)))
        for j, move in enumerate(moves[1:], start=1):
            g = gains[move]
            out[:, j] = [g[(done[0] + w) % len(g)] for w in range(len(worlds))]
        done[0] += len(worlds)
        return out

    monkeypatch.setattr(agent, "play_out", play_out)
    return calls


@pytest.fixture(scope="module")
def three_candidates(jj_base):
    """A jj decision with at least three candidates: (game, seat, the base move, two others)."""
    rules = get_rules("jj")
    for game, seat in searched_decisions(rules, 30):
        moves = SearchAgent(rules, SearchSettings(worlds=1, top=3), base=jj_base).candidates(info_state(game, seat))
        if len(moves) >= 3:
            return game, seat, moves
    raise AssertionError("no decision with three candidates")


def test_sequential_sampling_stops_once_a_candidate_clears_the_test(jj_base, monkeypatch, three_candidates):
    game, seat, moves = three_candidates
    agent = SearchAgent(get_rules("jj"), SearchSettings.parse("w=12:m=3:t=0.1:k=2:batch=3"), seed=1, base=jj_base)
    calls = scripted(agent, monkeypatch, {moves[1]: [0.1, 0.2, 0.3], moves[2]: [0.6, 0.5, 0.7],
                                          **{m: [-1.0] for m in moves[3:]}})
    result = agent.search(info_state(game, seat))
    assert len(calls) == 1 and result.worlds == 3  # one batch of 3 was enough
    assert result.choice == moves[2]  # both clear (gain > 0.1, lower bound > 0): the larger gain
    best = result.estimates[2]
    assert (best.gain, best.worlds, best.better, best.worse) == (pytest.approx(0.6), 3, 3, 0)


def test_sequential_sampling_stops_once_every_other_candidate_is_pruned(jj_base, monkeypatch, three_candidates):
    game, seat, moves = three_candidates
    agent = SearchAgent(get_rules("jj"), SearchSettings.parse("w=12:m=3:t=0.1:k=2:batch=3"), seed=1, base=jj_base)
    # candidate 1 undecided for two batches (gain about 0), then clearly worse; candidate 2 worse from the start
    calls = scripted(agent, monkeypatch, {moves[1]: [0.2, -0.2] * 3 + [-1.0] * 6,
                                          moves[2]: [-0.5, -0.4, -0.6], **{m: [-1.0] for m in moves[3:]}})
    result = agent.search(info_state(game, seat))
    assert result.choice == moves[0]
    assert calls[0] == moves and calls[1] == [moves[0], moves[1]]  # candidate 2 out after the first batch
    assert len(calls) == 3 and result.worlds == 9  # candidate 1 pruned after the third: 3 of 4 batches
    assert result.estimates[2].worlds == 3 and result.estimates[1].worlds == 9
    assert np.isnan(result.means).sum() == 0  # each candidate's mean over the worlds it was played in


def test_an_undecided_race_plays_every_world_and_keeps_the_base_move(jj_base, monkeypatch, three_candidates):
    game, seat, moves = three_candidates
    agent = SearchAgent(get_rules("jj"), SearchSettings.parse("w=12:m=3:t=0.1:k=2:batch=5"), seed=1, base=jj_base)
    calls = scripted(agent, monkeypatch, {m: [1, -1] for m in moves[1:]})
    result = agent.search(info_state(game, seat))
    assert [len(c) for c in calls] == [len(moves)] * 3 and result.worlds == 12  # batches of 5, 5, 2
    assert result.choice == moves[0]


def test_phases_of_the_deal():
    assert [phase(n) for n in (168, 121, 120, 81, 80, 51, 50, 0)] == [
        ">120", ">120", "120-81", "120-81", "80-51", "80-51", "50-0", "50-0"]
    assert [label for label, _ in PHASES] == list(SearchStats().phases)


def test_a_deviation_is_re_estimated_on_fresh_worlds_in_its_phase_bucket(jj_base, monkeypatch, three_candidates):
    game, seat, moves = three_candidates
    rules = get_rules("jj")
    info = info_state(game, seat)
    spec = "w=4:m=3:endgame=0"
    agent = SearchAgent(rules, SearchSettings.parse(f"{spec}:double=1"), seed=1, base=jj_base)
    plain = SearchAgent(rules, SearchSettings.parse(spec), seed=1, base=jj_base)
    for a in (agent, plain):
        calls = scripted(a, monkeypatch, {moves[1]: [0.5], **{m: [-1.0] for m in moves[2:]}})
        assert a.search(info).choice == moves[1]
    assert calls == [moves]  # the plain agent: no re-estimate
    bucket = phase(cards_left(info.observation, rules))
    assert agent.stats.phases[bucket] == PhaseStats(searched=1, deviations=1, reestimates=1, gain_sum=0.5,
                                                    gain_squares=0.25)
    assert all(p == PhaseStats() for label, p in agent.stats.phases.items() if label != bucket)
    # not used for the choice: the agent's own worlds and draws are the plain agent's
    assert agent.rng.bit_generator.state == plain.rng.bit_generator.state
    assert [w.hands for w in agent._particles[seat]] == [w.hands for w in plain._particles[seat]]
    stats = SearchStats.from_dict(agent.stats.to_dict())
    assert stats == agent.stats
    both = stats.merged(plain.stats)
    assert (both.searched, both.changed, both.phases[bucket].reestimates) == (2, 2, 1)


def test_the_re_estimate_draws_as_many_fresh_worlds_and_plays_the_choice_against_the_base(jj_base, monkeypatch):
    rules = get_rules("jj")
    for game, seat in searched_decisions(rules, 12):
        settings = SearchSettings.parse("w=4:m=3:depth=1:t=0:k=0:batch=0:double=1")
        agent = SearchAgent(rules, settings, seed=seat, base=jj_base)
        seen = recording(agent, monkeypatch)
        result = agent.search(info_state(game, seat))
        if result.choice != result.candidates[0]:
            assert [r.shape for r in seen] == [(4, len(result.candidates)), (4, 2)]
            assert agent.stats.searched == agent.stats.changed == 1
            assert sum(p.reestimates for p in agent.stats.phases.values()) == 1
            return
    raise AssertionError("no deviation")


def test_random_rollouts_play_each_world_with_one_seed_for_every_candidate(jj_base):
    """Common random numbers: the same move twice in a world gets the same random play-out."""
    rules = get_rules("jj")
    game = played_to(rules, 31, 70)
    seat = game.current_player
    agent = SearchAgent(rules, SearchSettings(worlds=4, top=2, rollout="random"), seed=2, base=jj_base)
    info = info_state(game, seat)
    move = agent.candidates(info)[0]
    got = agent.play_out(seat, agent.worlds(info), [move, move])
    np.testing.assert_array_equal(got[:, 0], got[:, 1])


def test_compiled_greedy_play_outs_score_every_world_as_the_greedy_bot_stepped_move_by_move(jj_base):
    """rollout=greedy plays the play phase in one compiled call (`BatchedGames.play_greedy`);
    with it turned off the same worlds are played a move at a time by `GreedyAgent.act`: the
    same result in every world for every move, from role-phase and play-phase decisions."""
    rules = get_rules("jj")
    agent = SearchAgent(rules, SearchSettings(worlds=6, top=2, rollout="greedy", objective="score"), seed=5,
                        base=jj_base)
    assert agent.compiled_rollout
    checked = 0
    for seed, steps in ((40, 2), (41, 30), (42, 70), (43, 110), (44, 150)):
        game = played_to(rules, seed, steps)
        if game.is_over:
            continue
        seat = game.current_player
        worlds = agent.worlds(info_state(game, seat))
        moves = game.legal_actions()[:3]
        agent.compiled_rollout = True
        compiled = agent.play_out(seat, worlds, moves)
        agent.compiled_rollout = False
        stepped = agent.play_out(seat, worlds, moves)
        np.testing.assert_array_equal(compiled, stepped)
        checked += 1
    assert checked >= 4


def test_a_search_with_compiled_greedy_play_outs_plays_whole_games_through_the_evaluation_driver(jj_base):
    rules = get_rules("jj")
    search = SearchAgent(rules, SearchSettings(worlds=4, top=2, rollout="greedy", endgame=0), seed=3, base=jj_base)
    assert search.compiled_rollout
    tables = [Table(seed, [jj_base, search, jj_base, jj_base, jj_base], ["base", "search", *["base"] * 3],
                    f"deal {seed}") for seed in (102, 103)]
    for played in play_games(rules, tables):
        assert played.result is not None and sum(1 for p in played.result.places if p) >= 4
    assert search.stats.searched > 0 and search.stats.failed == 0
