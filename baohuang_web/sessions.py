"""Games in progress on the server: one human seat, bots elsewhere, the server owns the state.

Each game has an unguessable id and a player token (`secrets.token_urlsafe`); every request
names both, so a player can neither act in nor read another game, and only the token's seat
acts. A lock per game orders concurrent requests on one game; the store's own lock guards
the table of games, which is bounded (the least recently used game is dropped when full).

Bots move only when asked (`advance`): a human action applies that action alone, so its
time never includes bot thinking, and a page can show the bots' moves one by one.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from baohuang_env.actions import DECISION_ID, PASS, parse_play
from baohuang_env.agent import Agent, act_in_game, make_agent, uses_info_state
from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import Encoder
from baohuang_env.game import ROLE, Game, IllegalActionError, action_index
from baohuang_env.infostate import info_state
from baohuang_env.rules import PRESETS, Rules, get_rules
from baohuang_env.text import role_step

from .errors import BadRequest, Conflict, Forbidden, NotFound, check_int, shown
from .hints import agent_hint
from .views import move_rows, seat_view

#: Games kept at once by default; past it the least recently used one is dropped.
MAX_GAMES = 500
#: Bot moves one `advance` request makes at most.
MAX_ADVANCE = 500
#: Longest typed move accepted (the longest play, in card notation, is well under it).
MAX_MOVE_CHARS = 200


def step_logged(game: Game, action: int, steps: list[str | None]) -> None:
    """Apply `action` and extend `steps` (the role step each new log event answered, for the
    words of a NO: see `text.describe_event`) to the log's length."""
    step = role_step(game)
    n = len(game.log)
    game.step(action)
    steps += [step if e[0] == "decide" else None for e in game.log[n:]]


#: Agent kinds whose move is a function of (observation, mask) alone, with no state kept
#: between moves or games: the scripted bots, and checkpoint agents (any "kind:path"
#: spec; `pretrained` names one), which play greedily here. Any other kind (the random
#: bot draws from a generator seeded per game) is built afresh for each game.
STATELESS_KINDS = frozenset({"greedy", "heuristic", "autoplay", "pretrained"})


class SharedParts:
    """What the games of one server share, per `Rules`: the observation `Encoder` and the
    stateless agents. Each costs megabytes (an Encoder ~3 MB, 8.6 MB for generic216; a
    heuristic bot ~0.8 MB; a checkpoint its network), so one copy serves every game.

    An Encoder keeps no per-game state: its precomputed pieces are fixed by the rules, and
    its one mutable part, a cache of encoded "cards played" rows, is keyed by the cards
    alone (and bounded). Dict reads and writes are atomic, so games in different threads
    may share it."""

    def __init__(self) -> None:
        self._encoders: dict[Rules, Encoder] = {}
        self._agents: dict[tuple[str, Rules], Agent] = {}
        self._lock = threading.Lock()

    def encoder(self, rules: Rules) -> Encoder:
        """The one Encoder of `rules`."""
        with self._lock:
            if rules not in self._encoders:
                self._encoders[rules] = Encoder(rules)
            return self._encoders[rules]

    def agent(self, spec: str, rules: Rules, seed: int) -> Agent:
        """An agent of `spec` for a game under `rules`: the shared copy of a stateless kind
        (`STATELESS_KINDS`, "kind:path"), else a new one reset with `seed`. ValueError when
        the spec cannot play these rules."""
        if ":" not in spec and spec not in STATELESS_KINDS:
            agent = make_agent(spec, rules, seed)
            if hasattr(agent, "reset"):
                agent.reset(seed)
            return agent
        key = (spec, rules)
        with self._lock:
            if key not in self._agents:
                self._agents[key] = make_agent(spec, rules, seed)
            return self._agents[key]


