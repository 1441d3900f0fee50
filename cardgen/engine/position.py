"""Positions: a described situation of a game that a test, `replay --from` or a designer starts from.

A position is YAML (or the same data as a dict, for `Rules.from_position(data)`):

    game: mygame             # the game id (or folder)
    players: 3
    variant: standard        # optional
    phase: ally              # the pending decision (each game names its own)
    to_act: 1                # the seat to decide, numbered from 1 (optional where the rules find it)
    zones:    {...}          # face-up and private zones: card ids
    decks:    {...}          # face-down piles: a list is a known order, top first;
                             # {unordered: [...]} is a shuffled pile (each draw a chance node)
    counters: {...}          # numbers the rules keep (round, action points, urges ...)
    pending:  {...}          # details of the pending decision (the auction, ...)

Every physical card is in exactly one zone: a card the position does not place goes to the
game's main face-down pile (shuffled, under any cards listed in known order), so a position
names only what matters. Seats are numbered from 1 everywhere in a position, slots from 1.

This module reads the file and the generic parts (`PositionBuilder`: sections, seats, cards placed
once); each game module builds its own state from them (`_<game>_state`, behind its
`Rules.from_position`; its docstring lists the keys a position takes, and keys not listed are
refused), so this module names no game. An engine without positions refuses them.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..errors import DataError
from ..io import limits
from ..io.reader import SchemaReader, display_path
from ..io.schema import Int, Str, validate
from ..load import load_game
from . import core

TOP_KEYS = {"game", "players", "variant", "phase", "to_act", "zones", "decks", "counters", "pending"}
_SECTIONS = ("zones", "decks", "counters", "pending")


class PositionError(ValueError):
    """A position that does not describe a state of its game; `path` names the key (for the line)."""

    def __init__(self, path: tuple, message: str) -> None:
        super().__init__(f"{'.'.join(map(str, path))}: {message}" if path else message)
        self.path = path
        self.message = message


class PositionFileError(DataError):
    """A position file that cannot be read (file, line and column)."""


# --- reading ------------------------------------------------------------------------------------

def load_position(path: str | Path) -> tuple[Any, core.State, dict]:
    """Read a position file and build its state: (rules, state, data). Problems are raised as
    PositionFileError at the file, line and column of the key that is wrong."""
    path = Path(path)
    shown = display_path(path)
    r = SchemaReader()
    node = r.read(path, shown)
    _raise(r)
    entries = r.mapping(node, "position", {"game", "players"}, TOP_KEYS)
    _raise(r)
    assert entries is not None
    data: dict[str, Any] = {}
    for name, (_, value) in entries.items():
        if name == "game":
            data[name] = validate(r, value, Str(), "game")
        elif name == "players":
            data[name] = validate(r, value, Int(1, limits.MAX_PLAYERS), "players")
        elif name in ("variant", "phase"):
            data[name] = validate(r, value, Str(), name)
        elif name == "to_act":
            data[name] = validate(r, value, Int(1, limits.MAX_PLAYERS), "to_act")
        else:
            if r.mapping(value, name, set(), None) is not None:
                data[name] = r.plain(value)
    _raise(r)
    try:
        game = load_game(data["game"])
    except DataError as exc:
        r.error(entries["game"][1], f"the position's game '{data['game']}' cannot be loaded: {exc.problems[0]}")
        _raise(r)
    from ..registry import game_engine
    rules_class = game_engine(game)
    if rules_class is None:
        r.error(entries["game"][1], f"{game.id} has no rules engine, so it has no positions")
        _raise(r)
    try:
        rules = rules_class(game, data["players"], data.get("variant", "standard"))
    except ValueError as exc:
        at = entries["variant"][1] if "variant" in entries else entries["players"][1]
        r.error(at, f"{game.id} cannot be set up for this position: {exc}")
        _raise(r)
    try:
        state = rules.from_position(data)
    except PositionError as exc:
        r.error(_node_at(node, exc.path) or node, f"position: {exc}")
        _raise(r)
    return rules, state, data


def _raise(r: SchemaReader) -> None:
    if r.problems:
        raise PositionFileError(list(r.problems))


def _node_at(node: Any, path: tuple) -> Any:
    """The YAML node at a key path (as deep as it exists)."""
    import yaml
    found = node
    for key in path:
        if isinstance(found, yaml.MappingNode):
            nxt = next((v for k, v in found.value if str(k.value) == str(key)), None)
        elif isinstance(found, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(found.value):
            nxt = found.value[key]
        else:
            nxt = None
        if nxt is None:
            return found
        found = nxt
    return found


# --- shared checks -------------------------------------------------------------------------------

class PositionBuilder:
    """Reads a position's sections for one game, tracking which physical cards are placed."""

    def __init__(self, rules: Any, data: Mapping[str, Any], phases: Iterable[str], zones: Iterable[str],
                 decks: Iterable[str], counters: Iterable[str], pending: Iterable[str] = (),
                 copies: int = 1) -> None:
        if not isinstance(data, Mapping):
            raise PositionError((), "a position must be a mapping with game, players, phase, zones, decks ...")
        self.rules = rules
        self.data = data
        unknown = sorted(set(map(str, data)) - TOP_KEYS)
        if unknown:
            raise PositionError((unknown[0],), f"unknown key; allowed: {', '.join(sorted(TOP_KEYS))}")
        game = rules.game
        if "game" in data and data["game"] not in (game.id, str(getattr(game, "root", ""))):
            pass  # a folder path names the game too; the caller chose the Rules
        if "players" in data and data["players"] != rules.players:
            raise PositionError(("players",), f"is {data['players']}, but these rules are for {rules.players}")
        if "variant" in data and data["variant"] != rules.variant:
            raise PositionError(("variant",), f"is {data['variant']!r}, but these rules play {rules.variant!r}")
        self.phases = tuple(phases)
        phase = data.get("phase", self.phases[0])
        if phase not in self.phases:
            raise PositionError(("phase",), f"'{phase}' is not a phase of {game.id}; choose from {', '.join(self.phases)}")
        self.phase = phase
        allowed = {"zones": set(zones), "decks": set(decks), "counters": set(counters), "pending": set(pending)}
        self.sections: dict[str, Mapping[str, Any]] = {}
        for name in _SECTIONS:
            section = data.get(name) or {}
            if not isinstance(section, Mapping):
                raise PositionError((name,), "must be a mapping")
            for key in section:
                if key not in allowed[name]:
                    raise PositionError((name, key), f"unknown key; allowed: {', '.join(sorted(allowed[name])) or 'none'}")
            self.sections[name] = section
        self.known = Counter({card.id: copies for card in game.cards})
        self.placed: Counter = Counter()
        to_act = data.get("to_act")
        if to_act is not None and not (isinstance(to_act, int) and 1 <= to_act <= rules.players):
            raise PositionError(("to_act",), f"must be a seat from 1 to {rules.players}")
        self.to_act = None if to_act is None else to_act - 1

    def get(self, section: str, key: str, default: Any = None) -> Any:
        return self.sections[section].get(key, default)

    def has(self, section: str, key: str) -> bool:
        return key in self.sections[section]

    # values

    def cards(self, path: tuple, value: Any, place: bool = True) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise PositionError(path, "must be a list of card ids")
        out = []
        for i, card in enumerate(value):
            if not isinstance(card, str) or card not in self.known:
                raise PositionError(path + (i,), f"'{card}' is not a card of {self.rules.game.id}")
            if place:
                self.placed[card] += 1
                if self.placed[card] > self.known[card]:
                    raise PositionError(path + (i,), f"{card} is placed more than once; every card is in one zone")
            out.append(card)
        return out

    def deck(self, path: tuple, value: Any) -> tuple[list[str], list[str]]:
        """(known top cards, top first; shuffled cards) of a deck entry."""
        if value is None:
            return [], []
        if isinstance(value, Mapping):
            extra = set(value) - {"top", "unordered"}
            if extra:
                raise PositionError(path, "a deck is a list (top first) or {top: [...], unordered: [...]}")
            return self.cards(path + ("top",), value.get("top")), self.cards(path + ("unordered",), value.get("unordered"))
        return self.cards(path, value), []

    def seat(self, path: tuple, value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= self.rules.players:
            raise PositionError(path, f"must be a seat from 1 to {self.rules.players}")
        return value - 1

    def seats(self, path: tuple, value: Any) -> list[int]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise PositionError(path, "must be a list of seats (numbered from 1)")
        return [self.seat(path + (i,), v) for i, v in enumerate(value)]

    def per_seat(self, path: tuple, value: Any, n: int | None = None) -> dict[int, Any]:
        """{seat: value} from a mapping keyed by seats from 1, or a list with one entry a seat."""
        if value is None:
            return {}
        if isinstance(value, list):
            if n is not None and len(value) != n:
                raise PositionError(path, f"must list one entry per seat ({n})")
            return dict(enumerate(value))
        if not isinstance(value, Mapping):
            raise PositionError(path, "must be a mapping of seat (from 1) to a value, or a list per seat")
        return {self.seat(path + (k,), int_key(k)): v for k, v in value.items()}

    def number(self, path: tuple, value: Any, low: int = 0, high: int = limits.MAX_INT) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise PositionError(path, f"must be a whole number from {low} to {high}")
        return value

    def unplaced(self) -> list[str]:
        return sorted((self.known - self.placed).elements())


def int_key(k: Any) -> Any:
    """A YAML key that is a seat or slot number written as text, as the number."""
    if isinstance(k, str) and k.isdigit():
        return int(k)
    return k


def position_deck(top: list, rest: list) -> core.Deck:
    """A face-down pile: the known cards on top (top first) over the shuffled rest."""
    deck = core.Deck(rest)
    deck.put_on_top(top)
    return deck


def checked_state(state: core.State) -> core.State:
    """The built state, once its invariants hold (card conservation ...); PositionError otherwise."""
    try:
        state.check_invariants()
    except core.InvariantError as exc:
        raise PositionError(("zones",), str(exc)) from None
    return state
