"""`baohuang play`: play one seat of a deal in the terminal against bots or checkpoints.

    baohuang play                                   # seat 0 against the preset's default opponent
    baohuang play --seat 2 --opponents random --seed 7 --save game.json
    baohuang play --opponents autoplay,random,random,autoplay
    baohuang play --preset weihai                   # any preset: jj weihai lianzhong_classic ...

`--opponents` is one agent spec for all four other seats, or four comma-separated specs for
the other seats in seat order (skipping yours); each is built with `agents.make_agent`
("heuristic", "greedy", "random", "autoplay", "pretrained:NAME" for a shipped agent,
"kind:path" for checkpoints, "python:MODULE:CLASS" for your own class). Without it all four
are the preset's default opponent (`agents.pretrained.default_opponent`): its strongest
shipped agent (`pretrained:dmc_kickstart_jj` in jj), else the heuristic bot, the best bot of
every preset.

On your turn you see the table from your seat, your hand, the play to beat and the numbered
legal moves; role-phase decisions are listed in words with the Chinese term ("abdicate
(让位)", "grab the solo (抢独)", "call ♠K (叫牌)"). Answer with a move number, with cards
(`888+SJ`, `TTT`, `8x5`, `pass`), with a decision name (`ACCEPT`, `ABDICATE`, `NO`,
`OPEN_GUARD`, `OPEN_SOLO`, `GRAB`, `REBEL`, `KICK`, ...), or with a call (`call ♠K`, `call SK`). `help`, `hand`,
`table`, `moves` and `quit` are commands. Anything else is refused with the reason and asked
again. When you have exactly one legal move it is made for you (say `--ask-forced` to be
asked anyway). At the end the result is shown (who won, and why the scores are what they
are), and `--save FILE` writes the replay with who played each seat (`baohuang replay FILE`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from baohuang_cli.terminal import read_line
from baohuang_env.cards import NUM_SEATS, SUITS
from baohuang_env.encoding import Encoder
from baohuang_env.game import PLAY, ROLE, Game, IllegalActionError
from baohuang_env.actions import DECISION_ID, FIRST_PLAY, PASS, format_play, parse_play
from baohuang_env.agent import act_in_game
from baohuang_env.replay import save_replay
from baohuang_env.rules import get_rules
from baohuang_env.text import (
    decision_help, decision_words, describe_event, hand_text, move_list, own_role_text, render_table,
    result_text, role_step, turn_hint,
)

InputFn = Callable[[str], str]
#: Above this many legal moves only those without added jokers are listed (`moves` lists all).
COMPACT_ABOVE = 60
#: Width of the move list before it wraps.
LINE_WIDTH = 100

HELP = """\
How to answer:
  a number        the move with that number in the list (#7 also works)
  cards           888, 888+SJ, 9999+BJ+SJ, TTT or 10 10 10 (tens), 8x5 (five 8s), BJ+SJ
  pass            pass (only when following; the leader must play)
  a decision      ACCEPT, ABDICATE, DECLINE, NO, OPEN_GUARD, OPEN_SOLO, GRAB, REBEL, KICK,
                  SURRENDER (role phase), APPLY_WIND (qingdao, answering a finisher's last play)
  a call          call ♠K, call SK (suits C D H S), call BJ (calling presets, role phase)
  hand | table | moves | help | quit
A number that also reads as cards you hold (2, 8, 88, 10 ...) is ambiguous: you are asked
whether you mean the move with that number (m) or the cards (c). #7 is always move 7.
Beating a play: the same number of cards, each strictly higher once both plays are sorted
high to low (6 < 7 < ... < A < 2 < SJ < BJ [< SP 特画]). A play with a BJ cannot be beaten
(except by SP); k SJs need k BJs. Under hold-the-sixes (憋6) 6s may only be played as your
very last cards, all together (and without jokers in jj and weihai)."""

#: Suit letters accepted in `call SK` (clubs, diamonds, hearts, spades).
SUIT_LETTERS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


class Quit(Exception):
    """The human asked to leave the game."""


class EndOfInput(Exception):
    """Standard input ran out."""


def format_moves(game: Game, seat: int, moves: list[int], full: bool) -> tuple[list[str], int]:
    """The numbered move list as lines, and how many moves it leaves out (compact view)."""
    table = game.table
    shown = moves
    if not full and len(moves) > COMPACT_ABOVE:
        shown = [a for a in moves if a < FIRST_PLAY or table.is_call(a)
                 or int(table.small[a - FIRST_PLAY]) + int(table.big[a - FIRST_PLAY]) == 0
                 or int(table.n[a - FIRST_PLAY]) == 0]
    width = len(str(len(moves)))
    texts = [game.describe(a) for a in shown]
    def decision(a: int) -> bool:
        return 1 <= a < FIRST_PLAY or table.is_call(a)

    cell_width = width + 3 + max((len(t) for a, t in zip(shown, texts, strict=True) if not decision(a)),
                                 default=4)
    lines: list[str] = []
    groups: list[tuple[Any, list[str]]] = []  # plays of one rank (with or without jokers) together
    for i, (a, text) in enumerate(zip(shown, texts, strict=True), 1):
        if decision(a):
            lines.append(f"  {i:>{width}}  {text:<11}{decision_help(game, seat, a)}")
            continue
        p = a - FIRST_PLAY
        key = "pass" if a == PASS else (int(table.rank[p]), int(table.small[p]) + int(table.big[p]) > 0)
        cell = f"{i:>{width}} {text}".ljust(cell_width)
        if groups and groups[-1][0] == key:
            groups[-1][1].append(cell)
        else:
            groups.append((key, [cell]))
    line, flowing = "", False  # groups of one move share lines; larger groups get their own
    for _, cells in groups:
        single = len(cells) == 1
        if line and not (single and flowing):
            lines.append(line.rstrip())
            line = ""
        for cell in cells:
            if line and len(line) + len(cell) > LINE_WIDTH:
                lines.append(line.rstrip())
                line = ""
            line = (line or "  ") + cell
        flowing = single
    if line:
        lines.append(line.rstrip())
    return lines, len(moves) - len(shown)


def _normalize_decision(text: str) -> str:
    return re.sub(r"[\s\-]+", "_", text.strip()).upper()


class HumanTurn:
    """Reads one move from the human: numbers, cards, decisions and commands."""

    def __init__(self, game: Game, seat: int, read: InputFn, out: Callable[[str], Any] = print) -> None:
        self.game, self.seat, self.read, self.out = game, seat, read, out

    def ask(self) -> int:
        """Show the turn and read until the human gives a legal move; returns its action id
        (already checked, not yet applied). Raises Quit or EndOfInput."""
        game, seat = self.game, self.seat
        self.moves = move_list(game, game.legal_actions())
        self.show_turn()
        tag = "decide" if game.phase == ROLE else "lead" if game.trick is None else \
            f"beat {format_play(game.trick[0])}"
        prompt = f"[seat {seat} | {tag}] your move (number, cards, or help)> "
        while True:
            text = self._input(prompt).strip()
            if not text:
                continue
            try:
                action = self.interpret(text)
            except ValueError as err:
                self.out(f"  ! {err}")
                continue
            if action is not None:
                return action

    def _input(self, prompt: str) -> str:
        try:
            return self.read(prompt)
        except EOFError:
            raise EndOfInput from None

    def show_turn(self) -> None:
        game, seat = self.game, self.seat
        self.out("")
        self.out("-" * 72)
        self.out(render_table(game, viewer=seat))
        self.out(f"Your hand ({game.cards_left[seat]} cards): {hand_text(game, seat)}")
        self.out(f"You are seat {seat}: {own_role_text(game, seat)}")
        self.out(turn_hint(game, seat))
        self.show_moves(full=False)

    def show_moves(self, full: bool) -> None:
        lines, left = format_moves(self.game, self.seat, self.moves, full)
        self.out("Legal moves:")
        for line in lines:
            self.out(line)
        if left:
            self.out(f"  ... and {left} more plays with jokers added (numbers {len(self.moves) - left + 1}-"
                     f"{len(self.moves)}): type 'moves' to list them, or type the cards, e.g. 888+SJ")

    def interpret(self, text: str) -> int | None:
        """The action id meant by `text`, or None after a command; ValueError says why not."""
        game, seat = self.game, self.seat
        low = text.lower()
        if low in ("quit", "exit", "q"):
            raise Quit
        if low in ("help", "h", "?"):
            self.out(HELP)
            return None
        if low == "hand":
            self.out(f"Your hand ({game.cards_left[seat]} cards): {hand_text(game, seat)}")
            return None
        if low == "table":
            self.out(render_table(game, viewer=seat))
            return None
        if low in ("moves", "list", "all"):
            self.show_moves(full=True)
            return None
        name = _normalize_decision(text)
        if name in DECISION_ID:
            return self._decision(name)
        if name.startswith("CALL_"):
            return self._call(name[5:])
        m = re.fullmatch(r"#\s*(\d+)|(\d+)\.?", text)
        if m and m.group(1):
            return self._numbered(int(m.group(1)))
        if m:
            return self._number_or_cards(text, int(m.group(2)))
        return self._cards(text)

    def _decision(self, name: str) -> int:
        action = DECISION_ID[name]
        if action in self.moves:
            return action
        if self.game.phase != ROLE:
            raise ValueError(f"{name} is a role-phase decision; now play cards or pass")
        choices = ", ".join(self.game.describe(a) for a in self.moves)
        raise ValueError(f"{name} is not a choice now; choose {choices}")

    def _call(self, card: str) -> int:
        """A legal call from what follows the word call: "♠K", "K♠", "SK", "KS", "BJ", "SJ"
        (SJ is the small joker; the jack of spades is ♠J or JS)."""
        game = self.game
        table, kinds = game.table, game.kinds
        letters = {v: k for k, v in SUIT_LETTERS.items()}
        calls = [a for a in self.moves if table.is_call(a)]
        if not calls:
            raise ValueError("no call is possible now")
        wanted = card.replace("_", "").upper()
        for a in calls:
            kind, suit = table.call_of(a)
            name = kinds.names[kind]
            if kind >= kinds.num_ranks:
                forms = {name}
            else:
                sym = SUITS[suit]
                forms = {f"{x}{n}" for x in (sym, letters[sym]) for n in {name, "T" if name == "10" else name}}
                forms |= {f"{n}{x}" for x in (sym, letters[sym]) for n in {name, "T" if name == "10" else name}}
                forms.discard("SJ")
            if wanted in forms:
                return a
        raise ValueError(f"cannot call {card.replace('_', '')}; the calls open to you: "
                         + ", ".join(game.describe(a) for a in calls))

    def _numbered(self, k: int) -> int:
        if not 1 <= k <= len(self.moves):
            raise ValueError(f"there is no move {k}: choose a number from 1 to {len(self.moves)}")
        return self.moves[k - 1]

    def _number_or_cards(self, text: str, k: int) -> int | None:
        """Digits are a move number. When they also read as cards you hold (2, 8, 88, 10 ...)
        and those would be a different move, ask which one is meant."""
        game = self.game
        try:
            play = parse_play(text, game.rules) if game.phase == PLAY else None
        except ValueError:
            play = None
        if play is None:  # only a number
            return self._numbered(k)
        if not 1 <= k <= len(self.moves):  # out of range: only the cards reading is left
            return self._cards(text)
        numbered = self.moves[k - 1]
        hand = game.hands[self.seat]
        if hand[game.kinds.index(play.rank)] < play.n:  # no such cards: the number is meant
            return numbered
        try:
            cards, why_not = self._cards(text), ""
        except ValueError as err:
            cards, why_not = None, str(err)
        if cards == numbered:
            return numbered
        d_num = game.describe(numbered)
        if cards is None:
            question = f"  '{text}' is move {k} ({d_num}); as cards: {why_not}. m = play move {k}, Enter = neither> "
        else:
            question = (f"  '{text}' is move {k} ({d_num}) or the cards {game.describe(cards)}: "
                        "m = the move, c = the cards, Enter = neither> ")
        while True:
            answer = self._input(question).strip().lower()
            if answer in ("m", "move"):
                return numbered
            if cards is not None and answer in ("c", "cards"):
                return cards
            if answer == "":
                return None

    def _cards(self, text: str) -> int:
        """A legal action from card notation, or ValueError with the reason it is not."""
        game = self.game
        play = parse_play(text, game.rules)  # ValueError explains unreadable text
        if game.phase == ROLE:
            choices = " or ".join(game.describe(a) for a in self.moves)
            raise ValueError(f"no cards are played yet: this is the role phase; choose {choices}")
        action = PASS if play is None else game.table.action_id(play)
        if action in self.moves:
            return action
        desc = game.describe(action)
        try:  # the engine says why; a legal move would have been in the list
            game.copy().step(action)
        except IllegalActionError as err:
            reason = err.reason
            if "not in the hand" in reason:
                reason = f"those cards are not in your hand (you have {self._holding(play)})"
            raise ValueError(f"cannot {'pass' if action == PASS else 'play ' + desc}: {reason}") from None
        raise ValueError(f"cannot play {desc} now")  # unreachable: legal moves are listed

    def _holding(self, play) -> str:
        hand, kinds = self.game.hands[self.seat], self.game.kinds
        parts = []
        if play.n:
            r = kinds.index(play.rank)
            parts.append(f"{hand[r]} x {'T' if play.rank == '10' else play.rank}")
        if play.small:
            parts.append(f"{hand[kinds.sj]} x SJ")
        if play.big:
            parts.append(f"{hand[kinds.bj]} x BJ")
        return ", ".join(parts)


def _you(text: str, seat: int) -> str:
    return re.sub(rf"\bseat {seat}\b", f"seat {seat} (you)", text)


def play_game(game: Game, seat: int, bots: dict[int, Any], read: InputFn,
              out: Callable[[str], Any] = print, ask_forced: bool = False) -> str:
    """Play `game` to the end with the human at `seat` and `bots` (seat -> agent) elsewhere.
    Returns "over", or "quit" / "eof" when the human left early."""
    encoder = Encoder(game.rules)
    out(_you(describe_event(game, game.log[0]), seat))
    shown = 1
    human = HumanTurn(game, seat, read, out)
    while not game.is_over:
        p = game.current_player
        step = role_step(game)
        if p == seat:
            legal = game.legal_actions()
            if legal.size == 1 and not ask_forced:
                action = int(legal[0])
                out(f"  (your only move: {decision_words(game, action, seat, private=True)})")
            else:
                try:
                    action = human.ask()
                except Quit:
                    out("You left the game.")
                    return "quit"
                except EndOfInput:
                    out("\nEnd of input: leaving the game.")
                    return "eof"
        else:
            action = act_in_game(bots[p], game, p, encoder.encode)
        game.step(action)
        for event in game.log[shown:]:
            out(_you(describe_event(game, event, step), seat))
        shown = len(game.log)
    out("")
    out(render_table(game, viewer=None))
    for line in result_text(game):
        out(_you(line, seat))
    out(f"Your score: {game.result.scores[seat]:+d}")
    return "over"


def build_opponents(spec: str, seat: int, rules, seed: int) -> dict[int, tuple[str, Any]]:
    """seat -> (spec, agent) for the four seats other than `seat`, from one spec or four."""
    from agents import make_agent  # registers the built-in agents

    specs = [s.strip() for s in spec.split(",")]
    others = [s for s in range(NUM_SEATS) if s != seat]
    if len(specs) == 1:
        specs *= len(others)
    if len(specs) != len(others) or not all(specs):
        raise ValueError(f"--opponents takes one agent spec or {len(others)} comma-separated specs "
                         f"(for seats {others}), got {spec!r}")
    bots = {}
    for s, sp in zip(others, specs, strict=True):
        agent_seed = int(np.random.SeedSequence([seed, s]).generate_state(1)[0])
        try:
            agent = make_agent(sp, rules, agent_seed)
        except ValueError as err:
            raise ValueError(f"--opponents: {err}") from None
        if hasattr(agent, "reset"):
            agent.reset(agent_seed)
        bots[s] = (sp, agent)
    return bots


def add_parser(sub) -> None:
    p = sub.add_parser("play", help="play one seat in the terminal against bots or checkpoints",
                       description=__doc__.splitlines()[0])
    p.add_argument("--seat", type=int, choices=range(NUM_SEATS), default=0, help="your seat (default 0)")
    p.add_argument("--opponents", default=None,
                   help="one agent spec for all four other seats, or four comma-separated specs for the other "
                        "seats in seat order (default: the preset's strongest shipped agent, pretrained:NAME, "
                        "else heuristic; e.g. heuristic, random, autoplay, kind:checkpoint.pt, "
                        "python:MODULE:CLASS)")
    p.add_argument("--preset", default="jj", help="rule preset (default jj)")
    p.add_argument("--seed", type=int, default=None, help="deal seed (default: a fresh one, printed)")
    p.add_argument("--save", metavar="FILE", default=None, help="save the replay of the game to FILE")
    p.add_argument("--ask-forced", action="store_true",
                   help="ask even when you have a single legal move (default: it is made for you)")


def main(args, input_fn: InputFn | None = None) -> int:
    from agents.pretrained import default_opponent  # (the bots load only when the command runs)

    rules = get_rules(args.preset)
    if args.seed is not None and args.seed < 0:
        raise ValueError("--seed must be >= 0")
    game = Game(rules, seed=args.seed)
    spec = args.opponents or default_opponent(rules.preset)
    opponents = build_opponents(spec, args.seat, rules, game.seed)
    names = ", ".join(f"seat {s}: {sp}" for s, (sp, _) in opponents.items())
    print(f"Baohuang [{rules.preset}], seed {game.seed} (play this deal again with --seed {game.seed})")
    if not args.opponents:
        kind = "its strongest shipped agent" if spec.startswith("pretrained:") else "no agent is shipped for it"
        print(f"Opponents: {spec}, the default for {rules.preset} ({kind}; --opponents picks others)")
    print(f"You are seat {args.seat}; {names}. Type 'help' for how to answer.")
    try:
        bots = {s: agent for s, (_, agent) in opponents.items()}
        outcome = play_game(game, args.seat, bots, input_fn or read_line, ask_forced=args.ask_forced)
    except KeyboardInterrupt:
        print("\nInterrupted: leaving the game.")
        outcome = "quit"
    if args.save:
        try:
            save_replay(game, args.save, ["you" if s == args.seat else opponents[s][0] for s in range(NUM_SEATS)])
        except OSError as err:
            raise ValueError(f"cannot save the replay to {args.save}: {err}") from None
        state = "" if game.is_over else " (unfinished)"
        print(f"Replay saved to {args.save}{state}: baohuang replay {args.save} --seat {args.seat}")
    return 1 if outcome == "eof" else 0
