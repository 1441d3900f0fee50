"""The engine core: a game's rules as states, typed actions, explicit chance and observations.

Every game module (cardgen/engine/<game>.py) defines a `Rules` subclass and a `State`
subclass in the shape of OpenSpiel's API:

- `State.current_player()` is a seat (0-based), `CHANCE` or `TERMINAL`;
- at a chance node `chance_outcomes()` lists (outcome, probability) and `legal_actions()` the
  outcomes. Every random event is a chance node: a shuffle only makes a deck an unordered
  multiset (`Deck`), and each draw from it is a chance node whose outcomes are the cards it may
  be, all equally likely; a die is a chance node too. No engine code touches a random source:
  `sample_chance(state, rng)` picks an outcome from one seeded `random.Random` and the driver
  (`play`) applies it, so a record or a test can fix any outcome by applying it;
- `legal_actions()` are one typed `Action` per game (a NamedTuple with a stable string codec,
  `str(action)`, read back by `Rules.decode_action(text)`), sorted;
- `apply(action)`, `clone()`, `observation(seat)`, `information_state_string(seat)`,
  `returns()` and `result()`.

Policies see only an `Observation` and the legal actions: `choose(observation, legal, rng)`.
"""

from __future__ import annotations

import functools
import json
import random
import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, Callable, ClassVar, Iterable, Mapping, NamedTuple, Sequence

from ..model import Game

# OpenSpiel's values (pyspiel.PlayerId.TERMINAL and .CHANCE), so a player id means the same
# on both sides of the bridge; compare with these names, never with the numbers.
TERMINAL = -4
CHANCE = -1

_INT = re.compile(r"-?[0-9]+\Z")


class Action(NamedTuple):
    """A move: a kind and its arguments (card ids as str, seats/slots/numbers as int).

    Each game subclasses it (``class LlllAction(Action): __slots__ = ()``) so that actions are
    typed per game; all share the codec ``kind:arg:arg`` (``str(action)``/``encode()``) and the
    tuple order (kind, then arguments), which is the sorted order of `legal_actions()`.
    Arguments of one kind always have the same types, so actions always compare.
    """

    kind: str
    args: tuple = ()

    def encode(self) -> str:
        if not self.args:
            return self.kind
        return self.kind + ":" + ":".join(map(str, self.args))

    def __str__(self) -> str:
        return self.encode()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.encode()!r})"

    @property
    def arg(self) -> Any:
        """The first argument (most actions have one)."""
        return self.args[0]

    # Kinds whose arguments are all text even when they look like numbers (card ids).
    TEXT_KINDS = frozenset()  # no annotation: an annotated name would become a field

    @classmethod
    def decode(cls, text: Any) -> "Action":
        """Read an action back from its code (or from a record's list form [kind, arg, ...])."""
        if isinstance(text, cls):
            return text
        if isinstance(text, (list, tuple)):
            if not text or not isinstance(text[0], str):
                raise ValueError(f"not an action: {text!r}")
            return cls(text[0], tuple(text[1:]))
        if not isinstance(text, str) or not text:
            raise ValueError(f"not an action: {text!r}")
        kind, *rest = text.split(":")
        if kind in cls.TEXT_KINDS:
            return cls(kind, tuple(rest))
        return cls(kind, tuple(int(x) if _INT.match(x) else x for x in rest))


DRAW = "draw"       # the kind of every card-draw chance outcome: draw:<card id>
ROLL = "roll"       # the kind of every die chance outcome: roll:<face>
CHANCE_KINDS = frozenset({DRAW, ROLL})


def is_automatic(action: "Action") -> bool:
    """A move the rules made for a player who had no choice (auto-pass, auto-pick, skip ...)."""
    kind = action[0]
    return kind.startswith("auto-") or kind == "skip"


_NOT_DECISIONS: set = set(CHANCE_KINDS)     # kinds seen so far that are chance or automatic
_DECISIONS: set = set()


def count_decisions(history: Sequence["Action"]) -> int:
    """How many moves of `history` were the players' own choices (not chance, not automatic)."""
    kinds = [a[0] for a in history]
    for kind in set(kinds) - _NOT_DECISIONS - _DECISIONS:
        (_NOT_DECISIONS if kind.startswith("auto-") or kind == "skip" else _DECISIONS).add(kind)
    skip = _NOT_DECISIONS
    return len(kinds) - sum(1 for k in kinds if k in skip)


@dataclass(frozen=True)
class GameResult:
    """How a finished game ended. Scores are per seat; winners are seat numbers (0-based)."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]           # empty for a co-operative/solo loss
    length: int                        # every move in the history: choices, chance outcomes, automatic moves
    success: bool | None = None        # co-operative / solo games: did the players win
    ending: str | None = None          # named ending (a co-operative game's) or reason ("deck-empty", ...)
    details: Mapping[str, Any] = field(default_factory=dict)
    decisions: int | None = None       # the players' own choices only (what a game's length means to players)

    @property
    def draw(self) -> bool:
        """A shared win of a competitive game (co-operative games report `success` instead)."""
        return self.success is None and len(self.winners) > 1

    def as_dict(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "winners": list(self.winners), "length": self.length,
                "decisions": self.decisions,
                "draw": self.draw, "success": self.success, "ending": self.ending,
                "details": dict(self.details)}


@dataclass(frozen=True)
class Observation:
    """What one seat may know: its seat, its own private information (its hand, what it has
    peeked at), the public view every player sees, and the public history of moves, with the
    chance outcomes this seat may not see masked (``draw:?``).

    Plain data only: no reference to the state, the rules' decks or another seat's hand.
    Seats inside `public`/`private` are shown numbered from 1; `seat` is 0-based like actions.
    """

    game: str
    seat: int
    phase: str
    to_act: int | None                  # the pending seat, numbered from 1 (None: chance or over)
    private: Mapping[str, Any]
    public: Mapping[str, Any]
    history: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"game": self.game, "seat": self.seat, "phase": self.phase, "to_act": self.to_act,
                "private": self.private, "public": self.public, "history": list(self.history)}

    def key(self) -> str:
        """A canonical string of everything in the observation (the information-state string)."""
        return json.dumps(self.as_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=list)


class InvariantError(AssertionError):
    """A state broke one of the engine's invariants (a bug in the rules, never user error)."""


