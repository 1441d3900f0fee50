"""Moves for engine tests written as scenarios: legal actions as codes, and apply-then-draw."""

from __future__ import annotations

import random
from typing import Callable

from cardgen.engine.core import resolve_chance


def codes(state) -> list[str]:
    """The legal actions as their string codes."""
    return [str(a) for a in state.legal_actions()]


def mover(chance: random.Random) -> Callable:
    """`go(state, *codes)`: apply each move, then draw any pending chance from `chance` (a stacked
    deck or a known top is forced), and return the state."""

    def go(state, *actions):
        for action in actions:
            state.apply(action)
            resolve_chance(state, chance)
        return state

    return go
