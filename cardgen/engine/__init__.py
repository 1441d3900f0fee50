"""Reference engines: one module per game, found through `engine:` in game.yaml.

The lookup by name lives below the loader (`cardgen.registry`), which checks a game's
`engine:` and its rule parameters; these names stay importable from here."""

from ..registry import ENGINES, engine_by_name, engine_module

__all__ = ["ENGINES", "engine_by_name", "engine_module"]
