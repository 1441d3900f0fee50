"""Standard playing-card mappings: play a game with ordinary decks instead of printed cards.

`card_data/<game>/mapping.yaml` says, for every physical card, which standard card (rank and
suit, or a joker) stands for it, or that it must be printed. `load_mapping(game)` reads it
with file:line:column positions and validates it into a `MappingReport`:

- every card is mapped or marked `print`;
- no standard card is used more often than the declared number of `decks` (a deck holds
  each of the 52 cards once and two jokers), and `decks` is what the mapping needs;
- the numbers the rules compare are preserved: with `value_field: rank` a mapped card's
  standard rank (A = 1, J = 11, Q = 12, K = 13) equals its `rank`;
- cards that share a standard card are of the same type, and each `recognise` rule holds
  (e.g. `recognise: rank`: the standard rank alone tells the card type).

The format (see card_data/MAPPING.md for the designer's version)::

    decks: 2                    # standard decks the mapping uses (required)
    value_field: rank           # optional: an int field whose value the standard rank must equal
    suits:                      # optional: a game field whose value picks the standard suit
      field: suit
      map: {sword: S, medal: {suit: S, name: {ja: 勲章, en: Medal}}}
    recognise:                  # optional: what a standard card alone must tell
      - rank                    #   short for {by: rank, what: type}
      - {by: suit, what: suit, types: [prince, mage], text: {ja: ..., en: ...}}
    types:                      # per card type; types left out are derived from
      princess: {cards: [QH, QD]}              # value_field + suits when both are given
      knight: {rank: 8, suits: [S, H, D, C]}
      quest: {print: true, reason: {ja: ..., en: ...}}
      event:
        rank: 2
        copies: {EV07: {card: JK}, 3: {print: true}}   # per copy, by card id or copy number
    show: [vp, ability]         # optional: the fields the reference sheet prints per card
    labels: {side: {ally: {ja: 友軍, en: Ally}}}        # optional: names of enum values
    setup: {ja: ..., en: ...}   # optional: how to set up with standard decks
    note: {ja: ..., en: ...}    # optional: anything else a player should know

Standard cards are written `AS`, `10H`, `QD`, `7C` (or with ♠ ♥ ♦ ♣), jokers `JK` (either),
`JKR` (red) and `JKB` (black). Nothing here draws; `cardgen.render.documents.standard_sheet` does.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import yaml

from .errors import DataError, Problem
from .io import paths
from .io.reader import SchemaReader, kind_of
from .model import Card, Game, Location, Text

MAPPING_FILE = "mapping.yaml"
SUITS = ("spades", "hearts", "diamonds", "clubs")
SUIT_SYMBOLS = {"spades": "♠", "hearts": "♥", "diamonds": "♦", "clubs": "♣"}
RED_SUITS = ("hearts", "diamonds")
JOKER_COLOURS = ("red", "black")
RANK_LABELS = {1: "A", 11: "J", 12: "Q", 13: "K"}
JOKERS_PER_DECK = 2
CARDS_PER_DECK = 52

_SUIT_WORDS = {
    "s": "spades", "♠": "spades", "spade": "spades", "spades": "spades",
    "h": "hearts", "♥": "hearts", "heart": "hearts", "hearts": "hearts",
    "d": "diamonds", "♦": "diamonds", "diamond": "diamonds", "diamonds": "diamonds",
    "c": "clubs", "♣": "clubs", "club": "clubs", "clubs": "clubs",
}
_RANK_WORDS = {"a": 1, "j": 11, "q": 12, "k": 13, **{str(n): n for n in range(1, 14)}}
_CARD_RE = re.compile(r"^\s*(10|1[1-3]|[1-9]|[AJQKajqk])\s*([SHDCshdc♠♥♦♣])\s*$")
_JOKERS = {"jk": None, "joker": None, "jkr": "red", "jk-r": "red", "jkb": "black", "jk-b": "black"}

TOP_KEYS = {"decks", "value_field", "suits", "recognise", "interchangeable", "types", "show", "labels", "setup", "note"}
TYPE_KEYS = {"cards", "rank", "ranks", "suit", "suits", "print", "reason", "copies"}
COPY_KEYS = {"card", "rank", "suit", "print", "reason"}
RECOGNISE_BY = ("rank", "suit", "colour", "card")


# --- standard cards ---------------------------------------------------------------------------

@dataclass(frozen=True)
class StandardCard:
    """One card of a standard deck: rank 1..13 and a suit, or a joker (rank 0).

    A joker's `suit` is None (either joker) or "red" / "black".
    """

    rank: int
    suit: str | None

    @property
    def is_joker(self) -> bool:
        return self.rank == 0

    @property
    def rank_label(self) -> str:
        """"A", "2" .. "10", "J", "Q", "K", or "JK" for a joker."""
        if self.is_joker:
            return "JK"
        return RANK_LABELS.get(self.rank, str(self.rank))

    @property
    def colour(self) -> str | None:
        if self.is_joker:
            return self.suit
        return "red" if self.suit in RED_SUITS else "black"

    @property
    def code(self) -> str:
        """The notation mapping.yaml uses: "10S", "QH", "JK", "JKR"."""
        if self.is_joker:
            return {None: "JK", "red": "JKR", "black": "JKB"}[self.suit]
        return f"{self.rank_label}{self.suit[0].upper()}"

    @property
    def label(self) -> str:
        """Text for terminals: "10♠", "Q♥", "Joker", "Red joker"."""
        if self.is_joker:
            return {None: "Joker", "red": "Red joker", "black": "Black joker"}[self.suit]
        return f"{self.rank_label}{SUIT_SYMBOLS[self.suit]}"

    def sort_key(self) -> tuple[int, int, int]:
        if self.is_joker:
            return (len(SUITS), 0, (None, "red", "black").index(self.suit))
        return (SUITS.index(self.suit), self.rank, 0)

    def __str__(self) -> str:
        return self.label


def parse_standard_card(text: str) -> StandardCard | None:
    """Parse "10S", "QH", "A♠", "JK", "JKR"; None if it is not a standard card."""
    cleaned = str(text).strip()
    if cleaned.lower() in _JOKERS:
        return StandardCard(0, _JOKERS[cleaned.lower()])
    match = _CARD_RE.match(cleaned)
    if not match:
        return None
    return StandardCard(_RANK_WORDS[match.group(1).lower()], _SUIT_WORDS[match.group(2).lower()])


def parse_rank(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 1 <= value <= 13 else None
    return _RANK_WORDS.get(str(value).strip().lower())


def parse_suit(value: Any) -> str | None:
    return _SUIT_WORDS.get(str(value).strip().lower())


def rank_label(rank: int) -> str:
    return RANK_LABELS.get(rank, str(rank))


# --- the report -------------------------------------------------------------------------------

@dataclass(frozen=True)
class MappingEntry:
    """One physical card and the standard card that stands for it (or None: print it)."""

    card_id: str
    type_id: str
    name: Text
    standard: StandardCard | None
    reason: Text | None = None  # why it must be printed
    location: Location | None = None  # the mapping.yaml node that decided it

    @property
    def must_print(self) -> bool:
        return self.standard is None

    def as_dict(self) -> dict:
        std = self.standard
        return {
            "card": self.card_id, "type": self.type_id, "name": self.name.as_dict(),
            "standard": std.label if std else None, "code": std.code if std else None,
            "rank": (std.rank or None) if std else None,
            "suit": std.suit if std and not std.is_joker else None,
            "joker": bool(std and std.is_joker),
            "print": std is None,
            "reason": self.reason.as_dict() if self.reason else None,
        }


@dataclass(frozen=True)
class SuitAssignment:
    """A value of the game's suit field and the standard suit it becomes."""

    value: str
    suit: str
    name: Text | None = None


