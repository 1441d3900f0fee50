"""Zones with declared visibility, and a State whose observations are derived from them.

Every physical card lives in exactly one named `Zone`; each zone declares who may see its
cards: `Visibility.PUBLIC` (everyone: a discard pile, cards in play), `Visibility.OWNER` (only
its owning seat: a hand) or `Visibility.NOBODY` (no one: a face-down deck). A `Table` holds the
zones of one game, and `TableState` builds `public_view()`/`private_view(seat)` from them: a
seat sees the cards of the zones it may see and only the size of every other zone. So a rules
module that keeps its cards in zones cannot leak a hidden card by forgetting to mask it; what it
adds itself (`public_facts()`, `private_facts(seat)`) is its own responsibility.

Draws are chance nodes by construction: `TableState.draw(pile, to, n)` queues n draws from a
pile (a `core.Deck`, an unordered multiset after a shuffle), and each draw is a chance node
`draw:<card>` whose outcomes are the cards it may be, equally likely. The drawn card's
visibility in the history follows the zone it lands in: a card drawn into a hand is seen by
its owner only (the others read ``draw:?``), into a public zone by everyone, into a hidden
zone by no one.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Iterable, Iterator, Mapping, Sequence

from .core import CHANCE_PHASE, OVER, Action, ChoiceState, Deck, InvariantError
from .turns import PhaseCycle, TurnOrder


class Visibility(str, Enum):
    """Who may see the cards of a zone (everyone may always see how many there are)."""

    PUBLIC = "public"      # every seat
    OWNER = "owner"        # only the zone's owner
    NOBODY = "nobody"      # no seat (a face-down pile)


class Zone:
    """A named place for cards: a list (bottom first, so `top()` is the last card) or, for a
    shuffled face-down pile, a `core.Deck` whose order is unknown until each card is drawn."""

    __slots__ = ("name", "visibility", "owner", "cards")

    def __init__(self, name: str, visibility: Visibility, owner: int | None = None,
                 cards: Iterable[str] | Deck = ()) -> None:
        if visibility is Visibility.OWNER and owner is None:
            raise ValueError(f"zone {name!r} is seen by its owner only, so it needs an owner seat")
        self.name = name
        self.visibility = visibility
        self.owner = owner
        self.cards: list[str] | Deck = cards if isinstance(cards, Deck) else list(cards)

    def copy(self) -> "Zone":
        new = Zone.__new__(Zone)
        new.name, new.visibility, new.owner = self.name, self.visibility, self.owner
        new.cards = self.cards.copy()
        return new

    def visible_to(self, seat: int) -> bool:
        """Whether `seat` may see the cards (not only how many)."""
        if self.visibility is Visibility.PUBLIC:
            return True
        return self.visibility is Visibility.OWNER and seat == self.owner

    def seen_by(self) -> tuple[int, ...] | None:
        """The seats that see a card put here: None for everyone, else the seats."""
        if self.visibility is Visibility.PUBLIC:
            return None
        return (self.owner,) if self.visibility is Visibility.OWNER and self.owner is not None else ()

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[str]:
        return iter(self.cards)

    def __contains__(self, card: object) -> bool:
        return card in self.cards

    def top(self) -> str | None:
        """The last card put here (None when empty); a face-down Deck has no known top."""
        if isinstance(self.cards, Deck):
            raise TypeError(f"zone {self.name!r} is a shuffled pile: its top is unknown until drawn")
        return self.cards[-1] if self.cards else None

    def listed(self) -> list[str]:
        """The cards in a canonical order (a Deck's unordered layers sorted)."""
        return self.cards.cards() if isinstance(self.cards, Deck) else list(self.cards)

    def __repr__(self) -> str:
        return f"Zone({self.name!r}, {self.visibility.value}, owner={self.owner}, {len(self)} cards)"


class Table:
    """The zones of one game, by name, in the order they were declared."""

    __slots__ = ("zones",)

    def __init__(self) -> None:
        self.zones: dict[str, Zone] = {}

    def copy(self) -> "Table":
        new = Table.__new__(Table)
        new.zones = {name: zone.copy() for name, zone in self.zones.items()}
        return new

    def add(self, name: str, visibility: Visibility, owner: int | None = None,
            cards: Iterable[str] | Deck = ()) -> Zone:
        if name in self.zones:
            raise ValueError(f"there is already a zone {name!r}")
        zone = self.zones[name] = Zone(name, visibility, owner, cards)
        return zone

    def pile(self, name: str, cards: Iterable[str], visibility: Visibility = Visibility.NOBODY) -> Zone:
        """A shuffled face-down pile: each card taken from it is a chance draw."""
        return self.add(name, visibility, None, Deck(cards))

    def hands(self, players: int, prefix: str = "hand") -> list[Zone]:
        """One hand per seat, seen by its owner only: zones "hand1", "hand2", ... (seats from 1,
        as every view numbers them)."""
        return [self.add(f"{prefix}{seat + 1}", Visibility.OWNER, seat) for seat in range(players)]

    def __getitem__(self, name: str) -> Zone:
        return self.zones[name]

    def __iter__(self) -> Iterator[Zone]:
        return iter(self.zones.values())

    def move(self, card: str, source: Zone | str, dest: Zone | str) -> None:
        """Move one card from a list zone to the top of another."""
        source = self.zones[source] if isinstance(source, str) else source
        dest = self.zones[dest] if isinstance(dest, str) else dest
        try:
            source.cards.remove(card)      # a list's or a Deck's: both say ValueError
        except ValueError:
            raise InvariantError(f"{card} is not in zone {source.name!r}") from None
        _put(dest, [card])

    def card_zones(self) -> dict[str, list[str]]:
        """Every zone's cards (what `State.zones()` returns for card conservation)."""
        return {name: zone.listed() for name, zone in self.zones.items()}

    def public_view(self) -> dict[str, Any]:
        """Every seat's view: a visible zone's cards, or ``{"count": n}`` for a hidden one."""
        return {name: zone.listed() if zone.visibility is Visibility.PUBLIC else {"count": len(zone)}
                for name, zone in self.zones.items()}

    def private_view(self, seat: int) -> dict[str, Any]:
        """The cards of the zones only `seat` may see."""
        return {name: zone.listed() for name, zone in self.zones.items()
                if zone.visibility is Visibility.OWNER and zone.owner == seat}


def _put(dest: Zone, cards: Sequence[str]) -> None:
    if isinstance(dest.cards, Deck):
        dest.cards.put_on_top(list(cards)[::-1])
    else:
        dest.cards.extend(cards)


def _rebind(value: Any, table: Table) -> Any:
    """`value` with its zones replaced by the zones of the same name in `table`, and its turn
    orders and phase cycles copied (one level of containers deep)."""
    if isinstance(value, Zone):
        return table.zones[value.name]
    if isinstance(value, (TurnOrder, PhaseCycle)):
        return value.copy()
    if isinstance(value, list) and value and isinstance(value[0], Zone):
        return [table.zones[zone.name] for zone in value]
    if isinstance(value, tuple) and value and isinstance(value[0], Zone):
        return tuple(table.zones[zone.name] for zone in value)
    if isinstance(value, dict) and value and isinstance(next(iter(value.values())), Zone):
        return {key: table.zones[zone.name] for key, zone in value.items()}
    return value


_DRAWS: dict[tuple[type, str], Action] = {}


def _draw_action(action_type: type, card: str) -> Action:
    key = (action_type, card)
    action = _DRAWS.get(key)
    if action is None:
        action = _DRAWS[key] = action_type("draw", (card,))
    return action


class TableState(ChoiceState):
    """A State whose cards all live in `self.table`; its views, zones and draws come from it.

    A subclass sets up `self.table` (and anything else) in `__init__`, then:

    - `ask(seat, options)` starts a decision (the sorted options are the legal actions);
    - `draw(pile, to, n)` queues chance draws; when the last is done `after_draws()` runs;
    - `play(action)` applies one of the player's choices (every non-chance action);
    - `end()` finishes the game, and `result()` reports it;
    - `public_facts()` / `private_facts(seat)` add what the zones do not show (a declared
      suit, a score) to the views.
    """

    table: Table
    pending_draws: list[tuple[str, str]]      # (pile, destination) zone names, next first

    def __init__(self, rules: Any) -> None:
        self.rules = rules
        self.history: list[Action] = []
        self.hidden_moves: dict[int, tuple[int, ...]] = {}
        self.table = Table()
        self.pending_draws = []
        self.phase = CHANCE_PHASE
        self.actor = -1
        self.options: list = []
        self._legal: list | None = None

    def clone(self) -> "TableState":
        """State.clone copies plain containers only: the table is copied here, and every
        attribute holding a zone (or a list, tuple or dict of zones) points into the new table,
        so a plugin may keep `self.hands = table.hands(n)`; turn orders and phase cycles are
        copied too."""
        new = super().clone()
        table = new.table = self.table.copy()
        for name, value in vars(new).items():
            if name != "table":
                rebound = _rebind(value, table)
                if rebound is not value:
                    setattr(new, name, rebound)
        return new

    # --- decisions ----------------------------------------------------------------------

    def ask(self, seat: int, options: Iterable[Action], phase: str = "play") -> None:
        """Seat `seat` is to choose one of `options` next."""
        self.phase = phase
        self.actor = seat
        self.options = list(options)
        self._legal = None
        if not self.options:
            raise InvariantError(f"seat {seat} is asked to choose in {phase!r} with no option")

    def end(self) -> None:
        self.phase = OVER
        self.options = []
        self._legal = None

    def play(self, action: Action) -> None:
        """Apply a player's choice (the subclass's rules)."""
        raise NotImplementedError

    def secret(self, seen_by: Iterable[int]) -> None:
        """The move being played is seen in full only by the seats `seen_by`; the others read it
        as ``KIND:?`` in their history (a card passed face down names no card to them). Call it
        from `play()`: a move's text is public unless it is made secret."""
        self.hidden_moves[len(self.history) - 1] = tuple(seen_by)

    # --- chance ---------------------------------------------------------------------------

    def draw(self, pile: Zone | str, to: Zone | str, n: int = 1) -> None:
        """Queue `n` draws from the shuffled pile `pile` into zone `to` (fewer if it runs out)."""
        pile = pile.name if isinstance(pile, Zone) else pile
        to = to.name if isinstance(to, Zone) else to
        n = min(n, len(self.table[pile]) - sum(1 for p, _ in self.pending_draws if p == pile))
        self.pending_draws.extend([(pile, to)] * n)
        if self.pending_draws:
            self.phase = CHANCE_PHASE
            self._legal = None
        else:
            self.after_draws()

    def after_draws(self) -> None:
        """Called when the queued draws are done: start the next decision."""
        raise NotImplementedError

    def _pile(self, name: str | None = None) -> Deck:
        """The pile the next queued draw takes from (or the pile `name`)."""
        name = name if name is not None else self.pending_draws[0][0]
        cards = self.table[name].cards
        if not isinstance(cards, Deck):
            raise InvariantError(f"zone {name!r} is not a shuffled pile, so nothing can be drawn from it")
        return cards

    def chance_size(self) -> int:
        if self.phase != CHANCE_PHASE or not self.pending_draws:
            return 0
        return self._pile().choices()

    def chance_at(self, i: int) -> Action:
        return _draw_action(self.rules.action_type, self._pile().candidate(i))

    def chance_deck(self) -> Deck | None:
        # chance_outcomes come from the pile's kept outcome table, not a count of its cards
        if self.phase != CHANCE_PHASE or not self.pending_draws:
            return None
        return self._pile()

    def draw_action(self, card: str) -> Action:
        return _draw_action(self.rules.action_type, card)

    def _apply(self, action: Action) -> None:
        if self.phase == CHANCE_PHASE:
            pile, to = self.pending_draws.pop(0)
            card = action.args[0]
            self._pile(pile).take(card)
            dest = self.table[to]
            _put(dest, [card])
            seen = dest.seen_by()
            if seen is not None:
                self.hidden_moves[len(self.history) - 1] = seen
            if not self.pending_draws:
                self.after_draws()
            return
        self.play(action)

    # --- views ----------------------------------------------------------------------------

    def zones(self) -> Mapping[str, Iterable[str]]:
        return self.table.card_zones()

    def public_facts(self) -> dict[str, Any]:
        """What every seat knows beyond the zones (plain data; seats numbered from 1)."""
        return {}

    def private_facts(self, seat: int) -> dict[str, Any]:
        """What only `seat` knows beyond the zones it may see."""
        return {}

    def public_view(self) -> dict[str, Any]:
        return {"zones": self.table.public_view(), **self.public_facts()}

    def private_view(self, seat: int) -> dict[str, Any]:
        return {"zones": self.table.private_view(seat), **self.private_facts(seat)}