class IllegalAction(ValueError):
    """An action that is not legal in the current state; the message says why."""


_KEPT_TABLES = 64     # outcome tables kept per rules (`Rules.outcome_tables`); all dropped when full
_UNMET = object()     # not met yet (a key of the kept tables, a total of `_OutcomeTable.uniform`)


class _OutcomeTable:
    """The chance outcomes of a draw from one unordered layer of a Deck: its distinct cards,
    their draw actions and their multiplicities, in the actions' sorted order, and optionally
    the actions' codes (the bridge's ids), kept in step by `drawn`.

    A table the rules keep (`kept`) shares with its copies what never changes: each card's rank
    (its place in the table as built, so that `ranks`, the ranks of the cards left, stay sorted
    and `drawn` finds a card by bisection) and `rows`, the outcome lists met before when every
    card is there once (see `uniform`). A table of its own has none of them (None)."""

    __slots__ = ("cards", "actions", "counts", "total", "top", "code", "codes", "codes_sorted",
                 "ranks", "rank", "by_rank", "rows")

    def __init__(self, cards: list, act: Callable[[Any], "Action"]) -> None:
        distinct = set(cards)
        counts = Counter(cards) if len(distinct) < len(cards) else None   # None: every card once
        named = dict(zip(distinct, map(act, distinct)))
        # sorted by action, each named once (the cards' actions are unique and compare)
        self.cards = sorted(distinct, key=named.__getitem__)
        self.actions = list(map(named.__getitem__, self.cards))
        self.counts = [1] * len(self.cards) if counts is None else list(map(counts.__getitem__, self.cards))
        self.total = len(cards)
        self.top = max(self.counts)     # the largest multiplicity when built: take() only lowers them
        self.code: Callable[[Any], Any] | None = None
        self.codes: list = []
        self.codes_sorted = True
        self.ranks: list[int] | None = None
        self.rank: dict[Any, int] | None = None
        self.by_rank: tuple | None = None
        self.rows: dict[int, list | None] | None = None

    def copy(self) -> "_OutcomeTable":
        new = _OutcomeTable.__new__(_OutcomeTable)
        new.cards, new.actions, new.counts = list(self.cards), list(self.actions), list(self.counts)
        new.total, new.top, new.code, new.codes_sorted = self.total, self.top, self.code, self.codes_sorted
        new.codes = list(self.codes)
        new.ranks = None if self.ranks is None else list(self.ranks)
        new.rank, new.by_rank, new.rows = self.rank, self.by_rank, self.rows
        return new

    def __getstate__(self) -> dict:
        # pickled (or deep-copied) without its caches, made again when asked: the codes (whose
        # `code` may be any callable) and the rows its lineage met
        state = {name: getattr(self, name) for name in self.__slots__}
        state.update(code=None, codes=[], codes_sorted=True, rows=None if self.rows is None else {})
        return state

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    @classmethod
    def kept(cls, cards: list, act: Callable[[Any], "Action"], tables: dict | None) -> "_OutcomeTable":
        """A new table of `cards` named by `act`: from the second time the same cards and naming
        are met, a copy of the one kept in `tables` (the rules' `outcome_tables`: every game starts
        from the same decks; a deck made mid-game is seldom met again, and is not kept). The naming
        is told by the first card's action, as a deck's own table is (`Deck._outcome_table`)."""
        if tables is None:
            return cls(cards, act)
        key = (tuple(cards), act(cards[0]))
        table = tables.get(key, _UNMET)
        if table is _UNMET:
            if len(tables) >= _KEPT_TABLES:
                tables.clear()
            tables[key] = None
            return cls(cards, act)
        if table is None:
            table = tables[key] = cls(cards, act)
            table.ranks = list(range(len(table.cards)))
            table.rank = {card: i for i, card in enumerate(table.cards)}
            table.by_rank = tuple(table.actions)
            table.rows = {}
        return table.copy()

    def drawn(self, card: Any) -> None:
        ranks = self.ranks
        if ranks is None:
            j = self.cards.index(card)
        else:
            rank = self.rank.get(card, -1)
            j = bisect_left(ranks, rank)
            if j == len(ranks) or ranks[j] != rank:
                raise InvariantError(f"{card} was drawn but is not among the deck's outcomes")
        k = self.counts[j] - 1
        if k:
            self.counts[j] = k
        else:
            del self.cards[j], self.actions[j], self.counts[j]
            if ranks is not None:
                del ranks[j]
            if self.code is not None:
                del self.codes[j]
        self.total -= 1

    def uniform(self) -> list:
        """(action, 1 / total) of each outcome, sorted, when every card is there once (top 1). A
        kept table's lineage (its copies: clones, and the same deck in later games) makes the pairs
        of a total once, the second time it meets it, and then selects from them by rank."""
        total = self.total
        rows = self.rows
        row = rows.get(total, _UNMET) if rows is not None else _UNMET
        if row is _UNMET:
            if rows is not None:
                rows[total] = None
            return list(zip(self.actions, repeat(1 / total)))
        if row is None:
            p = 1 / total
            row = rows[total] = [(action, p) for action in self.by_rank]
        return [row[i] for i in self.ranks]

    def probabilities(self) -> Iterable[float]:
        total = self.total
        if self.top == 1:               # every card once (the usual deck): one probability
            return repeat(1 / total)
        # k / total for each multiplicity k, looked up rather than divided once per card
        return map([k / total for k in range(self.top + 1)].__getitem__, self.counts)

    def coded(self, code: Callable[[Any], Any]) -> list:
        """(code(action), probability) of each outcome, sorted by code."""
        if self.code is not code:
            self.codes = list(map(code, self.actions))
            self.codes_sorted = all(a < b for a, b in zip(self.codes, self.codes[1:]))
            self.code = code
        out = list(zip(self.codes, self.probabilities()))
        if not self.codes_sorted:
            out.sort()
        return out


