"""The heuristic bot's and its advice's speed-ups change nothing: every decision of
`HeuristicAgent.act`, every value of `HeuristicAdvice.rows`, every `guard_belief` and every
`SeatView` fact, at every decision of ~200 seeded games over all six presets, hashes to the
digests recorded before the speed-ups (`tests/data/heuristic_digests.json`).

The games are played by one bot object for all five seats (so its memo of the last
decision sees the seats and games change under it), each move the bot's or, one time in
four, a random legal move (so the games reach states the bot alone would not). At each
decision the walk does what a DMC actor does: the advice rows, then the teacher's `act` on
the same observation and mask; the bot's `act` is given the observation through one reused
buffer (same object, new content).

The advice rows are compared bit for bit where numpy's exp and log round as on the machine
that recorded the digests (`float_fingerprint`), and to 1e-6 elsewhere (another CPU's numpy
kernels may differ in the last bit); everything else always bit for bit. To record the
digests again (only when a change of the bot's play, the deals or the observations is
intended), run `python tests/test_heuristic_speed.py` on the code whose play is the reference.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.nets.advice import HeuristicAdvice
from agents.bots.heuristic import HeuristicAgent
from agents.view import SeatView
from baohuang_env import Game, get_rules
from baohuang_env.encoding import Encoder
from baohuang_env.rules import PRESETS

DIGESTS = Path(__file__).parent / "data" / "heuristic_digests.json"
GAMES_PER_PRESET = 34
RANDOM_MOVE = 0.25
#: Every fact a `SeatView` offers (its lazily decoded ones included).
VIEW_FACTS = ("phase", "hand", "unseen", "cards_left", "played", "passed", "places", "emperor", "emperor_card",
              "guard", "role", "hold_guard_card", "open_guard", "open_solo", "leading", "declines", "trick",
              "trick_seat", "trick_play", "history_cards", "history_seat", "history_pass", "team", "active")


def view_bytes(v: SeatView) -> bytes:
    """The facts of `v`, exactly: each array's dtype, shape and bytes, each other value's repr."""
    parts = []
    for name in VIEW_FACTS:
        x = getattr(v, name)
        array = isinstance(x, np.ndarray)
        parts.append(f"{x.dtype.str}{x.shape}".encode() + x.tobytes() if array else repr(x).encode())
    return b"|".join(parts)


def float_fingerprint() -> str:
    """What this numpy's exp and log (the ones the bot's card tracking uses) give on a fixed grid."""
    x = np.linspace(-40.0, 0.0, 4097)
    return hashlib.sha256(np.exp(x).tobytes() + np.log(np.exp(x)).tobytes()).hexdigest()[:16]


def digest(preset: str, games: int = GAMES_PER_PRESET) -> dict[str, int | str]:
    """SHA-256 over every (action, advice rows, guard belief, view) of `games` seeded games of
    `preset`: `sha256` with the rows bit for bit, `rounded` with the rows rounded to 1e-6."""
    rules = get_rules(preset)
    enc, bot, advice = Encoder(rules), HeuristicAgent(rules), HeuristicAdvice(rules)
    buf = np.zeros(enc.size, dtype=np.float32)
    h, rounded = hashlib.sha256(), hashlib.sha256()
    rng = np.random.default_rng(list(preset.encode()))
    decisions = 0
    for seed in range(games):
        game = Game(rules, seed=seed)
        while not game.is_over:
            mask = game.legal_mask()
            legal = np.flatnonzero(mask)
            obs = enc.encode(game, game.current_player)
            rows = advice.rows(obs, mask, legal)
            buf[:] = obs
            action = bot.act(buf, mask)
            facts = np.int64(action).tobytes() + bot.guard_belief(obs).tobytes() + view_bytes(SeatView(obs, rules))
            h.update(facts + rows.tobytes())
            rounded.update(facts + np.round(rows.astype(np.float64), 6).tobytes())
            decisions += 1
            game.step(int(rng.choice(legal)) if rng.random() < RANDOM_MOVE else action)
    return {"games": games, "decisions": decisions, "sha256": h.hexdigest(), "rounded": rounded.hexdigest()}


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_decisions_and_advice_match_the_recorded_digests(preset):
    recorded = json.loads(DIGESTS.read_text())
    got, want = digest(preset), recorded["presets"][preset]
    if float_fingerprint() != recorded["float_fingerprint"]:
        got, want = {**got, "sha256": None}, {**want, "sha256": None}
    assert got == want


def test_recent_decisions_answer_by_content():
    """The recent decisions, shared by the bots of one configuration, answer as deciding
    afresh does, whatever array holds the inputs: three games played in turns through one
    reused buffer, each turn's decisions first asked of one bot (as a DMC actor asks its
    advice about a turn), then of a teacher that may only look them up, then with the
    action taken out of the mask (same observation, another mask: decided afresh)."""
    rules = get_rules("jj")
    enc, bot, teacher, other = Encoder(rules), HeuristicAgent(rules), HeuristicAgent(rules), HeuristicAgent(rules)
    teacher._decide = lambda *_: pytest.fail("the teacher decided afresh")
    buf = np.zeros(enc.size, dtype=np.float32)
    games = [Game(rules, seed=seed) for seed in (1, 2, 3)]
    changed = 0  # decisions that the other mask changes (where a stale answer would show)
    while not all(game.is_over for game in games):
        turn = [(game, enc.encode(game, game.current_player), game.legal_mask()) for game in games if not game.is_over]
        actions = []
        for _, obs, mask in turn:
            buf[:] = obs
            actions.append(bot.decide(buf, mask)[0])
        for (game, obs, mask), action in zip(turn, actions, strict=True):
            buf[:] = obs
            assert teacher.act(buf, mask) == action == bot._decide(obs, mask)[0]
            if np.count_nonzero(mask) > 1:
                fewer = mask.copy()
                fewer[action] = 0
                fresh = bot._decide(obs, fewer)[0]
                assert other.act(buf, fewer) == fresh
                changed += fresh != action
            game.step(action)
    assert changed > 50


if __name__ == "__main__":
    record = {"float_fingerprint": float_fingerprint(), "presets": {p: digest(p) for p in sorted(PRESETS)}}
    DIGESTS.write_text(json.dumps(record, indent=1) + "\n")
    sys.stdout.write(DIGESTS.read_text())
