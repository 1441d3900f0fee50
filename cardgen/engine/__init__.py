"""Rules engines: each an installed `Rules` class, found through `engine:` in game.yaml and the
entry-point group `cardgen.engines` (see cardgen.plugins; the public API is cardgen.engine.api)."""

from __future__ import annotations

from ..plugins import engine_by_name, game_engine, installed_engines

__all__ = ["engine_by_name", "game_engine", "installed_engines"]