class Deck:
    """A face-down pile as layers, top layer first. A layer is either unordered (a multiset:
    what a shuffle makes; the next card is a chance draw among its cards) or ordered (a known
    order, such as a stacked deck or cards put back in a chosen order; its top is the end of
    its list, and the next card is forced).
    """

    __slots__ = ("layers", "hint", "_table")

    def __init__(self, cards: Iterable = (), ordered: bool = False) -> None:
        cards = list(cards)
        self.layers: list[list] = [[ordered, cards]] if cards else []
        self.hint = 0      # where the last candidate() was found: take() looks there first
        # the chance outcomes of a draw from the first unordered layer (the top one once the
        # known cards above it are drawn), built when first asked at that layer and kept up to
        # date by take() (a draw changes one count), so a chance node costs no recount of the
        # deck; None: not built
        self._table: _OutcomeTable | None = None

    @classmethod
    def stacked(cls, top_first: Sequence) -> "Deck":
        """A deck in a known order (top first)."""
        return cls(list(top_first)[::-1], ordered=True)

    def copy(self) -> "Deck":
        new = Deck.__new__(Deck)
        new.layers = [[o, list(c)] for o, c in self.layers]
        new.hint = self.hint
        table = self._table
        new._table = None if table is None else table.copy()
        return new

    def __len__(self) -> int:
        return sum(len(c) for _, c in self.layers)

    def __bool__(self) -> bool:
        return bool(self.layers)

    def __iter__(self):
        return iter(self.cards())

    def __contains__(self, card) -> bool:
        return any(card in c for _, c in self.layers)

    def cards(self) -> list:
        """Every card, top first (an unordered layer in a canonical sorted order)."""
        out: list = []
        for ordered, cards in self.layers:
            out.extend(reversed(cards) if ordered else sorted(cards))
        return out

    def choices(self) -> int:
        """How many equally likely cards the next draw may be (1 when the top is known)."""
        ordered, cards = self.layers[0]
        return 1 if ordered else len(cards)

    def candidate(self, i: int):
        """The i-th possible next card (0 <= i < choices())."""
        ordered, cards = self.layers[0]
        if ordered:
            return cards[-1]
        self.hint = i
        return cards[i]

    def candidates(self) -> list:
        ordered, cards = self.layers[0]
        return [cards[-1]] if ordered else sorted(set(cards))

    def _outcome_table(self, act: Callable[[Any], "Action"], tables: dict | None = None) -> _OutcomeTable | None:
        """The top layer's outcome table, None when its top card is known; `tables` keeps tables
        across decks (see `_OutcomeTable.kept`)."""
        ordered, cards = self.layers[0]
        if ordered:
            return None
        table = self._table
        # rebuilt when `act` names draws otherwise than the act it was built with (a game may name
        # an event's peek `draw:<card>:peek` and a plain draw `draw:<card>` from the same deck)
        if table is None or act(table.cards[0]) != table.actions[0]:
            table = self._table = _OutcomeTable.kept(cards, act, tables)
        return table

    def outcomes(self, act: Callable[[Any], "Action"], tables: dict | None = None) -> list[tuple["Action", float]]:
        """The next draw's chance outcomes, sorted: (act(card), probability) for each distinct
        card it may be. `act` names the draw of a card; a table built with another naming is
        rebuilt (from `tables` when it has it: see `_OutcomeTable.kept`)."""
        # _outcome_table inlined: this runs at every chance node of a State-API walk
        ordered, cards = self.layers[0]
        if ordered:
            return [(act(cards[-1]), 1.0)]
        table = self._table
        if table is None or act(table.cards[0]) != table.actions[0]:  # see _outcome_table
            table = self._table = _OutcomeTable.kept(cards, act, tables)
        if table.top == 1:
            if table.rows is None:      # not a kept table: see uniform
                return list(zip(table.actions, repeat(1 / table.total)))
            return table.uniform()
        return list(zip(table.actions, table.probabilities()))

    def outcome_actions(self, act: Callable[[Any], "Action"], tables: dict | None = None) -> list["Action"]:
        """The actions of `outcomes(act)` alone (the legal actions of a draw)."""
        table = self._outcome_table(act, tables)
        return [act(self.layers[0][1][-1])] if table is None else list(table.actions)

    def coded_outcomes(self, act: Callable[[Any], "Action"], code: Callable[["Action"], Any],
                       tables: dict | None = None) -> list[tuple[Any, float]]:
        """`outcomes(act)` with each action replaced by `code(action)` (an id), sorted by code.
        The codes are kept with the outcomes while `code` is the same object, so a caller that
        numbers actions (the OpenSpiel bridge) maps each card once per shuffle, not per draw."""
        table = self._outcome_table(act, tables)
        if table is None:
            return [(code(act(self.layers[0][1][-1])), 1.0)]
        return table.coded(code)

    def take(self, card) -> None:
        """Remove `card` as the drawn card; IllegalAction if it cannot be the next card."""
        layer = self.layers[0]
        cards = layer[1]
        if layer[0]:
            if cards[-1] != card:
                raise IllegalAction(f"the next card is known and is not {card}")
            cards.pop()
        else:
            i = self.hint
            if i >= len(cards) or cards[i] != card:
                try:
                    i = cards.index(card)
                except ValueError:
                    raise IllegalAction(f"{card} is not in the deck") from None
            cards[i] = cards[-1]
            cards.pop()
            table = self._table
            if table is not None:
                table.drawn(card)
        if not cards:
            del self.layers[0]
            if not layer[0]:
                self._table = None        # the table's layer is gone

    def replace(self, card, other) -> None:
        """Put `other` where one copy of `card` is (a test swapping hidden cards)."""
        self._table = None
        for _, cards in self.layers:
            if card in cards:
                cards[cards.index(card)] = other
                return
        raise ValueError(f"{card} is not in the deck")

    def remove(self, card) -> None:
        """Take a chosen card out (a player searching the deck), wherever it is."""
        self._table = None
        for k, (_, cards) in enumerate(self.layers):
            if card in cards:
                cards.remove(card)
                if not cards:
                    del self.layers[k]
                return
        raise ValueError(f"{card} is not in the deck")

    def shuffle_in(self, cards: Iterable = ()) -> None:
        """Add `cards` and shuffle: the whole deck becomes one unordered layer."""
        self._table = None
        everything = [c for _, layer in self.layers for c in layer]
        everything.extend(cards)
        self.layers = [[False, everything]] if everything else []

    def put_under(self, cards: Iterable, ordered: bool = False) -> None:
        """Put cards under the deck: shuffled among themselves (unordered) or in a known order
        (`cards` given top first)."""
        cards = list(cards)
        if not cards:
            return
        if ordered:
            cards.reverse()
            if self.layers and self.layers[-1][0]:
                self.layers[-1][1][:0] = cards
                return
        self.layers.append([ordered, cards])

    def put_on_top(self, top_first: Sequence) -> None:
        """Put cards on the deck in a known order (top first)."""
        cards = list(top_first)[::-1]
        if not cards:
            return
        if self.layers and self.layers[0][0]:
            self.layers[0][1].extend(cards)
        else:
            self.layers.insert(0, [True, cards])


