"""Rules engines: each an installed `Rules` class, found through `engine:` in game.yaml and the
entry-point group `cardgen.engines`. The lookup lives below the loader (`cardgen.registry`),
which checks a game's `engine:` and its rule parameters; the public API a plugin imports is
`cardgen.engine.api`."""

from __future__ import annotations

from ..registry import engine_by_name, game_engine, installed_engines

__all__ = ["engine_by_name", "game_engine", "installed_engines"]
