"""Errors a user can act on: each names the file, line and column and says what to do."""

from __future__ import annotations

from dataclasses import dataclass

from .model import Location


@dataclass(frozen=True)
class Problem:
    location: Location | None
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}" if self.location else self.message


class CardgenError(Exception):
    """An error caused by the user's input or options; the CLI prints it without a traceback."""

    def __init__(self, problems: list[Problem] | str):
        if isinstance(problems, str):
            problems = [Problem(None, problems)]
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))

    def __reduce__(self):
        # Pickled by its problems (with their file:line), not its message, so an error raised in a
        # worker process of a parallel build reaches the CLI as the same problems.
        return self.__class__, (self.problems,)


class DataError(CardgenError):
    """The game data is invalid."""