class State:
    """A game in progress. Subclasses keep every physical card in exactly one zone.

    `history` holds every move in order: the choices of the players, the chance outcomes and
    the automatic moves the rules make for a player who has no choice (an engine appends those
    itself). `hidden_moves` maps a history index to the seats that saw that move (everyone
    else sees only `hidden_label`): a chance outcome dealt face down, or a choice that names
    what only its player knows (a secret pick, the order of cards only it has seen).
    """

    rules: "Rules"
    history: list[Action]
    hidden_moves: dict[int, tuple[int, ...]]

    def current_player(self) -> int:
        """Seat to act (0-based), CHANCE or TERMINAL."""
        raise NotImplementedError

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    # --- chance ---------------------------------------------------------------------------

    def chance_size(self) -> int:
        """At a uniform chance node: how many equally likely outcomes (0 otherwise)."""
        return 0

    def chance_at(self, i: int) -> Action:
        """The i-th equally likely outcome of a uniform chance node (repeats allowed)."""
        raise NotImplementedError

    def chance_deck(self) -> "Deck | None":
        """The Deck the pending chance node draws from, when it is a draw whose outcome
        `draw_action(card)` names (None: use chance_size/chance_at)."""
        return None

    def draw_action(self, card: Any) -> Action:
        """The chance outcome that draws `card` from `chance_deck()`."""
        raise NotImplementedError

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """(outcome, probability) at a chance node, sorted by outcome; probabilities sum to 1."""
        deck = self.chance_deck()
        if deck is not None:
            return deck.outcomes(self.draw_action, self.rules.outcome_tables)
        n = self.chance_size()
        if not n:
            return []
        counts = Counter(self.chance_at(i) for i in range(n))
        return [(a, k / n) for a, k in sorted(counts.items())]

    def coded_chance_outcomes(self, code: Callable[[Action], Any]) -> list[tuple[Any, float]]:
        """`chance_outcomes()` with each action replaced by `code(action)`, sorted by code: a
        draw's codes are kept with its deck (`Deck.coded_outcomes`), so pass the same `code`
        object every time."""
        deck = self._outcome_deck()
        if deck is not None:
            return deck.coded_outcomes(self.draw_action, code, self.rules.outcome_tables)
        out = [(code(action), p) for action, p in self.chance_outcomes()]
        out.sort()
        return out

    # --- choices --------------------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """Sorted legal actions: the player's choices, or the outcomes at a chance node."""
        if self.current_player() == CHANCE:
            deck = self._outcome_deck()
            if deck is not None:
                return deck.outcome_actions(self.draw_action, self.rules.outcome_tables)
            return [a for a, _ in self.chance_outcomes()]
        return self._legal_actions()

    def _outcome_deck(self) -> "Deck | None":
        """The deck whose kept outcome table may answer for chance_outcomes(): none when an
        engine answers chance_outcomes() itself (its override is the truth)."""
        if type(self).chance_outcomes is not State.chance_outcomes:
            return None
        return self.chance_deck()

    def _legal_actions(self) -> list[Action]:
        raise NotImplementedError

    def _apply(self, action: Action) -> None:
        raise NotImplementedError

    def decode(self, action: Any) -> Action:
        return self.rules.decode_action(action)

    def apply(self, action: Any) -> None:
        """Apply a legal action or chance outcome (an Action or its code), or raise IllegalAction."""
        if self.is_terminal():
            raise IllegalAction(f"{self.describe(action)} comes after the end of the game")
        try:
            action = self.decode(action)
        except (ValueError, TypeError):
            raise IllegalAction(f"{action!r} is not an action of {self.rules.game.id}") from None
        legal = self.legal_actions()
        if action not in legal:
            shown = ", ".join(self.describe(a) for a in legal[:12])
            more = "" if len(legal) <= 12 else f" (+{len(legal) - 12} more)"
            # seats are shown numbered from 1, as `to_act` and every view show them
            who = "chance" if self.current_player() == CHANCE else f"seat {self.current_player() + 1}"
            raise IllegalAction(f"{self.describe(action)} is not legal for {who}; legal: {shown}{more}")
        self.history.append(action)
        self._apply(action)

    def apply_unchecked(self, action: Action) -> None:
        """Apply an action known to be legal (the fast path of `play`)."""
        self.history.append(action)
        self._apply(action)

    def clone(self) -> "State":
        """An equal, independent copy: containers are copied, the Rules are shared."""
        new = object.__new__(type(self))
        slots = getattr(type(self), "__slots__", None)
        names = list(vars(self)) if hasattr(self, "__dict__") else []
        if slots:
            for klass in type(self).__mro__:
                names.extend(s for s in getattr(klass, "__slots__", ()) if hasattr(self, s))
        for name in names:
            value = getattr(self, name)
            object.__setattr__(new, name, value if name == "rules" else _copy(value))
        return new

    # --- results ----------------------------------------------------------------------------

    def result(self) -> GameResult:
        raise NotImplementedError

    def returns(self) -> list[float]:
        """Per seat: co-operative/solo games 1.0 on success and 0.0 otherwise; competitive games
        1.0 shared equally among the winners (1 for a sole winner, 1/k each for a k-way tie).
        All zeros before the end."""
        n = self.rules.players
        if not self.is_terminal():
            return [0.0] * n
        result = self.result()
        if result.success is not None:
            return [1.0 if result.success else 0.0] * n
        share = 1.0 / len(result.winners) if result.winners else 0.0
        return [share if s in result.winners else 0.0 for s in range(n)]

    def zones(self) -> Mapping[str, Iterable[str]]:
        """Every zone and the card ids in it; together they hold each physical card once."""
        raise NotImplementedError

    def describe(self, action: Any) -> str:
        """A short human description of an action for logs and replay errors."""
        return str(action)

    # --- views ------------------------------------------------------------------------------

    def phase_name(self) -> str:
        return str(getattr(self, "phase", ""))

    def to_act(self) -> int | None:
        seat = self.current_player()
        return seat + 1 if seat >= 0 else None

    def public_view(self) -> dict[str, Any]:
        """What every player sees (plain data; seats numbered from 1)."""
        return {}

    def private_view(self, seat: int) -> dict[str, Any]:
        """What only `seat` knows (its hand, cards it has peeked at)."""
        return {}

    def public_history(self, seat: int) -> tuple[str, ...]:
        """The history as `seat` saw it, extended incrementally (a cache per seat)."""
        cache = self.__dict__.setdefault("_seen_history", {}) if hasattr(self, "__dict__") else {}
        seen = cache.get(seat)
        if seen is None:
            seen = cache[seat] = []
        hidden = self.hidden_moves
        history = self.history
        for i in range(len(seen), len(history)):
            action = history[i]
            who = hidden.get(i)
            seen.append(str(action) if who is None or seat in who else self.hidden_label(action))
        return tuple(seen)

    def reveal(self, indices: Iterable[int]) -> None:
        """Every seat learns the chance outcomes at these history indices from now on (cards
        dealt face down are shown): their draws stay known after the cards leave the table."""
        hidden = self.hidden_moves
        low = None
        for index in indices:
            if index in hidden:
                del hidden[index]
                if low is None or index < low:
                    low = index
        if low is not None:
            cache = getattr(self, "__dict__", {}).get("_seen_history")
            for seen in (cache or {}).values():
                del seen[low:]            # rebuilt from there at the next public_history

    def hidden_label(self, action: Action) -> str:
        """What a seat that did not see the chance outcome `action` is told of it: ``KIND:?``,
        followed by the part everyone sees when a card is dealt face up but not whole (a
        quest's front, not its back). Depends on the action alone, so a determinizer can ask
        which outcomes fit a label."""
        return action.kind + ":?"

    def observation(self, seat: int) -> Observation:
        return Observation(self.rules.game.id, seat, self.phase_name(), self.to_act(),
                           self.private_view(seat), self.public_view(), self.public_history(seat))

    def information_state_string(self, seat: int) -> str:
        """Equal for states `seat` cannot tell apart."""
        return self.observation(seat).key()

    def summary(self) -> dict[str, Any]:
        """A plain (YAML/JSON-friendly) picture of the state for `replay`: the public view with
        the phase and the pending seat (numbered from 1), and every zone."""
        out: dict[str, Any] = {"phase": self.phase_name(), "to_act": self.to_act()}
        out.update(self.public_view())
        out["zones"] = {name: list(cards) for name, cards in self.zones().items()}
        return out

    def check_invariants(self) -> None:
        """Card conservation: every physical card in exactly one zone."""
        seen: Counter[str] = Counter()
        for cards in self.zones().values():
            seen.update(cards)
        # compared as plain dicts (in C): Counter's own == walks every element in Python, and
        # every count here is positive, so the two agree
        if dict(seen) != self.rules.card_counts:
            expected = Counter(self.rules.card_counts)
            missing = sorted((expected - seen).elements())
            extra = sorted((seen - expected).elements())
            raise InvariantError(f"card conservation broken: missing {missing[:6]}, duplicated or unknown {extra[:6]}")


