"""Turn order and seat rotation, and phases within rounds: the bookkeeping every game repeats."""

from __future__ import annotations

from typing import Sequence


class TurnOrder:
    """Whose turn it is among `players` seats, going round clockwise (+1) or reversed (-1).

    Plain ints only, so `State.clone()` copies it with the rest of the state's attributes."""

    __slots__ = ("players", "seat", "direction")

    def __init__(self, players: int, first: int = 0, direction: int = 1) -> None:
        if players < 1 or not 0 <= first < players or direction not in (1, -1):
            raise ValueError(f"no turn order for {players} players starting at seat {first}, direction {direction}")
        self.players = players
        self.seat = first
        self.direction = direction

    def copy(self) -> "TurnOrder":
        return TurnOrder(self.players, self.seat, self.direction)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TurnOrder) and (self.players, self.seat, self.direction) == (
            other.players, other.seat, other.direction)

    def peek(self, steps: int = 1) -> int:
        """The seat `steps` turns from now, without moving."""
        return (self.seat + steps * self.direction) % self.players

    def advance(self, steps: int = 1) -> int:
        """Pass the turn on `steps` seats (2 skips one player) and return the new seat."""
        self.seat = self.peek(steps)
        return self.seat

    def reverse(self) -> None:
        self.direction = -self.direction

    def from_seat(self, seat: int | None = None) -> list[int]:
        """Every seat once in turn order, starting with `seat` (default: the current one)."""
        start = self.seat if seat is None else seat
        return [(start + k * self.direction) % self.players for k in range(self.players)]


def rotate(seats: Sequence[int], first: int) -> list[int]:
    """`seats` starting at `first` (the next dealer, the next round's leader)."""
    k = list(seats).index(first)
    return list(seats[k:]) + list(seats[:k])


class PhaseCycle:
    """Named phases played in order, round after round, for `rounds` rounds (None: no limit).

    `phase` is the current phase; `advance()` moves to the next, starting a new round after the
    last phase; `over` is True once the last round's last phase has ended."""

    __slots__ = ("phases", "rounds", "index", "round")

    def __init__(self, phases: Sequence[str], rounds: int | None = None) -> None:
        if not phases:
            raise ValueError("a phase cycle needs at least one phase")
        if rounds is not None and rounds < 1:
            raise ValueError(f"a game of {rounds} rounds never starts")
        self.phases = tuple(phases)
        self.rounds = rounds
        self.index = 0
        self.round = 1          # numbered from 1, as players count them

    def copy(self) -> "PhaseCycle":
        new = PhaseCycle(self.phases, self.rounds)
        new.index, new.round = self.index, self.round
        return new

    @property
    def phase(self) -> str:
        return self.phases[self.index]

    @property
    def over(self) -> bool:
        return self.rounds is not None and self.round > self.rounds

    def advance(self) -> str | None:
        """Move to the next phase and return it (None when the last round is over)."""
        if self.over:
            raise ValueError("the last round is already over")
        self.index += 1
        if self.index == len(self.phases):
            self.index = 0
            self.round += 1
        return None if self.over else self.phase
