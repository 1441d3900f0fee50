"""The engine core: a game's rules as states, legal actions and seeded chance.

Every game module (cardgen/engine/<game>.py) defines a `Rules` subclass and a `State`
subclass. The pattern follows OpenSpiel: a description separate from a mutable state,
`legal_actions()` and `apply(action)`, the state decides whose turn it is, and all chance
goes through one injected `random.Random` so that a seed plus the list of choices replays a
game exactly.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, ClassVar, Hashable, Iterable, Mapping, Sequence

from ..model import Game

Action = Hashable  # small, sortable, YAML-friendly: an int, a str, or a tuple of those

TERMINAL = -1


@dataclass(frozen=True)
class GameResult:
    """How a finished game ended. Scores are per seat; winners are seat numbers (0-based)."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]           # empty for a co-operative/solo loss
    length: int                        # number of actions applied
    success: bool | None = None        # co-operative / solo games: did the players win
    ending: str | None = None          # named ending (requiem) or reason ("deck-empty", ...)
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def draw(self) -> bool:
        """A shared win of a competitive game (co-operative games report `success` instead)."""
        return self.success is None and len(self.winners) > 1

    def as_dict(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "winners": list(self.winners), "length": self.length,
                "draw": self.draw, "success": self.success, "ending": self.ending,
                "details": dict(self.details)}


class InvariantError(AssertionError):
    """A state broke one of the engine's invariants (a bug in the rules, never user error)."""


class IllegalAction(ValueError):
    """An action that is not legal in the current state; the message says why."""


class State:
    """A game in progress. Subclasses keep every physical card in exactly one zone."""

    rules: "Rules"
    rng: random.Random
    history: list[Action]

    def current_player(self) -> int:
        """Seat to act, or TERMINAL."""
        raise NotImplementedError

    def legal_actions(self) -> list[Action]:
        """Sorted list of legal actions for the current player; empty when terminal."""
        raise NotImplementedError

    def _apply(self, action: Action) -> None:
        raise NotImplementedError

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def result(self) -> GameResult:
        raise NotImplementedError

    def zones(self) -> Mapping[str, Iterable[str]]:
        """Every zone and the card ids in it; together they hold each physical card once."""
        raise NotImplementedError

    def describe(self, action: Action) -> str:
        """A short human description of an action for logs and replay errors."""
        return str(action)

    def apply(self, action: Action) -> None:
        """Apply a legal action, or raise IllegalAction naming the legal ones."""
        if self.is_terminal():
            raise IllegalAction(f"{self.describe(action)} comes after the end of the game")
        legal = self.legal_actions()
        if action not in legal:
            shown = ", ".join(self.describe(a) for a in legal[:12])
            more = "" if len(legal) <= 12 else f" (+{len(legal) - 12} more)"
            raise IllegalAction(f"{self.describe(action)} is not legal for seat {self.current_player()}; legal: {shown}{more}")
        self._apply(action)
        self.history.append(action)

    def summary(self) -> dict[str, Any]:
        """A plain (YAML/JSON-friendly) picture of the state for `replay`; games override it."""
        return {"zones": {name: list(cards) for name, cards in self.zones().items()}}

    def check_invariants(self) -> None:
        """Card conservation: every physical card in exactly one zone."""
        seen: Counter[str] = Counter()
        for cards in self.zones().values():
            seen.update(cards)
        expected = Counter(card.id for card in self.rules.game.cards)
        if seen != expected:
            missing = sorted((expected - seen).elements())
            extra = sorted((seen - expected).elements())
            raise InvariantError(f"card conservation broken: missing {missing[:6]}, duplicated or unknown {extra[:6]}")


OVER = "over"  # the phase of a finished game in states built on ChoiceState


class ChoiceState(State):
    """A state whose next decision is a list of string options for one seat (`actor`).

    Subclasses set `phase`, `actor` and `options` (and reset `_legal` to None) whenever a new
    decision starts; the sorted legal list is computed once per decision.
    """

    phase: str
    actor: int
    options: list[str]
    _legal: list[str] | None

    def current_player(self) -> int:
        return TERMINAL if self.phase == OVER else self.actor

    def legal_actions(self) -> list[str]:
        legal = self._legal
        if legal is None:
            legal = self._legal = sorted(self.options) if self.phase != OVER else []
        return legal


class Rules:
    """A game's description: the model, the player count and the variant."""

    engine_id: ClassVar[str]
    variants: ClassVar[Sequence[str]] = ("standard",)
    max_actions: ClassVar[int] = 10_000   # termination bound used by the random-simulation test
    cooperative: ClassVar[bool] = False   # co-operative / solo: results carry `success`

    @classmethod
    def supports(cls, players: int, variant: str) -> bool:
        """Whether `players` can play `variant` (a game with solo-only variants narrows this)."""
        return variant in cls.variants

    @classmethod
    def default_variant(cls, players: int) -> str:
        """The variant played when none is named."""
        return cls.variants[0]

    def __init__(self, game: Game, players: int, variant: str = "standard") -> None:
        if players not in game.player_counts:
            raise ValueError(f"{game.id} is for {game.min_players}-{game.max_players} players, not {players}")
        if variant not in self.variants:
            raise ValueError(f"{game.id} has no variant {variant!r}; choose from {', '.join(self.variants)}")
        self.game = game
        self.players = players
        self.variant = variant

    def new_state(self, rng: random.Random, deck_order: Sequence[str] | None = None) -> State:
        """Set up a game; `deck_order` (card ids, top first) replaces the shuffle when given."""
        raise NotImplementedError

    def score_range(self) -> tuple[int, int]:
        """Inclusive bounds any seat's score can take, checked by the random-simulation test."""
        raise NotImplementedError

    def new_game(self, seed: int | None = None, deck_order: Sequence[str] | None = None) -> State:
        """Set up a game from a seed (the one random source of its chance events)."""
        return self.new_state(random.Random(seed), deck_order)


def check_deck_order(game: Game, deck_order: Sequence[str], ids: Sequence[str] | None = None) -> list[str]:
    """Validate a stacked deck (card ids, top first): each card of `ids` (default: every card) once."""
    expected = Counter(ids if ids is not None else (card.id for card in game.cards))
    got = Counter(deck_order)
    if got != expected:
        missing = sorted((expected - got).elements())
        extra = sorted((got - expected).elements())
        raise ValueError(f"deck_order must list each card once: missing {missing[:6]}, duplicated or unknown {extra[:6]}")
    return list(deck_order)


def shuffled(rng: random.Random, ids: Sequence[str]) -> list[str]:
    out = list(ids)
    rng.shuffle(out)
    return out