@dataclass(frozen=True)
class RecogniseRule:
    """A promise that `by` (rank, suit, colour or card) alone tells `what` (type or a field)."""

    by: str
    what: str
    types: tuple[str, ...] = ()
    text: Text | None = None
    location: Location | None = None
    where: tuple[tuple[str, Any], ...] = ()  # only cards whose fields have these values

    def applies_to(self, card: Card) -> bool:
        return (not self.types or card.type_id in self.types) and _matches(card, self.where)


def _matches(card: Card, where: tuple[tuple[str, Any], ...]) -> bool:
    """Every (field, value) holds; a tuple value means any of those values."""
    return all(card.get(k) in v if isinstance(v, tuple) else card.get(k) == v for k, v in where)


@dataclass(frozen=True)
class Interchangeable:
    """Card types that play alike (they differ only in flavour), so they may share standard cards."""

    types: tuple[str, ...]
    name: Text | None = None
    location: Location | None = None


@dataclass(frozen=True)
class MappingReport:
    """What mapping.yaml says, what it needs, and every problem found in it."""

    game_id: str
    path: str
    decks: int | None  # as declared
    decks_needed: int
    entries: tuple[MappingEntry, ...]
    problems: tuple[Problem, ...]
    value_field: str | None = None
    suit_field: str | None = None
    suit_map: tuple[SuitAssignment, ...] = ()
    recognise: tuple[RecogniseRule, ...] = ()
    interchangeable: tuple[Interchangeable, ...] = ()
    show: tuple[str, ...] = ()
    labels: dict[str, dict[str, Text]] = field(default_factory=dict)
    setup: Text | None = None
    note: Text | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def mapped(self) -> tuple[MappingEntry, ...]:
        return tuple(e for e in self.entries if e.standard is not None)

    @property
    def must_print(self) -> tuple[MappingEntry, ...]:
        return tuple(e for e in self.entries if e.standard is None)

    def entry(self, card_id: str) -> MappingEntry | None:
        for e in self.entries:
            if e.card_id == card_id:
                return e
        return None

    def group_of(self, type_id: str) -> Interchangeable | None:
        """The interchangeable group a card type belongs to, if any."""
        for group in self.interchangeable:
            if type_id in group.types:
                return group
        return None

    def usage(self) -> dict[StandardCard, int]:
        """How often each standard card is used, in deck order."""
        counts = Counter(e.standard for e in self.mapped)
        return {c: counts[c] for c in sorted(counts, key=StandardCard.sort_key)}

    def as_dict(self) -> dict:
        return {
            "game": self.game_id,
            "ok": self.ok,
            "decks": self.decks,
            "decks_needed": self.decks_needed,
            "cards": len(self.entries),
            "mapped": len(self.mapped),
            "value_field": self.value_field,
            "suits": {"field": self.suit_field, "map": {s.value: s.suit for s in self.suit_map}} if self.suit_field else None,
            "recognise": [{"by": r.by, "what": r.what, "types": list(r.types),
                           "where": {k: list(v) if isinstance(v, tuple) else v for k, v in r.where}} for r in self.recognise],
            "interchangeable": [list(g.types) for g in self.interchangeable],
            "entries": [e.as_dict() for e in self.entries],
            "must_print": [e.as_dict() for e in self.must_print],
            "problems": [str(p) for p in self.problems],
        }


# --- loading ----------------------------------------------------------------------------------

def mapping_path(game: Game) -> Path:
    return Path(game.root) / MAPPING_FILE


def has_mapping(game: Game) -> bool:
    return mapping_path(game).is_file()


def load_mapping(game: Game) -> MappingReport:
    """Read and validate the game's mapping.yaml; problems are collected in the report, not raised."""
    return _Builder(game).build()


def require_mapping(game: Game) -> MappingReport:
    """The report, or DataError listing every problem (for outputs that must not print a wrong sheet)."""
    report = load_mapping(game)
    if not report.ok:
        raise DataError(list(report.problems))
    return report


_CACHE: dict[tuple[str, str, int, int], MappingReport] = {}


def cached_mapping(game: Game) -> MappingReport | None:
    """load_mapping, cached per game folder and file version; None without a mapping.yaml."""
    path = mapping_path(game)
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    key = (str(Path(game.root).resolve()), game.id, stat.st_mtime_ns, stat.st_size)
    if key not in _CACHE:
        _CACHE[key] = load_mapping(game)
    return _CACHE[key]


def corner_index(game: Game, card: Card | str) -> tuple[str, str | None] | None:
    """The standard-card index to print in a card's corner: (rank label, suit), e.g. ("10", "spades").

    A joker gives ("JK", None | "red" | "black"). None when the game has no mapping, the
    mapping is invalid, or the card must be printed anyway. Draw the suit as a vector shape
    (`cardgen.render.cards.index.draw_index`), not as a font glyph.
    """
    report = cached_mapping(game)
    if report is None or not report.ok:
        return None
    entry = report.entry(card if isinstance(card, str) else card.id)
    if entry is None or entry.standard is None:
        return None
    return entry.standard.rank_label, entry.standard.suit


