"""Worked example games of every preset, in words: the role phase, the first tricks and the
result. `docs/rules.md` (§8.4) pastes this output; regenerate it with

    python -m baohuang_cli.preset_examples            # every preset
    python -m baohuang_cli.preset_examples weihai     # one

Each example is a real seeded game: in the role phase every seat answers at random (so the
rarer decisions show up), in the play phase the greedy bot plays. For each preset the first
seed whose role phase shows the events in `WANTED` is used, and printed, so that the game can
be replayed.
"""

from __future__ import annotations

import sys

from agents import make_agent
from baohuang_env import Game, get_rules
from baohuang_env.encoding import Encoder
from baohuang_env.game import ROLE
from baohuang_env.rules import PRESETS
from baohuang_env.text import describe_event, result_lines, story

#: Log events (or decision names) an example of each preset should show in its role phase.
WANTED = {
    "jj": {"ABDICATE", "OPEN_GUARD"},
    "weihai": {"REBEL"},
    "lianzhong_classic": {"call", "ABDICATE"},
    "lianzhong_simple": {"tribute", "pile"},
    "qingdao": {"REBEL"},
    "generic216": {"call", "tribute", "guard_card"},
}
#: Tricks shown after the role phase.
TRICKS = 2


def play_example(preset: str, seed: int) -> Game:
    """One game: random answers in the role phase, greedy play after it."""
    rules = get_rules(preset)
    enc = Encoder(rules)
    chooser = make_agent("random", rules, seed)
    player = make_agent("greedy", rules, seed)
    game = Game(rules, seed=seed)
    while not game.is_over:
        seat = game.current_player
        bot = chooser if game.phase == ROLE else player
        game.step(bot.act(enc.encode(game, seat), game.legal_mask()))
    return game


def _features(game: Game) -> set[str]:
    names = set()
    for event in game.log:
        names.add(event[0])
        if event[0] == "decide":
            name = game.describe(event[2])
            names.add("call" if name.startswith("CALL") else name)
    return names


def find_example(preset: str, seeds: range = range(300)) -> Game:
    """The first game (by seed) showing the preset's `WANTED` events and played to the end."""
    for seed in seeds:
        game = play_example(preset, seed)
        if game.result.end == "played" and WANTED.get(preset, set()) <= _features(game):
            return game
    raise RuntimeError(f"no {preset} example in seeds {seeds}")


def example_text(game: Game, tricks: int = TRICKS) -> list[str]:
    """The role phase and the first `tricks` tricks in words, then the result table."""
    lines = [f"preset {game.rules.preset}, seed {game.seed}, role steps {' -> '.join(game.rules.role_steps)}"]
    done = 0
    for event, step in story(game):
        if event[0] == "over":
            break
        lines.append(describe_event(game, event, step))
        if event[0] == "trick":
            done += 1
            if done == tricks:
                lines.append("...")
                break
    return lines + result_lines(game)


def main(argv: list[str] | None = None) -> int:
    presets = (argv if argv is not None else sys.argv[1:]) or list(PRESETS)
    for preset in presets:
        print("\n".join(example_text(find_example(preset))))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
