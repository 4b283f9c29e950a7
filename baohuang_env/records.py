"""The shape of a replay record (`Game.to_replay`), checked before it is replayed.

A record a client sends (the web page's replay viewer) may have any field of any type.
`check_replay_record` checks every field's type and range and says which one is wrong
(ValueError), so that replaying the record (`Game.from_replay`) afterwards can fail only as the
rules refuse a move or a result. The small value checks here (`check_int`, `check_fields`,
`require_fields`, `shown`) are also the web server's, which turns their ValueError into a 400.
"""

from __future__ import annotations

import reprlib
from typing import Any

from .actions import action_table
from .cards import NUM_SEATS, NUM_SUITS, dealt_counts
from .rules import PRESETS, Rules

#: Largest seed a replay may name: deals are drawn from seeds below 2**63 (`Game.reset`).
MAX_SEED = 2**63 - 1
#: The replay record's optional field naming who played each seat (`baohuang_env.replay`).
PLAYERS_FIELD = "players"
#: The fields of a replay record (`Game.to_replay`, and the players where a writer knows them)
#: and of its hand-built deal.
RECORD_FIELDS = ("format", "version", "rules", "rules_revision", "seed", "actions", "deal", "result", PLAYERS_FIELD)
DEAL_FIELDS = ("hands", "suits", "emperor_card_seat", "guard_card_seat")

_SHOWN = reprlib.Repr()
_SHOWN.maxstring = _SHOWN.maxother = 60
_SHOWN.maxlong = 40


def shown(value: Any) -> str:
    """A value as an error message quotes it: its repr, cut short, so a huge value neither
    floods the message nor costs much to write."""
    return _SHOWN.repr(value)


def check_int(value: Any, name: str, low: int, high: int) -> int:
    """`value` if it is a JSON integer in low..high; ValueError otherwise. A bool, a float
    (even 2.0) or a string of digits is not an integer here: the writer meant something else."""
    if type(value) is not int or not low <= value <= high:
        raise ValueError(f"{name} must be an integer {low}..{high}, got {shown(value)}")
    return value


def check_fields(data: dict[str, Any], allowed: tuple[str, ...], what: str) -> None:
    """ValueError when the JSON object `data` (the `what`) has a key outside `allowed`: a
    misspelt field would otherwise be ignored silently."""
    unknown = [k for k in data if k not in allowed]
    if unknown:
        raise ValueError(f"{what} has unknown field(s) {shown(unknown)}; allowed: {', '.join(allowed)}")


def require_fields(data: dict[str, Any], required: tuple[str, ...], what: str) -> None:
    """ValueError naming the fields of `required` that the JSON object `data` (the `what`) lacks."""
    missing = [k for k in required if k not in data]
    if missing:
        raise ValueError(f"{what} is missing the field(s) {', '.join(missing)}")


def check_replay_record(record: Any) -> Rules:
    """The rules of a replay record whose every field has the type and range a record can
    have; ValueError says which field is wrong."""
    if not isinstance(record, dict):
        raise ValueError("a replay is a JSON object")
    check_fields(record, RECORD_FIELDS, "the replay")
    require_fields(record, ("rules", "actions") if "deal" in record else ("rules", "seed", "actions"), "the replay")
    rules = _check_rules(record["rules"])
    if "rules_revision" in record:
        check_int(record["rules_revision"], '"rules_revision"', 0, 2**31 - 1)
    if "seed" in record:
        check_int(record["seed"], '"seed"', 0, MAX_SEED)
    if "deal" in record:
        _check_deal(record["deal"], rules)
    _check_actions(record["actions"], rules)
    if not isinstance(record.get("result", {}), dict):
        raise ValueError(f'"result" is an object (the recorded result), got {shown(record["result"])}')
    return rules


def _check_rules(rules: Any) -> Rules:
    """The rules of a record's "rules" object (`Rules.to_dict`); ValueError says what is wrong."""
    if not isinstance(rules, dict):
        raise ValueError(f'"rules" is an object of rule flags, got {shown(rules)}')
    preset = rules.get("preset", "jj")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ValueError(f'"rules" has an unknown preset {shown(preset)}; presets: {", ".join(PRESETS)}')
    steps = rules.get("role_steps", [])
    if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
        raise ValueError(f'"rules" role_steps is a list of step names, got {shown(steps)}')
    try:
        return Rules.from_dict(rules)
    except ValueError as err:
        raise ValueError(f'"rules": {err}') from None


def _check_actions(actions: Any, rules: Rules) -> None:
    """A record's "actions": a list of action ids of `rules`' table."""
    if not isinstance(actions, list):
        raise ValueError(f'"actions" is a list of action ids, got {shown(actions)}')
    last = action_table(rules).num_actions - 1
    for i, action in enumerate(actions):
        check_int(action, f'"actions"[{i}]', 0, last)


def _check_deal(deal: Any, rules: Rules) -> None:
    """A record's hand-built "deal" (`Game.from_deal`): the seats of the marked cards and
    the card counts, per seat and kind ("hands") or per seat, kind and suit ("suits", the
    calling presets). Whether the counts make a deal of these rules is `Game.from_deal`'s
    check."""
    if not isinstance(deal, dict):
        raise ValueError(f'"deal" is an object with {", ".join(DEAL_FIELDS)}, got {shown(deal)}')
    check_fields(deal, DEAL_FIELDS, '"deal"')
    counts = "suits" if rules.suits_matter else "hands"
    require_fields(deal, (counts, "emperor_card_seat", "guard_card_seat"), '"deal"')
    check_int(deal["emperor_card_seat"], '"deal" emperor_card_seat', 0, NUM_SEATS - 1)
    # a calling deal has no guard card: -1 there (`Game.from_deal` says so), a seat elsewhere
    check_int(deal["guard_card_seat"], '"deal" guard_card_seat', -1 if rules.suits_matter else 0, NUM_SEATS - 1)
    kinds, most = action_table(rules).kinds.num_kinds, int(dealt_counts(rules).max())
    for name, shape in (("hands", (NUM_SEATS, kinds)), ("suits", (NUM_SEATS, kinds, NUM_SUITS))):
        if name in deal:
            _check_counts(deal[name], shape, f'"deal" {name}', most)


def _check_counts(value: Any, shape: tuple[int, ...], name: str, most: int) -> None:
    """`value` is nested lists of exactly `shape` whose entries are counts 0..`most`."""
    wanted = f"{name} must be {' x '.join(map(str, shape))} nested lists of card counts 0..{most}"
    todo = [(value, 0, name)]
    while todo:
        item, depth, where = todo.pop()
        if depth == len(shape):
            if type(item) is not int or not 0 <= item <= most:
                raise ValueError(f"{wanted}; {where} is {shown(item)}")
        elif not isinstance(item, list) or len(item) != shape[depth]:
            raise ValueError(f"{wanted}; {where} is {shown(item)}")
        else:
            todo += [(child, depth + 1, f"{where}[{i}]") for i, child in enumerate(item)]


__all__ = ["DEAL_FIELDS", "MAX_SEED", "PLAYERS_FIELD", "RECORD_FIELDS", "check_fields", "check_int",
           "check_replay_record", "require_fields", "shown"]
