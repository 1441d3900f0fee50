"""The model of a game: plain frozen dataclasses built by `cardgen.load`.

Nothing downstream of the loader reads YAML; renderers, the rulebook, the mapping and the
engine all read these objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping


@dataclass(frozen=True)
class Location:
    """Where a value came from, for error messages: file, 1-based line and column."""

    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


@dataclass(frozen=True)
class CheckResult:
    """One check's verdict, as `cardgen check`, an engine's hooks and the build report give it."""

    id: str
    ok: bool
    message: str
    location: Location | None = None
    warning: bool = False  # passes, but a designer should look (e.g. card text below 6 pt)

    def as_dict(self) -> dict:
        return {"id": self.id, "ok": self.ok, "warning": self.warning, "message": self.message,
                "location": str(self.location) if self.location else None}


@dataclass(frozen=True, init=False)
class Text:
    """A text in each language it is written in (a game's texts: exactly its declared languages,
    `Game.languages`; an interface word: every language cardgen ships words for).

    `Text(ja=..., en=..., fr=...)`; `values` keeps them in that order as (language, text) pairs,
    so a Text is hashable and its cache key is its content.
    """

    values: tuple[tuple[str, str], ...]

    def __init__(self, ja: str | None = None, en: str | None = None, **others: str):
        given = {"ja": ja, "en": en, **others}
        object.__setattr__(self, "values", tuple((lang, text) for lang, text in given.items() if text is not None))

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(lang for lang, _ in self.values)

    def has(self, lang: str) -> bool:
        return any(have == lang for have, _ in self.values)

    def get(self, lang: str) -> str:
        """The text in `lang`. A game's text has every language the build may ask for (the loader
        and `--lang` see to it); failing that, English, then the first language written, so a
        word missing in one language never stops a drawing (`cardgen check` lists it)."""
        found = dict(self.values)
        if lang in found:
            return found[lang]
        return found.get("en") or (self.values[0][1] if self.values else "")

    @property
    def ja(self) -> str:
        return self.get("ja")

    @property
    def en(self) -> str:
        return self.get("en")

    def as_dict(self) -> dict[str, str]:
        return dict(self.values)


@dataclass(frozen=True)
class FieldSpec:
    """Declares one per-card field a game uses (`card_fields` in game.yaml)."""

    name: str
    kind: str  # "int", "str", "text", "enum", "bool"
    values: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    required: bool = False
    label: Text | None = None
    # required on the cards whose other fields have these values ({deck: (event,)})
    required_when: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # the label group of an enum's values (cardgen.words.label); None: the field's own name
    label_kind: str | None = None
    location: Location | None = None


@dataclass(frozen=True)
class Decision:
    """A choice the project made where the source is silent; the rulebook prints it."""

    id: str
    text: Text
    location: Location | None = None


@dataclass(frozen=True)
class Component:
    """A physical component that is not a card (chips, tokens, dice)."""

    id: str
    name: Text
    count: int | None
    note: Text | None = None


@dataclass(frozen=True)
class CardType:
    """A named kind of card with its copy count and shared fields."""

    id: str
    name: Text
    count: int
    fields: Mapping[str, Any]
    note: Text | None = None
    location: Location | None = None


@dataclass(frozen=True)
class Card:
    """One physical card: its id (e.g. LL01), its type and its own merged fields."""

    id: str
    type_id: str
    copy: int  # 1-based copy number within its type
    name: Text
    fields: Mapping[str, Any]
    location: Location | None = None

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)


@dataclass(frozen=True)
class Deck:
    """A deck the game declares (`decks:` in game.yaml): its card size and the card types it holds.

    Its backs follow from its types (the layout gives each type its back)."""

    id: str
    name: Text
    card_size: str  # normalised (cardgen.sizes)
    types: tuple[str, ...]
    location: Location | None = None


@dataclass(frozen=True)
class Game:
    """Everything the data of one game says."""

    id: str
    title: Text
    min_players: int
    max_players: int
    card_size: str
    root: Path
    field_specs: Mapping[str, FieldSpec]
    card_types: tuple[CardType, ...]
    cards: tuple[Card, ...]
    declared_total: int
    components: tuple[Component, ...] = ()
    parameters: Mapping[str, Any] = field(default_factory=dict)
    decisions: tuple[Decision, ...] = ()
    claims: tuple[Mapping[str, Any], ...] = ()
    engine: str | None = None
    source: str | None = None
    summary: Text | None = None
    back: Mapping[str, Any] = field(default_factory=dict)
    # printed labels of values: kind (an enum's label kind, "ending", "policy") -> value -> Text
    labels: Mapping[str, Mapping[str, Text]] = field(default_factory=dict)
    # where things were read: "game.yaml", "cards.yaml", "parameters.<name>" -> file:line:column
    locations: Mapping[str, Location] = field(default_factory=dict)
    # game.yaml's id when the game is a copy in a folder of another name (`id` is the folder's)
    declared_id: str | None = None
    # the languages every text is written in and every output is made in (game.yaml `languages:`);
    # the first is the default --lang
    languages: tuple[str, ...] = ("ja", "en")
    # the decks game.yaml declares (empty: one implicit deck of every card at `card_size`)
    decks: tuple[Deck, ...] = ()
    # set on a view of one declared deck (`deck_view`): its cards, types and card size only
    deck: Deck | None = None

    def deck_view(self, deck: Deck) -> Game:
        """The game as one of its decks: that deck's types, cards and card size (what its sheets,
        print-shop PDF, PNGs, TTS deck and tuck box are drawn from)."""
        held = set(deck.types)
        cards = tuple(card for card in self.cards if card.type_id in held)
        return replace(self, card_types=tuple(t for t in self.card_types if t.id in held), cards=cards,
                       declared_total=len(cards), card_size=deck.card_size, deck=deck)

    def deck_views(self) -> tuple[Game, ...]:
        """One view per declared deck; the game itself when it declares none."""
        return tuple(self.deck_view(deck) for deck in self.decks) if self.decks and self.deck is None else (self,)

    def holding(self, card: Card) -> Game:
        """The view of the declared deck that holds `card` (drawn at that deck's size); the game itself without decks."""
        for deck in self.decks if self.deck is None else ():
            if card.type_id in deck.types:
                return self.deck_view(deck)
        return self

    def heading(self, lang: str) -> str:
        """The title printed over this game's pages: with the deck's name on a deck's own."""
        title = self.title.get(lang)
        return title if self.deck is None else f"{title} — {self.deck.name.get(lang)}"

    @property
    def file_stem(self) -> str:
        """What the files of this game (or of this deck view) are named after: `<game>` or `<game>-<deck>`."""
        return self.id if self.deck is None else f"{self.id}-{self.deck.id}"

    def where(self, key: str) -> Location | None:
        """The location of a parameter ('parameters.rounds' or 'rounds') or file, if known."""
        return self.locations.get(key) or self.locations.get(f"parameters.{key}")

    @property
    def total(self) -> int:
        return len(self.cards)

    @property
    def numbered(self) -> bool:
        """Whether the card ids are card numbers the designer gave (`id:` or `id_format`: OH001,
        printed on the cards) that paper may show; generated ids (`<type>-<copy>`) stay internal."""
        return any(card.id != f"{card.type_id}-{card.copy}" for card in self.cards)

    @property
    def player_counts(self) -> range:
        return range(self.min_players, self.max_players + 1)

    def card_type(self, type_id: str) -> CardType:
        for card_type in self.card_types:
            if card_type.id == type_id:
                return card_type
        raise KeyError(type_id)

    def cards_of(self, type_id: str) -> tuple[Card, ...]:
        return tuple(card for card in self.cards if card.type_id == type_id)

    def param(self, name: str) -> Any:
        """Return a rule parameter; a missing one is a data error, reported by name."""
        try:
            return self.parameters[name]
        except KeyError:
            raise KeyError(f"{self.id}: rule parameter {name!r} is missing from game.yaml") from None