def _copy(value: Any) -> Any:
    t = type(value)
    if t is list:
        return [_copy(v) for v in value] if value and type(value[0]) in (list, dict, set, Deck) else list(value)
    if t is dict:
        return {k: _copy(v) for k, v in value.items()}
    if t is set:
        return set(value)
    if t is Deck:
        return value.copy()
    return value


class ActionSpace:
    """Integer ids for every action of one game and configuration, computed from the rules
    alone (never from the order actions are met), so an id means the same action in every
    state and every process.

    `kinds` maps each action kind to the ordered domain of each of its arguments. Ids are
    numbered kind by kind in the order given and, within a kind, in mixed radix over the
    argument indices (first argument most significant), so ids sort like the declaration.
    A domain may hold None: the argument may be absent, and then so are all after it
    (``use:LL03`` and ``use:LL03:2`` share the kind ``use``). A kind with no arguments has
    one id. `id()` raises ValueError for an action the declaration does not cover.
    """

    __slots__ = ("kinds", "action_type", "size", "_base", "_index", "_radix", "_ids", "known", "cached_id")

    def __init__(self, kinds: Mapping[str, Sequence[Sequence[Any]]], action_type: type = Action) -> None:
        self.kinds: dict[str, tuple[tuple[Any, ...], ...]] = {
            kind: tuple(tuple(domain) for domain in domains) for kind, domains in kinds.items()}
        self.action_type = action_type
        self._base: dict[str, int] = {}
        self._index: dict[str, list[dict[Any, int]]] = {}
        self._radix: dict[str, list[int]] = {}
        size = 0
        for kind, domains in self.kinds.items():
            index = []
            for k, domain in enumerate(domains):
                positions = {value: i for i, value in enumerate(domain)}
                if len(positions) != len(domain):
                    raise ValueError(f"action kind {kind!r}: argument {k + 1} lists a value twice")
                index.append(positions)
            self._base[kind] = size
            self._index[kind] = index
            self._radix[kind] = [len(domain) for domain in domains]
            count = 1
            for domain in domains:
                count *= len(domain)
            size += count
        self.size = size
        self._ids: dict[Action, int] = {}        # filled as actions are met: only a cache
        self.known: dict[int, Action] = {}       # id -> action, of the ids met so far (a cache)
        self.cached_id = self._ids.get           # action -> id or None when not met yet (fast path)

    def __len__(self) -> int:
        return self.size

    def __contains__(self, action: Any) -> bool:
        try:
            self.id(action)
        except ValueError:
            return False
        return True

    def id(self, action: Action) -> int:
        """The id of `action`; ValueError when the declared kinds do not cover it."""
        got = self._ids.get(action)
        if got is not None:
            return got
        kind, args = action[0], action[1]
        index = self._index.get(kind)
        if index is None or len(args) > len(index):
            raise ValueError(f"{action} is not in the declared action space (action_kinds())")
        code = 0
        for k, positions in enumerate(index):
            value = args[k] if k < len(args) else None
            i = positions.get(value)
            if i is None:
                raise ValueError(f"{action} is not in the declared action space (argument {k + 1} "
                                 f"{value!r} is not among {kind!r}'s declared values)")
            code = code * len(positions) + i
        got = self._base[kind] + code
        self._ids[action] = got
        self.known.setdefault(got, action)
        return got

    def ids(self, actions: Sequence[Action]) -> list[int]:
        """The ids of `actions` (the fast path for a list: cached ids by dictionary lookup)."""
        get = self._ids.get
        out = [get(a) for a in actions]
        if None in out:
            out = [self.id(a) for a in actions]
        return out

    def __getstate__(self):
        return {name: getattr(self, name) for name in self.__slots__ if name != "cached_id"}

    def __setstate__(self, state) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.cached_id = self._ids.get

    def action(self, code: int) -> Action:
        """The action with id `code`; ValueError when no action has it."""
        got = self.known.get(code)
        if got is not None:
            return got
        if not isinstance(code, int) or not 0 <= code < self.size:
            raise ValueError(f"action id {code!r} is outside 0..{self.size - 1}")
        for kind, base in reversed(self._base.items()):
            if code >= base:
                break
        rest = code - base
        domains = self.kinds[kind]
        digits = []
        for radix in reversed(self._radix[kind]):
            rest, i = divmod(rest, radix)
            digits.append(i)
        args = [domain[i] for domain, i in zip(domains, reversed(digits))]
        if None in args:
            cut = args.index(None)
            if any(a is not None for a in args[cut:]):
                raise ValueError(f"action id {code} names no action (an argument after an absent one)")
            args = args[:cut]
        got = self.action_type(kind, tuple(args))
        self.known[code] = got
        self._ids[got] = code
        return got