@dataclass
class _Assignment:
    standard: StandardCard | None = None
    print_: bool = False
    reason: Text | None = None
    node: yaml.Node | None = None
    broken: bool = False  # an error was already reported for this card


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


class _Builder:
    def __init__(self, game: Game) -> None:
        self.game = game
        self.r = SchemaReader(game.languages)
        self.path = mapping_path(game)
        self.assign: dict[str, _Assignment] = {}
        self.top_node: yaml.Node | None = None
        self.types_node: yaml.Node | None = None
        self.decks: int | None = None
        self.decks_node: yaml.Node | None = None
        self.value_field: str | None = None
        self.value_node: yaml.Node | None = None
        self.suit_field: str | None = None
        self.suit_map: dict[str, tuple[SuitAssignment, yaml.Node]] = {}
        self.suits_node: yaml.Node | None = None
        self.rules: list[RecogniseRule] = []
        self.groups: list[Interchangeable] = []
        self.show: tuple[str, ...] = ()
        self.labels: dict[str, dict[str, Text]] = {}
        self.setup: Text | None = None
        self.note: Text | None = None

    # -- reading --------------------------------------------------------------------------

    def build(self) -> MappingReport:
        # a symbolic link out of the game folder is refused, never followed
        node = None
        if self.path.exists() and paths.inside(Path(self.game.root), MAPPING_FILE) is None:
            self.r.error(Location(_shown(self.path), 1, 1),
                         f"{MAPPING_FILE} resolves outside the game folder (a symbolic link?); replace it with a file in the folder")
        else:
            node = self.r.read(self.path)
        if node is not None:
            top = self.r.mapping(node, MAPPING_FILE, {"decks"}, TOP_KEYS)
            if top is not None:  # otherwise one problem says why; do not add "missing" for every card
                self.top_node = node
                self._read_top(top)
        entries = self._entries()
        decks_needed = self._check(entries)
        return MappingReport(
            game_id=self.game.id, path=_shown(self.path), decks=self.decks, decks_needed=decks_needed,
            entries=tuple(entries), problems=tuple(self.r.problems), value_field=self.value_field,
            suit_field=self.suit_field, suit_map=tuple(a for a, _ in self.suit_map.values()),
            recognise=tuple(self.rules), interchangeable=tuple(self.groups), show=self.show, labels=self.labels, setup=self.setup, note=self.note,
        )

    def _read_top(self, top: dict[str, tuple[yaml.Node, yaml.Node]]) -> None:
        r = self.r
        if "decks" in top:
            self.decks_node = top["decks"][1]
            decks = r.scalar(self.decks_node, "decks", "int")
            if decks is not None and decks < 1:
                r.error(self.decks_node, "decks must be at least 1 (the standard decks this mapping uses)")
                decks = None
            self.decks = decks
        if "value_field" in top:
            self.value_node = top["value_field"][1]
            name = r.scalar(self.value_node, "value_field", "str")
            spec = self.game.field_specs.get(name) if name else None
            if name and (spec is None or spec.kind != "int"):
                ints = ", ".join(n for n, s in self.game.field_specs.items() if s.kind == "int") or "(none)"
                r.error(self.value_node, f"value_field '{name}' is not a whole-number card field of this game; use one of: {ints}")
            elif name:
                self.value_field = name
        if "suits" in top:
            self._read_suits(top["suits"][1])
        if "recognise" in top:
            self._read_recognise(top["recognise"][1])
        if "interchangeable" in top:
            self._read_interchangeable(top["interchangeable"][1])
        if "show" in top:
            items = r.sequence(top["show"][1], "show") or []
            names = []
            for item in items:
                name = r.scalar(item, "show", "str")
                if name is None:
                    continue
                if name not in self.game.field_specs:
                    r.error(item, f"show: '{name}' is not a card field of this game; use one of: {', '.join(self.game.field_specs)}")
                    continue
                names.append(name)
            self.show = tuple(names)
        if "labels" in top:
            self._read_labels(top["labels"][1])
        if "setup" in top:
            self.setup = r.text(top["setup"][1], "setup")
        if "note" in top:
            self.note = r.text(top["note"][1], "note")
        if "types" in top:
            self.types_node = top["types"][0]
            self._read_types(top["types"][1])

    def _read_suits(self, node: yaml.Node) -> None:
        r = self.r
        self.suits_node = node
        s = r.mapping(node, "suits", {"field", "map"}, {"field", "map"})
        if not s or "field" not in s or "map" not in s:
            return
        name = r.scalar(s["field"][1], "suits.field", "str")
        spec = self.game.field_specs.get(name) if name else None
        if name and (spec is None or spec.kind not in ("enum", "str")):
            choices = ", ".join(n for n, f in self.game.field_specs.items() if f.kind in ("enum", "str")) or "(none)"
            r.error(s["field"][1], f"suits.field '{name}' is not an enum or string card field of this game; use one of: {choices}")
            return
        if not name:
            return
        self.suit_field = name
        entries = r.mapping(s["map"][1], "suits.map", set(), None) or {}
        for value, (key, val) in entries.items():
            if spec.kind == "enum" and value not in spec.values:
                r.error(key, f"suits.map: '{value}' is not a value of {name}; the values are: {', '.join(spec.values)}")
                continue
            suit_node, label = val, None
            if isinstance(val, yaml.MappingNode):
                m = r.mapping(val, f"suits.map.{value}", {"suit"}, {"suit", "name"})
                if not m or "suit" not in m:
                    continue
                suit_node = m["suit"][1]
                label = r.text(m["name"][1], f"suits.map.{value}.name") if "name" in m else None
            text = r.scalar(suit_node, f"suits.map.{value}", "str")
            suit = parse_suit(text) if text is not None else None
            if text is not None and suit is None:
                r.error(suit_node, f"suits.map.{value}: '{text}' is not a standard suit; use S, H, D or C (or ♠ ♥ ♦ ♣)")
                continue
            if suit:
                self.suit_map[value] = (SuitAssignment(value, suit, label), val)

    def _read_recognise(self, node: yaml.Node) -> None:
        r = self.r
        items = [node] if isinstance(node, yaml.ScalarNode) else (r.sequence(node, "recognise") or [])
        for item in items:
            if isinstance(item, yaml.ScalarNode):
                by = r.scalar(item, "recognise", "str")
                what, types, text, by_node = "type", (), None, item
            else:
                m = r.mapping(item, "recognise rule", {"by"}, {"by", "what", "types", "where", "text"})
                if not m or "by" not in m:
                    continue
                by_node = m["by"][1]
                by = r.scalar(by_node, "recognise.by", "str")
                what = r.scalar(m["what"][1], "recognise.what", "str") if "what" in m else "type"
                if what is None:
                    continue
                if what != "type" and what not in self.game.field_specs:
                    r.error(m["what"][1], f"recognise.what: '{what}' is neither 'type' nor a card field; use type or one of: {', '.join(self.game.field_specs)}")
                    continue
                types = self._type_list(m["types"][1], "recognise.types") if "types" in m else ()
                where = self._where(m["where"][1], "recognise.where") if "where" in m else ()
                text = r.text(m["text"][1], "recognise.text") if "text" in m else None
            if by is None:
                continue
            if by not in RECOGNISE_BY:
                r.error(by_node, f"recognise: '{by}' is unknown; say what alone tells the card apart: {', '.join(RECOGNISE_BY)}")
                continue
            self.rules.append(RecogniseRule(by, what, types, text, r.where(item), where if not isinstance(item, yaml.ScalarNode) else ()))

    def _type_list(self, node: yaml.Node, what: str) -> tuple[str, ...]:
        known = [ct.id for ct in self.game.card_types]
        out = []
        for t in self.r.sequence(node, what) or []:
            tid = self.r.scalar(t, what, "str")
            if tid and tid not in known:
                self.r.error(t, f"{what}: '{tid}' is not a card type; use one of: {', '.join(known)}")
            elif tid:
                out.append(tid)
        return tuple(out)

    def _where(self, node: yaml.Node, what: str) -> tuple[tuple[str, Any], ...]:
        """{field: value or [values], ...}: cards whose fields have these values."""
        out = []
        for name, (key, value) in (self.r.mapping(node, what, set(), None) or {}).items():
            spec = self.game.field_specs.get(name)
            if spec is None or spec.kind == "text":
                plain = ", ".join(n for n, f in self.game.field_specs.items() if f.kind != "text")
                self.r.error(key, f"{what}: '{name}' is not a card field that can be matched; use one of: {plain}")
                continue
            wanted = self.r.plain(value)
            values = wanted if isinstance(wanted, list) else [wanted]
            bad = [v for v in values if spec.kind == "enum" and v not in spec.values]
            if bad or any(isinstance(v, (dict, list)) for v in values):
                self.r.error(value, f"{what}.{name}: {bad[0] if bad else wanted!r} is not one of: {', '.join(spec.values) or 'the plain values of ' + name}")
                continue
            out.append((name, tuple(values) if isinstance(wanted, list) else wanted))
        return tuple(out)

    def _read_interchangeable(self, node: yaml.Node) -> None:
        r = self.r
        taken: dict[str, yaml.Node] = {}
        for item in r.sequence(node, "interchangeable") or []:
            m = r.mapping(item, "interchangeable group", set(), {"types", "where", "name"})
            if m is None:
                continue
            if not ({"types", "where"} & m.keys()):
                r.error(item, "interchangeable group: say which card types play alike with types: [..] or where: {field: value}")
                continue
            types = list(self._type_list(m["types"][1], "interchangeable.types")) if "types" in m else []
            if "where" in m:
                where = self._where(m["where"][1], "interchangeable.where")
                matching = [c.type_id for c in self.game.cards if _matches(c, where)]
                if where and not matching:
                    r.error(m["where"][1], "interchangeable.where matches no card; check the field values")
                types += [t for t in dict.fromkeys(matching) if t not in types]
            for t in types:
                if t in taken:
                    r.error(item, f"interchangeable: card type '{t}' is already in the group at line {taken[t].start_mark.line + 1}; a type belongs to one group")
                taken[t] = item
            name = r.text(m["name"][1], "interchangeable.name") if "name" in m else None
            if types:
                self.groups.append(Interchangeable(tuple(types), name, r.where(item)))

    def _read_labels(self, node: yaml.Node) -> None:
        r = self.r
        fields = r.mapping(node, "labels", set(), None) or {}
        for name, (key, value) in fields.items():
            spec = self.game.field_specs.get(name)
            if spec is None or spec.kind != "enum":
                r.error(key, f"labels: '{name}' is not an enum card field; only enum values need names")
                continue
            values = r.mapping(value, f"labels.{name}", set(), set(spec.values)) or {}
            self.labels[name] = {}
            for v, (_, text_node) in values.items():
                text = r.text(text_node, f"labels.{name}.{v}")
                if text:
                    self.labels[name][v] = text

    def _read_types(self, node: yaml.Node) -> None:
        r = self.r
        entries = r.mapping(node, "types", set(), None) or {}
        known = {t.id: t for t in self.game.card_types}
        for type_id, (key, value) in entries.items():
            if type_id not in known:
                r.error(key, f"types: '{type_id}' is not a card type of {self.game.id}; use one of: {', '.join(known)}, {suggest_hint(self.game)}")
                continue
            cards = self.game.cards_of(type_id)
            what = f"types.{type_id}"
            t = r.mapping(value, what, set(), TYPE_KEYS)
            if t is None:
                for card in cards:
                    self.assign[card.id] = _Assignment(node=value, broken=True)
                continue
            per_copy = self._type_rule(t, value, what, cards)
            for card, assignment in zip(cards, per_copy):
                self.assign[card.id] = assignment
            if "copies" in t:
                self._read_copies(t["copies"][1], what, cards)

    def _type_rule(self, t: dict, node: yaml.Node, what: str, cards: tuple[Card, ...]) -> list[_Assignment]:
        r = self.r
        count = len(cards)
        if "print" in t:
            wants = r.scalar(t["print"][1], f"{what}.print", "bool")
            reason = r.text(t["reason"][1], f"{what}.reason") if "reason" in t else None
            if wants is None:
                return [_Assignment(node=node, broken=True) for _ in cards]
            if wants:
                clash = sorted(k for k in ("cards", "rank", "suit", "suits") if k in t)
                if clash:
                    r.error(t["print"][1], f"{what}: print: true cannot go with {', '.join(clash)}; either map the type or print it")
                return [_Assignment(print_=True, reason=reason, node=t["print"][1]) for _ in cards]
        elif "reason" in t:
            r.error(t["reason"][0], f"{what}: a reason explains why cards must be printed; add print: true or remove it")
        if "cards" in t:
            clash = sorted(k for k in ("rank", "ranks", "suit", "suits") if k in t)
            if clash:
                r.error(t["cards"][0], f"{what}: cards already names rank and suit; remove {', '.join(clash)}")
            items = r.sequence(t["cards"][1], f"{what}.cards") or []
            if len(items) != count:
                r.error(t["cards"][1], f"{what}.cards lists {len(items)} standard cards but the type has {count} copies; list one per copy, in cards.yaml order")
            out = []
            for i in range(count):
                if i >= len(items):
                    out.append(_Assignment(node=t["cards"][1], broken=True))
                    continue
                std = self._card(items[i], f"{what}.cards")
                out.append(_Assignment(standard=std, node=items[i], broken=std is None))
            return out
        if "suit" in t and "suits" in t:
            r.error(t["suits"][0], f"{what}: give either suit (one for every copy) or suits (one per copy), not both")
        if "rank" in t and "ranks" in t:
            r.error(t["ranks"][0], f"{what}: give either rank (one for every copy) or ranks (one per copy), not both")
        rank = self._rank(t["rank"][1], f"{what}.rank") if "rank" in t else None
        rank_bad = "rank" in t and rank is None
        ranks: list[tuple[int | None, yaml.Node | None]] = [(rank, t["rank"][1] if "rank" in t else None)] * count
        if "ranks" in t and "rank" not in t:
            items = r.sequence(t["ranks"][1], f"{what}.ranks") or []
            if len(items) != count:
                r.error(t["ranks"][1], f"{what}.ranks lists {len(items)} ranks but the type has {count} copies; list one per copy, in cards.yaml order")
                rank_bad = True
            parsed_ranks = [(self._rank(item, f"{what}.ranks"), item) for item in items]
            rank_bad = rank_bad or any(x is None for x, _ in parsed_ranks)
            ranks = (parsed_ranks + [(None, None)] * count)[:count]
        suits: list[tuple[str | None, yaml.Node | None]] = [(None, None)] * count
        suit_bad = False
        if "suit" in t:
            suit = self._suit(t["suit"][1], f"{what}.suit")
            suit_bad = suit is None
            suits = [(suit, t["suit"][1])] * count
        elif "suits" in t:
            items = r.sequence(t["suits"][1], f"{what}.suits") or []
            if len(items) != count:
                r.error(t["suits"][1], f"{what}.suits lists {len(items)} suits but the type has {count} copies; list one per copy, in cards.yaml order")
                suit_bad = True
            parsed = [(self._suit(item, f"{what}.suits"), item) for item in items]
            suit_bad = suit_bad or any(s is None for s, _ in parsed)
            suits = (parsed + [(None, None)] * count)[:count]
        if not ({"rank", "ranks", "suit", "suits", "copies", "print"} & t.keys()):
            r.error(node, f"{what} maps nothing; give cards: [..], rank: with suit:/suits:, or print: true")
            return [_Assignment(node=node, broken=True) for _ in cards]
        out = []
        for card, (suit, suit_node), (rank, rank_node) in zip(cards, suits, ranks):
            derived_rank, derived_suit, derived_node = self._derived_parts(card)
            chosen_rank = rank if rank is not None else derived_rank
            chosen_suit = suit if suit is not None else derived_suit
            if rank_bad or suit_bad:
                out.append(_Assignment(node=node, broken=True))
                continue
            if chosen_rank is None or chosen_suit is None:
                if ({"rank", "ranks", "suit", "suits"} & t.keys()):
                    lacking = "suit (or suits)" if chosen_suit is None else "rank"
                    r.error(node, f"{what}: {card.id} has no {lacking}; add {lacking.split(' ')[0]}: to the type"
                                  + (" or a suits: map" if chosen_suit is None else ""))
                    out.append(_Assignment(node=node, broken=True))
                else:
                    out.append(_Assignment(node=node))  # only copies: the rest is reported missing
                continue
            where = suit_node if suit_node is not None else (rank_node if rank_node is not None else derived_node)
            out.append(_Assignment(standard=StandardCard(chosen_rank, chosen_suit), node=where or node))
        return out

    def _read_copies(self, node: yaml.Node, what: str, cards: tuple[Card, ...]) -> None:
        r = self.r
        entries = r.mapping(node, f"{what}.copies", set(), None) or {}
        by_id = {c.id: c for c in cards}
        for name, (key, value) in entries.items():
            card = by_id.get(name)
            if card is None and name.isdigit() and 1 <= int(name) <= len(cards):
                card = cards[int(name) - 1]
            if card is None:
                r.error(key, f"{what}.copies: '{name}' is neither a card id of this type ({_id_range([c.id for c in cards])}) nor a copy number 1..{len(cards)}")
                continue
            c = r.mapping(value, f"{what}.copies.{name}", set(), COPY_KEYS)
            if c is None:
                self.assign[card.id] = _Assignment(node=value, broken=True)
                continue
            self.assign[card.id] = self._copy_rule(c, value, f"{what}.copies.{name}", card)

    def _copy_rule(self, c: dict, node: yaml.Node, what: str, card: Card) -> _Assignment:
        r = self.r
        if "print" in c:
            wants = r.scalar(c["print"][1], f"{what}.print", "bool")
            if wants:
                reason = r.text(c["reason"][1], f"{what}.reason") if "reason" in c else None
                return _Assignment(print_=True, reason=reason, node=c["print"][1])
            if wants is None:
                return _Assignment(node=node, broken=True)
        if "card" in c:
            std = self._card(c["card"][1], f"{what}.card")
            return _Assignment(standard=std, node=c["card"][1], broken=std is None)
        previous = self.assign.get(card.id) or self._derive(card)
        if previous.standard is not None and previous.standard.is_joker:
            previous = _Assignment()
        derived_rank, derived_suit, _ = self._derived_parts(card)
        rank = self._rank(c["rank"][1], f"{what}.rank") if "rank" in c else (previous.standard.rank if previous.standard else derived_rank)
        suit = self._suit(c["suit"][1], f"{what}.suit") if "suit" in c else (previous.standard.suit if previous.standard else derived_suit)
        if rank is None or suit is None:
            if not ({"rank", "suit"} & c.keys()):
                r.error(node, f"{what} maps nothing; give card:, rank: and suit:, or print: true")
            elif ("rank" in c and rank is not None) or ("suit" in c and suit is not None):
                r.error(node, f"{what}: give both rank and suit (or card: e.g. 10S)")
            return _Assignment(node=node, broken=True)
        return _Assignment(standard=StandardCard(rank, suit), node=node)

    def _card(self, node: yaml.Node, what: str) -> StandardCard | None:
        if isinstance(node, yaml.ScalarNode) and node.value != "":
            std = parse_standard_card(node.value)
            if std is not None:
                return std
        self.r.error(node, f"{what}: {kind_of(node)} is not a standard card; write rank then suit (AS, 10H, QD, 7C, or with ♠ ♥ ♦ ♣), or JK / JKR / JKB for a joker")
        return None

    def _rank(self, node: yaml.Node, what: str) -> int | None:
        rank = parse_rank(node.value) if isinstance(node, yaml.ScalarNode) else None
        if rank is None:
            self.r.error(node, f"{what}: {kind_of(node)} is not a standard rank; use A, 2..10, J, Q, K (or 1..13)")
        return rank

    def _suit(self, node: yaml.Node, what: str) -> str | None:
        suit = parse_suit(node.value) if isinstance(node, yaml.ScalarNode) else None
        if suit is None:
            self.r.error(node, f"{what}: {kind_of(node)} is not a standard suit; use S, H, D or C (or ♠ ♥ ♦ ♣)")
        return suit

    def _suit_of(self, card: Card) -> tuple[str | None, yaml.Node | None]:
        if not self.suit_field:
            return None, None
        value = card.get(self.suit_field)
        if value in self.suit_map:
            assignment, node = self.suit_map[value]
            return assignment.suit, node
        return None, None

    def _derived_parts(self, card: Card) -> tuple[int | None, str | None, yaml.Node | None]:
        """Rank from value_field (if 1..13) and suit from the suits map, where the data gives them."""
        value = card.get(self.value_field) if self.value_field else None
        rank = value if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 13 else None
        suit, suit_node = self._suit_of(card)
        return rank, suit, suit_node

    def _derive(self, card: Card) -> _Assignment:
        """The default for a card no type entry names: rank from value_field, suit from suits."""
        rank, suit, node = self._derived_parts(card)
        if rank is not None and suit is not None:
            return _Assignment(standard=StandardCard(rank, suit), node=node)
        return _Assignment()

    # -- checking -------------------------------------------------------------------------

    def _entries(self) -> list[MappingEntry]:
        entries = []
        missing: dict[str, list[Card]] = defaultdict(list)
        unmapped_suit: dict[str, list[Card]] = defaultdict(list)
        for card in self.game.cards:
            a = self.assign.get(card.id)
            if a is None:
                a = self._derive(card)
                if a.standard is None and self.suit_field and self.value_field and isinstance(card.get(self.value_field), int) \
                        and card.get(self.suit_field) is not None and card.get(self.suit_field) not in self.suit_map:
                    unmapped_suit[str(card.get(self.suit_field))].append(card)
                    a.broken = True
                self.assign[card.id] = a
            if a.standard is None and not a.print_:
                if not a.broken and self.top_node is not None:
                    missing[card.type_id].append(card)
                std = None
            else:
                std = a.standard
            where = self.r.where(a.node) if a.node is not None else None
            entries.append(MappingEntry(card.id, card.type_id, card.name, std, a.reason, where))
        for value, cards in unmapped_suit.items():
            self.r.error(self.suits_node, f"suits.map has no standard suit for {self.suit_field} '{value}' ({_id_range([c.id for c in cards])}); add '{value}: S' (or H, D, C) to suits.map")
        for type_id, cards in missing.items():
            where = self.types_node or self.top_node
            card_type = self.game.card_type(type_id)
            defined = f", defined at {card_type.location}" if card_type.location else ""
            total = len(self.game.cards_of(type_id))
            ids = _id_range([c.id for c in cards])
            subject = (f"card type '{type_id}' ({card_type.name.en}, {ids}{defined}) is" if len(cards) == total
                       else f"{len(cards)} of the {total} cards of type '{type_id}' ({ids}{defined}) are")
            self.r.error(where, f"{subject} neither mapped to a standard card nor marked print; under types, add "
                                f"'{type_id}: {{cards: [..]}}' (or rank: with suit: or suits:), or '{type_id}: {{print: true, reason: ..}}', "
                                f"{suggest_hint(self.game)}")
        return entries

    def _at(self, entry: MappingEntry) -> yaml.Node | None:
        a = self.assign.get(entry.card_id)
        return a.node if a and a.node is not None else (self.types_node or self.top_node)

    def _check(self, entries: list[MappingEntry]) -> int:
        if self.top_node is None:
            return 0
        mapped = [e for e in entries if e.standard is not None]
        decks_needed = _decks_needed([e.standard for e in mapped])
        self._check_duplicates(mapped)
        if self.decks is not None and mapped and decks_needed < self.decks and not self._over_used(mapped):
            self.r.error(self.decks_node, f"decks is {self.decks} but the mapping needs only {decks_needed}; set decks: {decks_needed}")
        self._check_values(mapped)
        self._check_types_recognisable(mapped)
        for rule in self.rules:
            self._check_rule(rule, mapped)
        return decks_needed

    def _over_used(self, mapped: list[MappingEntry]) -> bool:
        return self.decks is not None and _decks_needed([e.standard for e in mapped]) > self.decks

    def _check_duplicates(self, mapped: list[MappingEntry]) -> None:
        """No standard card more often than the decks hold: each card once per deck, two jokers per deck."""
        if self.decks is None:
            return
        by_card: dict[StandardCard, list[MappingEntry]] = defaultdict(list)
        for e in mapped:
            by_card[e.standard].append(e)
        decks = f"{self.decks} standard deck{'s' if self.decks > 1 else ''} hold{'s' if self.decks == 1 else ''}"
        joker_reported = False
        for std in sorted(by_card, key=StandardCard.sort_key):
            users = by_card[std]
            per_deck = JOKERS_PER_DECK if std.is_joker and std.suit is None else 1
            limit = self.decks * per_deck
            if len(users) <= limit:
                continue
            joker_reported = joker_reported or std.is_joker
            surplus = users[limit]
            self.r.error(self._at(surplus),
                         f"{std.label} ({std.code}) is used {len(users)} times ({', '.join(e.card_id for e in users)}) but {decks} only {limit}"
                         f" ({'two' if per_deck == 2 else 'one'} per deck); map {surplus.card_id} to another standard card, "
                         f"or raise decks to {math.ceil(len(users) / per_deck)}, {suggest_hint(self.game)}")
        jokers = [e for e in mapped if e.standard.is_joker]
        limit = self.decks * JOKERS_PER_DECK
        if len(jokers) > limit and not joker_reported:
            self.r.error(self._at(jokers[limit]),
                         f"{len(jokers)} cards are mapped to jokers ({', '.join(e.card_id for e in jokers)}) but {decks} only {limit}; "
                         f"map {jokers[limit].card_id} to another standard card, or raise decks to {math.ceil(len(jokers) / JOKERS_PER_DECK)}, "
                         f"{suggest_hint(self.game)}")

    def _check_values(self, mapped: list[MappingEntry]) -> None:
        if not self.value_field:
            return
        label = self.value_field
        for e in mapped:
            card = self._card_by_id(e.card_id)
            value = card.get(self.value_field)
            if not isinstance(value, int):
                continue
            std = e.standard
            if std.is_joker:
                self.r.error(self._at(e), f"{e.card_id} ({e.name.en}) has {label} {value} but is mapped to a joker, which has no rank; "
                                          f"the rules compare {label}, so map it to a standard card of rank {rank_label(value) if 1 <= value <= 13 else value}")
            elif std.rank != value:
                if 1 <= value <= 13:
                    fix = f"map it to a {rank_label(value)}" + (f" ({value})" if rank_label(value) != str(value) else "")
                else:
                    fix = f"no standard rank is {value}, so mark it print: true"
                self.r.error(self._at(e), f"{e.card_id} ({e.name.en}) has {label} {value} but is mapped to {std.label}, rank {std.rank}; "
                                          f"value_field says the rules compare {label}, so a mapped card's rank must equal it (A=1, J=11, Q=12, K=13); {fix}")

    def _check_types_recognisable(self, mapped: list[MappingEntry]) -> None:
        by_card: dict[StandardCard, list[MappingEntry]] = defaultdict(list)
        for e in mapped:
            by_card[e.standard].append(e)
        group_of = {t: i for i, g in enumerate(self.groups) for t in g.types}
        for std in sorted(by_card, key=StandardCard.sort_key):
            users = by_card[std]
            if len({group_of.get(e.type_id, e.type_id) for e in users}) <= 1:
                continue
            types = sorted({e.type_id for e in users}, key=[t.id for t in self.game.card_types].index)
            if len(types) > 1:
                first_other = next(e for e in users if group_of.get(e.type_id, e.type_id) != group_of.get(users[0].type_id, users[0].type_id))
                names = " and ".join(f"{t} ({', '.join(e.card_id for e in users if e.type_id == t)})" for t in types)
                self.r.error(self._at(first_other), f"{std.label} stands for two card types, {names}; a player holding it could not tell which; "
                                                    f"give each type its own standard cards, or list the types under interchangeable if they play alike")

    def _check_rule(self, rule: RecogniseRule, mapped: list[MappingEntry]) -> None:
        pool = [e for e in mapped if rule.applies_to(self._card_by_id(e.card_id))]
        groups: dict[Any, dict[Any, list[MappingEntry]]] = defaultdict(lambda: defaultdict(list))
        for e in pool:
            key = _recognise_key(e.standard, rule.by)
            value = e.type_id if rule.what == "type" else _hashable(self._card_by_id(e.card_id).get(rule.what))
            groups[key][value].append(e)
        among = f" among {', '.join(rule.types)}" if rule.types else ""
        if rule.where:
            among += " among cards with " + ", ".join(f"{k}={'|'.join(map(str, v)) if isinstance(v, tuple) else v}" for k, v in rule.where)
        for key, values in groups.items():
            if len(values) <= 1:
                continue
            shown = " / ".join(f"{_show_value(v)} ({', '.join(e.card_id for e in es[:3])}{'…' if len(es) > 3 else ''})" for v, es in values.items())
            self.r.problems.append(Problem(rule.location, f"recognise: {rule.by} alone must tell the {rule.what}{among}, but {rule.by} {_show_key(key, rule.by)} "
                                                          f"stands for {shown}; map them to different {rule.by}s or drop the rule"))

    def _card_by_id(self, card_id: str) -> Card:
        for card in self.game.cards:
            if card.id == card_id:
                return card
        raise KeyError(card_id)


