"""Rules engines by name: what `engine:` in game.yaml may name, and the module each name is.

The loader asks it to check a game's engine and rule parameters, and the documents ask it what
an engine knows (a playtest sheet's rounds per player count), so it sits below both and names
the engines only as text: a module is imported when a game asks for it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .model import Game

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