@dataclass
class GameSession:
    """One game: the engine, the human's seat and token, the bots and their specs, and the
    encoder of its rules (shared by the store's games: `SharedParts`)."""

    game: Game
    seat: int
    specs: dict[int, str]
    bots: dict[int, Agent]
    encoder: Encoder
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    lock: threading.Lock = field(default_factory=threading.Lock)
    touched: float = field(default_factory=time.monotonic)
    #: The role step each event of `game.log` answered (`step_logged`).
    steps: list[str | None] = field(init=False)

    def __post_init__(self) -> None:
        self.steps = [None] * len(self.game.log)

    @property
    def names(self) -> list[str]:
        return ["you" if s == self.seat else self.specs[s] for s in range(NUM_SEATS)]

    def view(self, since: int = 0) -> dict[str, Any]:
        return seat_view(self.game, self.seat, self.names, self.steps, since)

    def _check_turn(self) -> None:
        game = self.game
        if game.is_over:
            raise Conflict("the game is over; start a new game")
        if game.current_player != self.seat:
            p = game.current_player
            raise Conflict(f"it is not your turn: seat {p} ({self.specs[p]}) is to act; "
                           "ask the server to advance the bots")

    def act(self, action: Any = None, move: Any = None) -> None:
        """Apply the human's move, given as an action id (`action`) or typed (`move`: card
        notation, "pass", a decision name, or a move's label). Refused moves raise a
        WebError and change nothing."""
        self._check_turn()
        if (action is None) == (move is None):
            raise BadRequest('give exactly one of "action" (a legal action id) or "move" (typed: cards such as '
                             '888+SJ, "pass", a decision such as ACCEPT, or a move\'s label)')
        if action is not None:
            try:
                action = action_index(action)
            except TypeError as err:
                raise BadRequest(str(err)) from None
        else:
            if not isinstance(move, str) or len(move) > MAX_MOVE_CHARS:
                raise BadRequest(f'"move" is text of at most {MAX_MOVE_CHARS} characters (cards such as 888+SJ, '
                                 f'"pass", a decision name), got {shown(move)}')
            action = self.parse_move(move)
        try:
            step_logged(self.game, action, self.steps)
        except IllegalActionError as err:
            raise BadRequest(f"illegal move: {err.reason}") from None

    def parse_move(self, text: str) -> int:
        """The legal action meant by typed text: a move's label, a decision name, "pass", or
        cards in card notation (`parse_play`). BadRequest says why not."""
        game = self.game
        rows = move_rows(game, self.seat)
        wanted = " ".join(text.split()).casefold()
        for row in rows:
            if row["label"].casefold() == wanted or game.describe(row["id"]).casefold() == wanted:
                return row["id"]
        name = "_".join(text.split()).upper()
        if name in DECISION_ID:
            choices = ", ".join(r["label"] for r in rows)
            raise BadRequest(f"{name} is not a choice now; choose one of: {choices}")
        if game.phase == ROLE:
            choices = ", ".join(r["label"] for r in rows)
            raise BadRequest(f"{shown(text)} is not a choice now (role phase, no cards are played yet); choose one of: "
                             f"{choices}")
        try:
            play = parse_play(text, game.rules)
        except ValueError as err:
            raise BadRequest(str(err)) from None
        action = PASS if play is None else game.table.action_id(play)
        if any(r["id"] == action for r in rows):
            return action
        try:
            game.copy().step(action)
        except IllegalActionError as err:
            raise BadRequest(f"cannot {'pass' if action == PASS else 'play ' + game.describe(action)}: "
                             f"{err.reason}") from None
        raise BadRequest(f"cannot play {game.describe(action)} now")  # unreachable: legal moves are listed

    def advance(self, max_steps: int) -> int:
        """Let the bots move until the human is to act, the game ends, or `max_steps` bot
        moves were made; returns how many were made."""
        game, made = self.game, 0
        while made < max_steps and not game.is_over and game.current_player != self.seat:
            p = game.current_player
            bot = self.bots[p]
            step_logged(game, act_in_game(bot, game, p, self.encoder.encode), self.steps)
            made += 1
        return made

    def hint(self, agent: Agent) -> dict[str, Any]:
        """`agent`'s top moves for the human's seat, from that seat's observation alone."""
        self._check_turn()
        labels = {r["id"]: r["label"] for r in move_rows(self.game, self.seat)}
        info = info_state(self.game, self.seat) if uses_info_state(agent) else None
        return agent_hint(agent, self.encoder.encode(self.game, self.seat), self.game.legal_mask(), labels, info=info)