def _decks_needed(cards: Iterable[StandardCard]) -> int:
    counts = Counter(cards)
    if not counts:
        return 0
    needed = max([n for c, n in counts.items() if not c.is_joker or c.suit] or [0])
    jokers = sum(n for c, n in counts.items() if c.is_joker)
    return max(needed, math.ceil(jokers / JOKERS_PER_DECK))


def _recognise_key(std: StandardCard, by: str) -> Any:
    if by == "rank":
        return std.rank
    if by == "suit":
        return std.suit if not std.is_joker else ("joker", std.suit)
    if by == "colour":
        return std.colour
    return std


def _show_key(key: Any, by: str) -> str:
    if by == "rank":
        return "joker" if key == 0 else rank_label(key)
    if by == "suit":
        return "joker" if isinstance(key, tuple) else SUIT_SYMBOLS.get(key, str(key))
    return str(key)


def _hashable(value: Any) -> Any:
    if isinstance(value, Text):
        return value.values
    return value


def _show_value(value: Any) -> str:
    if isinstance(value, tuple) and len(value) == 2:
        return value[1]
    return str(value)


_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def _id_range(ids: list[str]) -> str:
    """LL23, LL24 ... LL32 -> "LL23–LL32"; other lists joined with commas."""
    if not ids:
        return ""
    matches = [_NUMBERED.match(i) for i in ids]
    if all(matches) and len({m.group(1) for m in matches}) == 1:
        numbers = [int(m.group(2)) for m in matches]
        runs: list[tuple[int, int]] = []
        for i, n in enumerate(numbers):
            if runs and n == numbers[i - 1] + 1:
                runs[-1] = (runs[-1][0], i)
            else:
                runs.append((i, i))
        return ", ".join(ids[a] if a == b else f"{ids[a]}–{ids[b]}" for a, b in runs)
    return ", ".join(ids)