OVER = "over"  # the phase of a finished game in states built on ChoiceState


class ChoiceState(State):
    """A state whose next decision is a list of options for one seat (`actor`), or a chance node
    (`phase` CHANCE_PHASE, with `chance_deck` the Deck drawn from, or a die of `die_faces`).

    Subclasses set `phase`, `actor` and `options` (and reset `_legal` to None) whenever a new
    decision starts; the sorted legal list is computed once per decision.
    """

    phase: str
    actor: int
    options: list
    _legal: list | None

    def current_player(self) -> int:
        phase = self.phase
        if phase == OVER:
            return TERMINAL
        if phase == CHANCE_PHASE:
            return CHANCE
        return self.actor

    def _legal_actions(self) -> list:
        legal = self._legal
        if legal is None:
            legal = self._legal = sorted(self.options) if self.phase != OVER else []
        return legal


CHANCE_PHASE = "chance"


class Rules:
    """A game's description: the model, the player count and the variant.

    Supported player counts come from game.yaml (`players`); the variants and the player counts
    each variant allows from the game's `variants` parameter when it declares one.
    """

    engine_id: ClassVar[str]
    variants: ClassVar[Sequence[str]] = ("standard",)
    max_actions: ClassVar[int] = 10_000   # termination bound used by the random-simulation test
    cooperative: ClassVar[bool] = False   # co-operative / solo: results carry `success`
    action_type: ClassVar[type] = Action

    # What cardgen reads off the class an engine's entry point names (cardgen.registry), besides
    # the rules: each optional, the defaults say "nothing of this kind".
    PARAMETERS: ClassVar[Any] = None        # a cardgen.io.schema.Map: game.yaml's `parameters:`, checked at load
    POLICIES: ClassVar[Mapping[str, Any]] = {}   # bot name -> factory(rules) (random and first are always there)
    player_counts: ClassVar[tuple[int, ...]] = ()  # the counts the rules can seat; () = what game.yaml declares
    setup_checks: ClassVar[Any] = None      # game -> [CheckResult]: setup arithmetic, run by `check`
    claim_checks: ClassVar[Any] = None      # game -> [CheckResult]: the game's claims, run by `check`
    simulation_checks: ClassVar[Any] = None  # game -> [CheckResult]: replaces the random-simulation sweep
    rounds_by_players: ClassVar[Any] = None  # game -> {players: rounds}, for the playtest score sheet

    @functools.cached_property
    def outcome_tables(self) -> dict:
        """Decks' outcome tables kept across states (see `_OutcomeTable.kept`); not pickled."""
        return {}

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("outcome_tables", None)
        return state

    @functools.cached_property
    def card_counts(self) -> dict[str, int]:
        """How many copies of each card id the game has: what card conservation holds to."""
        return dict(Counter(card.id for card in self.game.cards))

    @classmethod
    def game_variants(cls, game: Game | None) -> dict[str, tuple[int, ...]]:
        """variant -> player counts, from game.yaml's `variants` parameter when present."""
        declared = None
        if game is not None:
            try:
                declared = game.param("variants")
            except (KeyError, AttributeError, TypeError):
                declared = None
        if declared:
            return {str(v["id"]): tuple(v["players"]) for v in declared}
        counts = tuple(game.player_counts) if game is not None else ()
        return {v: counts for v in cls.variants}

    @classmethod
    def supports(cls, players: int, variant: str, game: Game | None = None) -> bool:
        """Whether `players` can play `variant` (from the game's data when it is given)."""
        if game is None:
            return variant in cls.variants
        table = cls.game_variants(game)
        return variant in table and players in table[variant]

    @classmethod
    def default_variant(cls, players: int, game: Game | None = None) -> str:
        """The variant played when none is named: the first that this player count can play."""
        if game is not None:
            for variant, counts in cls.game_variants(game).items():
                if players in counts:
                    return variant
        return cls.variants[0]

    def action_kinds(self) -> Mapping[str, tuple[Sequence[Any], ...]]:
        """Every action kind (chance kinds `draw`/`roll` included) with the ordered domain of
        each of its arguments (card ids, seats, numbers), from the rules and the card list
        alone: the same in every process. See `ActionSpace` for absent arguments (None)."""
        raise NotImplementedError(f"{self.game.id}: the engine declares no action_kinds()")

    @functools.cached_property
    def action_space(self) -> ActionSpace:
        """Ids of the players' moves: every declared action except chance outcomes (a chance
        kind with arguments, such as ``draw:C03``); a chance kind's bare form (a game's
        ``draw``, when a player chooses to draw) is a move."""
        kinds = {}
        for kind, domains in self.action_kinds().items():
            if kind in CHANCE_KINDS:
                if not domains or None not in domains[0]:
                    continue
                domains = ()
            kinds[kind] = domains
        return ActionSpace(kinds, self.action_type)

    @functools.cached_property
    def chance_space(self) -> ActionSpace:
        """Ids of the chance outcomes (`draw`/`roll` with their arguments), numbered from 0."""
        kinds = {}
        for kind, domains in self.action_kinds().items():
            if kind in CHANCE_KINDS and domains:
                first = tuple(v for v in domains[0] if v is not None)
                kinds[kind] = (first, *domains[1:])
        return ActionSpace(kinds, self.action_type)

    @classmethod
    def decode_action(cls, text: Any) -> Action:
        """An action from its code (``bid:3``) or a record's list form; ValueError if malformed."""
        return cls.action_type.decode(text)

    def __init__(self, game: Game, players: int, variant: str = "standard") -> None:
        if players not in game.player_counts:
            raise ValueError(f"{game.id} is for {game.min_players}-{game.max_players} players, not {players}")
        if self.player_counts and players not in self.player_counts:
            raise ValueError(f"{game.id}: its rules engine seats {', '.join(map(str, self.player_counts))} players, not {players}")
        if variant not in self.variants:
            raise ValueError(f"{game.id} has no variant {variant!r}; choose from {', '.join(self.variants)}")
        table = self.game_variants(game)
        if variant in table and players not in table[variant]:
            raise ValueError(f"{game.id}: variant {variant!r} is for {', '.join(map(str, table[variant]))} player(s), not {players}")
        self.game = game
        self.players = players
        self.variant = variant

    def new_initial_state(self, deck_order: Sequence[str] | None = None) -> State:
        """Set up a game; its first moves are usually chance nodes (the shuffles and the deal).
        `deck_order` (card ids, top first) stacks the decks: their draws are then forced."""
        raise NotImplementedError

    def new_state(self, rng: random.Random | None = None, deck_order: Sequence[str] | None = None) -> State:
        """`new_initial_state`; `rng` is accepted for older callers and ignored (chance is
        resolved by the driver: see `play` and `resolve_chance`)."""
        return self.new_initial_state(deck_order)

    def max_game_length(self) -> int:
        """A bound on the moves of any one game that are not automatic (the players' choices and
        the chance outcomes: OpenSpiel's actions), derived from the rules. Engines override
        this with a true bound; the default is the random-simulation test's `max_actions`."""
        return self.max_actions

    def score_range(self) -> tuple[int, int]:
        """Inclusive bounds any seat's score can take, checked by the random-simulation test."""
        raise NotImplementedError

    def from_position(self, data: Mapping[str, Any]) -> State:
        """A state built from a position (see cardgen.engine.position)."""
        raise NotImplementedError(f"{self.game.id}: positions are not supported by this engine")