def hint_specs(hints: str) -> list[str]:
    """The agent specs of a `--hints` value, in order of preference ("pretrained,heuristic")."""
    return [spec.strip() for spec in hints.split(",") if spec.strip()]


class SessionStore:
    """The games of one server, by id; `specs` are the opponents a page may choose, each in
    the presets it plays (`preset_opponents`; the first that plays a preset is its default).

    Deals come from unpredictable seeds, unless the store is given `seed`: then game n's
    seed is derived from (seed, n), so a test server deals the same games on every run."""

    def __init__(self, specs: Sequence[str], default_preset: str = "jj", hint_spec: str | None = None,
                 max_games: int = MAX_GAMES, seed: int | None = None) -> None:
        if default_preset not in PRESETS:
            raise ValueError(f"unknown preset {default_preset!r}; presets: {', '.join(PRESETS)}")
        self.specs = list(dict.fromkeys(specs))
        if not self.specs:
            raise ValueError("give at least one opponent agent spec")
        self.default_preset = default_preset
        self.hint_spec = hint_spec
        self.max_games = max_games
        self._seeds = None if seed is None else np.random.SeedSequence(seed)
        self.parts = SharedParts()
        self._games: dict[str, GameSession] = {}
        self._created = 0
        self._hint_presets: list[str] | None = None
        self._preset_opponents: dict[str, list[str]] | None = None
        self._lock = threading.Lock()

    def create(self, preset: Any, seat: Any, opponents: Any, seed: int | None = None) -> tuple[str, GameSession]:
        """A new game with the human at `seat` and `opponents` (one spec for the four other
        seats, or a list of four in seat order) from the allowed specs. The bots have not
        moved yet (`advance`). `seed` is for tests and scripts; the page never sends one.
        `opponents` None is the preset's default opponent in every seat (`default_opponent`).
        A refused game (BadRequest) changes nothing."""
        if not isinstance(preset, str) or preset not in PRESETS:
            raise BadRequest(f"unknown preset {shown(preset)}; presets: {', '.join(PRESETS)}")
        check_int(seat, "seat", 0, NUM_SEATS - 1)
        others = [s for s in range(NUM_SEATS) if s != seat]
        if opponents is None:
            opponents = self.default_opponent(preset)
            if opponents is None:
                raise BadRequest(f"no opponent offered by this server plays preset {preset!r} "
                                 f"(offered: {', '.join(self.specs)})")
        if isinstance(opponents, str):
            opponents = [opponents] * len(others)
        if not isinstance(opponents, list) or len(opponents) != len(others) or not all(
                isinstance(spec, str) for spec in opponents):
            raise BadRequest(f"opponents is one agent spec or a list of {len(others)} (for seats {others}), "
                             f"got {shown(opponents)}")
        for spec in opponents:
            if spec not in self.specs:
                raise BadRequest(f"opponent {shown(spec)} is not offered by this server; choose from {self.specs}")
        rules = get_rules(preset)
        game = Game(rules, seed=self._next_seed() if seed is None else seed)
        specs, bots = {}, {}
        for s, spec in zip(others, opponents, strict=True):
            agent_seed = int(np.random.SeedSequence([game.seed, s]).generate_state(1)[0])
            try:
                bots[s] = self.parts.agent(spec, rules, agent_seed)
            except ValueError as err:
                raise BadRequest(f"opponent {spec!r} cannot play preset {preset!r}: {err}") from None
            specs[s] = spec
        session = GameSession(game, seat, specs, bots, self.parts.encoder(rules))
        game_id = secrets.token_urlsafe(16)
        with self._lock:
            if len(self._games) >= self.max_games:
                oldest = min(self._games, key=lambda g: self._games[g].touched)
                del self._games[oldest]
            self._games[game_id] = session
        return game_id, session

    def _next_seed(self) -> int | None:
        """The seed of the next new game: None (Game draws a fresh one) without a store seed,
        else the n-th seed of the store's SeedSequence, below 2**63 like Game's own."""
        if self._seeds is None:
            return None
        with self._lock:
            n, self._created = self._created, self._created + 1
        state = np.random.SeedSequence(self._seeds.entropy, spawn_key=(n,)).generate_state(1, np.uint64)[0]
        return int(state >> np.uint64(1))

    def get(self, game_id: str, token: str | None) -> GameSession:
        """The game `game_id` if `token` is its player's; NotFound / Forbidden otherwise."""
        with self._lock:
            session = self._games.get(game_id)
        if session is None:
            raise NotFound("no such game (unknown id, or dropped as the least recently used); start a new game")
        if not token or not secrets.compare_digest(token.encode(), session.token.encode()):
            raise Forbidden("wrong or missing player token for this game (header X-Player-Token)")
        session.touched = time.monotonic()
        return session

    def players(self, specs: Sequence[str], rules: Rules, refused: list[str] | None = None) -> Iterator[
            tuple[str, Agent]]:
        """The specs of `specs` that play games under `rules`, in order, each with its agent
        (built lazily, so the first costs only itself). A checkpoint plays only the rules it was
        trained on and `pretrained` only a preset with a shipped agent, so "pretrained,heuristic"
        falls back to the bot where none is shipped. A spec that cannot play them is left out,
        with the reason added to `refused` when given. The one rule of both the hint agent and
        the opponents a page offers in a preset."""
        for spec in specs:
            try:
                agent = self.parts.agent(spec, rules, 0)
            except ValueError as err:
                if refused is not None:
                    refused.append(f"{spec}: {err}")
                continue
            yield spec, agent

    def preset_opponents(self) -> dict[str, list[str]]:
        """preset -> the offered opponents (`specs`, in order) that play it, found once (each
        is built for each preset: a checkpoint loads here, not in the first page's request).
        The page offers a preset's list alone, its first entry preselected."""
        if self._preset_opponents is None:
            self._preset_opponents = {preset: [spec for spec, _ in self.players(self.specs, get_rules(preset))]
                                      for preset in PRESETS}
        return self._preset_opponents

    def default_opponent(self, preset: str) -> str | None:
        """The opponent of a game of `preset` that names none: the first offered spec that plays
        it (the default list starts "pretrained,heuristic": the preset's shipped agent, else the
        heuristic bot); None when no offered spec plays it."""
        return next(iter(self.preset_opponents()[preset]), None)

    def hint_agent(self, rules: Rules) -> tuple[str, Agent]:
        """The spec and agent that give hints for games under `rules`: the first of the
        comma-separated `hint_spec` that plays them (`players`); Conflict when there is none."""
        if self.hint_spec is None:
            raise Conflict("this server gives no hints (start it with --hints SPEC)")
        refused: list[str] = []
        found = next(self.players(hint_specs(self.hint_spec), rules, refused), None)
        if found is None:
            raise Conflict(f"no hints for preset {rules.preset!r}: {'; '.join(refused)}")
        return found

    def hint_presets(self) -> list[str]:
        """The presets whose games get hints (`hint_agent` succeeds; a checkpoint agent
        plays only the rules it was trained on), found once: the page offers its hint
        button only there. Empty when hints are off."""
        if self._hint_presets is None:
            found = []
            for preset in PRESETS:
                try:
                    self.hint_agent(get_rules(preset))
                except Conflict:
                    continue
                found.append(preset)
            self._hint_presets = found
        return self._hint_presets

    def __len__(self) -> int:
        return len(self._games)
