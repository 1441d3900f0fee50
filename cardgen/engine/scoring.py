"""Scoring tables (points per card, read from the game's data) and who wins on them."""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from ..model import Game


class ScoringTable:
    """Points for each card id: `score(cards)` adds them up.

    Read them from a card field (`ScoringTable.from_field(game, "points")`) so that a designer
    who changes a card's value in cards.yaml changes the scoring without touching code."""

    __slots__ = ("points",)

    def __init__(self, points: Mapping[str, int]) -> None:
        self.points = dict(points)

    @classmethod
    def from_field(cls, game: Game, field: str) -> "ScoringTable":
        """Each card's points from its field `field` (an int in cards.yaml)."""
        points = {}
        for card in game.cards:
            value = card.get(field)
            if not isinstance(value, int) or isinstance(value, bool):
                where = f"{card.location}: " if getattr(card, "location", None) else ""
                raise ValueError(f"{where}card {card.id} needs an integer {field!r} to be scored; "
                                 f"add `{field}: <points>` to its card type or card")
            points[card.id] = value
        return cls(points)

    def __getitem__(self, card: str) -> int:
        return self.points[card]

    def score(self, cards: Iterable[str]) -> int:
        points = self.points
        return sum(points[c] for c in cards)

    def worst(self, n: int) -> int:
        """The most points `n` cards can be worth (for `Rules.score_range`)."""
        return sum(sorted(self.points.values(), reverse=True)[:n])

    def best(self, n: int) -> int:
        """The fewest points `n` cards can be worth."""
        return sum(sorted(self.points.values())[:n])


def winners(scores: Sequence[int], lowest_wins: bool = False) -> tuple[int, ...]:
    """The seats with the best score (several on a tie)."""
    if not scores:
        return ()
    best = min(scores) if lowest_wins else max(scores)
    return tuple(seat for seat, score in enumerate(scores) if score == best)