# --- driving a game --------------------------------------------------------------------------

def sample_chance(state: State, rng: random.Random) -> Action:
    """One outcome of the chance node `state`, drawn from `rng` by its probability."""
    n = state.chance_size()
    if n:
        return state.chance_at(int(rng.random() * n)) if n > 1 else state.chance_at(0)
    outcomes = state.chance_outcomes()
    x = rng.random()
    acc = 0.0
    for action, p in outcomes:
        acc += p
        if x < acc:
            return action
    return outcomes[-1][0]


def resolve_chance(state: State, rng: random.Random) -> State:
    """Apply chance outcomes drawn from `rng` until a player is to act or the game is over."""
    while state.current_player() == CHANCE:
        state.apply_unchecked(sample_chance(state, rng))
    return state


def choose(policy: Any, state: State, seat: int, rng: random.Random) -> Action:
    """Ask `policy` for a move: it is given only the seat's observation and the legal actions
    (a policy whose `needs_observation` is False is given None instead of the observation)."""
    legal = state.legal_actions()
    obs = state.observation(seat) if getattr(policy, "needs_observation", True) else None
    return policy.choose(obs, legal, rng)


def play(state: State, policies: Sequence[Any], rng: random.Random, policy_rng: random.Random | None = None,
         limit: int = 100_000) -> State:
    """Play `state` to the end: chance from `rng`, each seat's moves from its policy (which draws
    its own randomness from `policy_rng`, never from the chance source)."""
    policy_rng = policy_rng if policy_rng is not None else rng
    history = state.history
    apply = state._apply
    current = state.current_player
    chance_size = state.chance_size
    chance_at = state.chance_at
    legal_actions = state._legal_actions
    observe = [getattr(p, "needs_observation", True) for p in policies]
    rand = rng.random
    while True:
        seat = current()
        if seat == CHANCE:
            n = chance_size()
            if n:
                action = chance_at(int(rand() * n)) if n > 1 else chance_at(0)
            else:
                action = sample_chance(state, rng)
        elif seat == TERMINAL:
            return state
        else:
            policy = policies[seat]
            obs = state.observation(seat) if observe[seat] else None
            action = policy.choose(obs, legal_actions(), policy_rng)
        history.append(action)
        apply(action)
        if len(history) > limit:
            raise RuntimeError(f"{state.rules.game.id}: passed {limit} moves without ending")