def id_range(ids: list[str]) -> str:
    return _id_range(ids)


def format_report(report: MappingReport, game: Game | None = None) -> str:
    """The mapping as a plain-text table for `cardgen mapping` (problems are printed separately)."""
    total, mapped, to_print = len(report.entries), len(report.mapped), len(report.must_print)
    decks = report.decks_needed
    lines = [f"{report.game_id}: {total} cards, {mapped} mapped to standard cards, {to_print} to print; "
             f"needs {decks} standard deck{'s' if decks != 1 else ''}"
             + (f" (mapping.yaml says decks: {report.decks})" if report.decks is not None and report.decks != decks else "")]
    if report.suit_map:
        pairs = ", ".join(f"{s.value} -> {SUIT_SYMBOLS[s.suit]}" for s in report.suit_map)
        lines.append(f"suits ({report.suit_field}): {pairs}")
    if report.value_field:
        lines.append(f"values: standard rank = {report.value_field} (A=1, J=11, Q=12, K=13)")
    for rule in report.recognise:
        among = f" among {', '.join(rule.types)}" if rule.types else ""
        if rule.where:
            among += " where " + ", ".join(f"{k} = {' or '.join(map(str, v)) if isinstance(v, tuple) else v}" for k, v in rule.where)
        lines.append(f"recognise: {rule.by} tells {rule.what}{among}")
    width_id = max((len(e.card_id) for e in report.entries), default=4)
    width_type = max((len(e.type_id) for e in report.entries), default=4)
    lines.append("")
    lines.append(f"  {'card':<{width_id}}  {'type':<{width_type}}  standard")
    for e in report.entries:
        shown = e.standard.label if e.standard else "PRINT"
        lines.append(f"  {e.card_id:<{width_id}}  {e.type_id:<{width_type}}  {shown}")
    if report.must_print:
        lines.append("")
        lines.append("must be printed:")
        by_reason: dict[str, dict[str, list[MappingEntry]]] = defaultdict(lambda: defaultdict(list))
        for e in report.must_print:
            by_reason[e.reason.en if e.reason else ""][e.type_id].append(e)
        for reason, types in by_reason.items():
            for type_id, entries in types.items():
                lines.append(f"  {type_id} ×{len(entries)} ({_id_range([e.card_id for e in entries])})")
            if reason:
                lines.append(f"    because: {reason}")
    return "\n".join(lines)


