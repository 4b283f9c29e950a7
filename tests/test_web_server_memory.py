"""What a game of `baohuang serve` costs in memory: little, since the games of a store share
the heavy parts of their rules (the observation encoder, ~3 MB; the stateless bots, a
heuristic one ~0.8 MB), and a dropped game frees what it held."""

from __future__ import annotations

import gc
import tracemalloc
import weakref

import pytest

pytest.importorskip("starlette")

from baohuang_web.sessions import MAX_ADVANCE, GameSession, SessionStore

from web_helpers import SPECS, seeded_store

#: Megabytes a game may hold at most (with the encoder per game it held ~4 MB).
MB_PER_GAME = 0.3
GAMES = 200


def _new_game(store: SessionStore, i: int) -> GameSession:
    """Game i: the human at seat i % 5, the offered bots in turn, moved to the human's turn."""
    _, session = store.create("jj", i % 5, [SPECS[(i + k) % len(SPECS)] for k in range(4)])
    session.advance(MAX_ADVANCE)
    return session


def _traced_growth(store: SessionStore, games: int) -> float:
    """Megabytes still allocated after `games` new games, beyond what the store held once
    its shared parts were built (a few warm-up games build them first)."""
    for i in range(len(SPECS)):
        _new_game(store, i)
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for i in range(games):
            _new_game(store, i)
        gc.collect()
        return (tracemalloc.get_traced_memory()[0] - start) / 1e6
    finally:
        tracemalloc.stop()


def test_a_game_costs_well_under_a_third_of_a_megabyte():
    store = seeded_store(max_games=1000)
    per_game = _traced_growth(store, GAMES) / GAMES
    assert len(store) == GAMES + len(SPECS)
    assert per_game < MB_PER_GAME, f"{per_game:.3f} MB per game"


def test_the_games_share_one_encoder_and_one_copy_of_each_stateless_bot():
    store = seeded_store()
    _, one = store.create("jj", 0, ["greedy", "heuristic", "random", "greedy"])
    _, two = store.create("jj", 0, ["greedy", "heuristic", "random", "greedy"])
    assert one.encoder is two.encoder
    assert one.bots[1] is one.bots[4] is two.bots[1] and one.bots[2] is two.bots[2]
    assert one.bots[3] is not two.bots[3]  # the random bot draws from its own game's generator


def test_dropped_games_are_freed_and_the_memory_of_many_creations_stays_bounded():
    store = seeded_store(max_games=20)
    made = [weakref.ref(_new_game(store, i)) for i in range(GAMES)]
    gc.collect()
    assert len(store) == 20 and sum(ref() is not None for ref in made) == 20
    growth = _traced_growth(store, GAMES)
    assert growth < 20 * MB_PER_GAME, f"{growth:.2f} MB after {GAMES} games in a store of 20"