def apply_moves(state: State, moves: Iterable[Any], chance_rng: random.Random | None = None) -> int:
    """Apply a list of moves (Actions or codes) as a record lists them and return how many.

    Automatic moves the engine makes itself (and appends to the history) are checked when the
    list gives them and may be left out. A chance node whose outcome the list does not give
    is resolved when it has one possible outcome (a stacked deck) or, when `chance_rng` is
    given, by drawing from it; so a record may fix every chance outcome or none. An
    IllegalAction carries `.position`, the 1-based position of the move that does not fit."""
    cursor = len(state.history)
    done = 0
    for position, move in enumerate(moves, start=1):
        text = str(move)
        if cursor < len(state.history) and str(state.history[cursor]) == text:
            cursor += 1
            done = position
            continue
        _fill_chance(state, move, chance_rng)
        before = len(state.history)
        try:
            state.apply(move)
        except IllegalAction as error:
            error.position = position  # type: ignore[attr-defined]
            raise
        cursor = before + 1
        done = position
    if chance_rng is not None:
        _fill_chance(state, None, chance_rng)
    return done


def _fill_chance(state: State, move: Any, chance_rng: random.Random | None) -> None:
    """Resolve chance nodes the next move does not decide (see apply_moves)."""
    while state.current_player() == CHANCE:
        if move is not None:
            try:
                if state.decode(move) in state.legal_actions():
                    return
            except (ValueError, TypeError):
                pass
        if state.chance_size() == 1:
            state.apply_unchecked(state.chance_at(0))
        elif chance_rng is not None:
            state.apply_unchecked(sample_chance(state, chance_rng))
        else:
            return


def check_deck_order(game: Game, deck_order: Sequence[str], ids: Sequence[str] | None = None) -> list[str]:
    """Validate a stacked deck (card ids, top first): each card of `ids` (default: every card) once."""
    expected = Counter(ids if ids is not None else (card.id for card in game.cards))
    got = Counter(deck_order)
    if got != expected:
        missing = sorted((expected - got).elements())
        extra = sorted((got - expected).elements())
        raise ValueError(f"deck_order must list each card once: missing {missing[:6]}, duplicated or unknown {extra[:6]}")
    return list(deck_order)
