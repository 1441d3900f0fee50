"""'Choose N of these' decisions as single actions, so a player's pick is one legal move."""

from __future__ import annotations

from itertools import combinations
from typing import Iterable

from .core import Action


def choose_n(kind: str, options: Iterable, n: int, action_type: type = Action) -> list[Action]:
    """Every way to choose `n` of `options` (a multiset: equal options give one choice), each as
    one action ``kind:a:b:...`` with its arguments sorted, so the list is sorted and unique."""
    items = sorted(options)
    if not 0 <= n <= len(items):
        return []
    return sorted({action_type(kind, combo) for combo in combinations(items, n)})
