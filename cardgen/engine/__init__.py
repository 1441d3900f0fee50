"""Reference engines: one module per game, found through `engine:` in game.yaml."""

from __future__ import annotations

import importlib
from types import ModuleType

from ..model import Game

# The engine modules a game.yaml may name; nothing else under cardgen.engine is importable by name.
ENGINES = ("llll", "requiem", "alice", "ohanatsumi")


def engine_by_name(name: str) -> ModuleType:
    """The engine module called `name` (one of ENGINES; the loader refuses any other name)."""
    if name not in ENGINES:
        raise ValueError(f"no engine {name!r}")
    return importlib.import_module(f"cardgen.engine.{name}")


def engine_module(game: Game) -> ModuleType | None:
    """The game's engine module, or None when the game declares none."""
    return engine_by_name(game.engine) if game.engine else None