# --- a suggested mapping ----------------------------------------------------------------------

SUGGEST_COMMAND = "cardgen mapping {game} --suggest"


def suggest_hint(game: Game) -> str:
    """What to run when mapping.yaml no longer fits the cards (types renamed, counts raised)."""
    return f"or run `{SUGGEST_COMMAND.format(game=_shown(Path(game.root)))}` to write a mapping for the current cards"


def _value_field(game: Game) -> str | None:
    """A whole-number field every card has within a standard rank (1..13), so ranks can keep it."""
    for name, spec in game.field_specs.items():
        values = [card.get(name) for card in game.cards]
        if spec.kind == "int" and values and all(isinstance(v, int) and 1 <= v <= 13 for v in values):
            return name
    return None


def suggest_mapping(game: Game) -> dict:
    """A mapping.yaml that is valid for the game's current cards, as plain data.

    Each card gets a standard card no other type uses (so the card alone tells its type), the
    least used one first so that as few decks as possible are needed, in a suit of its type's own
    where one is left; with a whole-number field in
    1..13 the rank keeps its value (`value_field`). A card left with no such standard card is printed.
    """
    value_field = _value_field(game)
    everything = [StandardCard(rank, suit) for suit in SUITS for rank in range(1, 14)]
    owner: dict[StandardCard, str] = {}
    uses: Counter[StandardCard] = Counter()
    types: dict[str, dict] = {}
    for card_type in game.card_types:
        chosen: list[StandardCard | None] = []
        for card in game.cards_of(card_type.id):
            pool = [c for c in everything if value_field is None or c.rank == card.get(value_field)]
            free = [c for c in pool if owner.get(c, card_type.id) == card_type.id]
            # fewest decks first; then a suit of this type's own, so a player also reads the type from the suit
            mine = {c.suit for c in chosen if c}
            taken = {c.suit for c, type_id in owner.items() if type_id != card_type.id}
            pick = min(free, key=lambda c: (uses[c], 0 if c.suit in mine else 1 if c.suit not in taken else 2)) if free else None
            if pick is not None:
                owner[pick] = card_type.id
                uses[pick] += 1
            chosen.append(pick)
        if all(chosen):
            types[card_type.id] = {"cards": [c.code for c in chosen if c]}
        else:
            reason = {lang: _NO_CARD_LEFT.get(lang, _NO_CARD_LEFT["en"]) for lang in game.languages}
            types[card_type.id] = {"copies": {str(i): ({"card": c.code} if c else {"print": True, "reason": reason})
                                              for i, c in enumerate(chosen, 1)}}
    top: dict[str, Any] = {"decks": max(_decks_needed(uses.elements()), 1)}
    if value_field:
        top["value_field"] = value_field
    top["types"] = types
    return top


# why a suggested mapping prints a card, in each language the game may be written in (else English)
_NO_CARD_LEFT = {"ja": "対応する標準カードが残っていないため", "en": "no standard card is left for it",
                 "fr": "il ne reste aucune carte classique pour elle", "de": "es ist keine Standardkarte mehr für sie frei"}


def write_suggested_mapping(game: Game) -> tuple[Path, Path | None]:
    """Write the suggestion to mapping.yaml; the file it replaces is kept as mapping.yaml.bak."""
    path = mapping_path(game)
    kept = None
    if path.is_file():
        kept = path.with_name(MAPPING_FILE + ".bak")
        kept.write_bytes(path.read_bytes())
    header = (f"# Suggested by `{SUGGEST_COMMAND.format(game=game.id)}` for the cards as they are now"
              f"{' (the previous file is ' + kept.name + ')' if kept else ''}.\n"
              f"# Edit it freely (format: card_data/MAPPING.md in cardgen): suits, recognise, labels, setup, note.\n")
    body = yaml.safe_dump(suggest_mapping(game), allow_unicode=True, sort_keys=False, default_flow_style=None, width=120)
    path.write_text(header + body, encoding="utf-8")
    return path, kept
