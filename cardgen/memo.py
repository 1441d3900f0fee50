"""A bounded memo for work a build repeats (the same card face laid out for the home sheets, the
print-shop PDF, PNG and TTS; the same table cell broken on every scratch page).

Unlike `functools.lru_cache` its keys are chosen by the caller, so an argument that is costly or
impossible to hash (a Game) is keyed by identity, and the entry keeps that object so that a hit
is that very object (an id alone can be reused once its object is gone).  `cache_clear` forgets
everything, as an lru_cache's does (the benchmarks clear every cache between measured builds).
"""

from __future__ import annotations

from typing import Any, Callable, Hashable

_MISSING = object()


class Memo:
    def __init__(self, limit: int = 4096) -> None:
        self.limit = limit  # when full it is emptied: old entries of a finished build go at once
        self._entries: dict[Hashable, tuple[tuple, Any]] = {}

    def __call__(self, key: tuple, make: Callable[[], Any], owners: tuple = ()) -> Any:
        """`make()`, or what it returned before for `key` and the same `owners` (compared by identity)."""
        full = tuple(map(id, owners)) + key
        hit = self._entries.get(full, _MISSING)
        if hit is not _MISSING:
            # The entry holds its owners alive, so no other object can have their ids meanwhile:
            # equal ids are the very same objects.
            return hit[1]
        value = make()
        if len(self._entries) >= self.limit:
            self._entries.clear()
        self._entries[full] = (owners, value)
        return value

    def cache_clear(self) -> None:
        self._entries.clear()
