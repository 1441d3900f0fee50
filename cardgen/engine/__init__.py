"""Reference engines: one module per game, found through `engine:` in game.yaml."""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import DataError
from ..model import Game


def engine_module(game: Game) -> ModuleType | None:
    """The game's engine module, or None when the game declares none."""
    if not game.engine:
        return None
    try:
        return importlib.import_module(f"cardgen.engine.{game.engine}")
    except ModuleNotFoundError as exc:
        if exc.name != f"cardgen.engine.{game.engine}":
            raise
        raise DataError(f"{game.root / 'game.yaml'}: engine '{game.engine}' does not exist; remove the engine key or name a module in cardgen/engine/") from None
