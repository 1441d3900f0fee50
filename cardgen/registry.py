"""Rules engines come from installed distributions: entry points in the group `cardgen.engines`.

A distribution declares ``mygame = mygame_rules:Rules`` under
``[project.entry-points."cardgen.engines"]``; `game.yaml`'s ``engine: mygame`` then names it. The
entry point names the engine's `Rules` class (a subclass of ``cardgen.engine.api.Rules``); what
cardgen reads besides the rules themselves hangs off that class: ``PARAMETERS`` (the schema of
game.yaml's parameters), ``POLICIES`` (bots), ``player_counts``, ``setup_checks``,
``claim_checks``, ``simulation_checks``, ``rounds_by_players`` and ``from_position``. The four
bundled engines are registered the same way, in cardgen's own pyproject.toml.

A game folder never carries code: installing a distribution is the act of trust. Finding the
installed engines reads only metadata, so an engine that fails to import affects only the
commands that need it, and then as one line naming its distribution (CARDGEN_DEBUG=1 prints
the traceback). This module sits at the bottom layer (the loader reads an engine's
PARAMETERS), so it imports nothing of cardgen's but its errors.
"""

from __future__ import annotations

import contextlib
import functools
import os
import socket
import sys
import traceback
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Iterator

from .errors import CardgenError

GROUP = "cardgen.engines"
SCAFFOLD_HINT = "write one with `cardgen new NAME --engine` and `pip install -e NAME-rules`"


@dataclass(frozen=True)
class InstalledEngine:
    """One entry point of the group: the engine's name and where it comes from (metadata only)."""

    name: str
    target: str                 # "module:attribute", as the entry point declares it
    distribution: str
    version: str

    @property
    def module(self) -> str:
        return self.target.partition(":")[0].strip()

    @property
    def origin(self) -> str:
        """'mygame-rules 0.1.0', as error messages name the distribution."""
        return f"{self.distribution} {self.version}".strip()


class EngineError(CardgenError):
    """An engine that is not installed, is declared twice, or fails to import."""


@functools.cache
def installed_engines() -> dict[str, InstalledEngine]:
    """Every engine the installed distributions declare, by name (sorted).

    A name two distributions declare is kept once with both named in its `distribution`, and
    refused when loaded."""
    found: dict[str, InstalledEngine] = {}
    for point in metadata.entry_points(group=GROUP):
        dist = point.dist
        entry = InstalledEngine(point.name, point.value, dist.name if dist else "?", dist.version if dist else "")
        if point.name in found and found[point.name].distribution != entry.distribution:
            entry = InstalledEngine(point.name, point.value, f"{found[point.name].distribution} and {entry.distribution}", "")
        found[point.name] = entry
    return dict(sorted(found.items()))


def unknown_engine_message(name: str) -> str:
    """What to say about an `engine:` that no installed distribution declares."""
    names = ", ".join(installed_engines()) or "none"
    return f"no installed rules engine is called '{name}' (installed: {names}); {SCAFFOLD_HINT}, or remove the engine key"


@functools.cache
def engine_by_name(name: str) -> Any:
    """The `Rules` class of the installed engine `name`, imported through its entry point.

    EngineError (one line, naming the distribution) when no distribution declares it, two do, or
    its code fails to import; with CARDGEN_DEBUG set the import's traceback goes to stderr too."""
    entry = installed_engines().get(name)
    if entry is None:
        raise EngineError(unknown_engine_message(name))
    if " and " in entry.distribution:
        raise EngineError(f"the rules engine '{name}' is declared by {entry.distribution}; uninstall one of them")
    point = next(p for p in metadata.entry_points(group=GROUP, name=name))
    try:
        rules = point.load()
    except Exception as exc:  # noqa: BLE001 - any failure of a plugin's code is the plugin's, reported as one line
        if os.environ.get("CARDGEN_DEBUG"):
            traceback.print_exc(file=sys.stderr)
        raise EngineError(f"the rules engine '{name}' (distribution {entry.origin}, {entry.target}) failed to import: "
                          f"{type(exc).__name__}: {exc}; fix or reinstall {entry.distribution} "
                          f"(CARDGEN_DEBUG=1 shows the traceback)") from None
    if not (isinstance(rules, type) and callable(getattr(rules, "new_initial_state", None)) and hasattr(rules, "variants")):
        raise EngineError(f"the rules engine '{name}' (distribution {entry.origin}) names {entry.target}, which is not a "
                          "Rules class; the entry point must name a subclass of cardgen.engine.api.Rules")
    return rules


def game_engine(game: Any) -> Any:
    """The `Rules` class of the game's `engine:`, or None when the game declares none."""
    return engine_by_name(game.engine) if game.engine else None


def describe_engines() -> list[dict[str, Any]]:
    """What `cardgen engines` lists: each installed engine's name, distribution, version, module,
    the player counts and variants its Rules class declares, or the one-line error of an engine
    that fails to load (the listing itself never fails on a broken plugin)."""
    rows = []
    for entry in installed_engines().values():
        row: dict[str, Any] = {"name": entry.name, "distribution": entry.distribution, "version": entry.version,
                               "module": entry.module, "players": None, "variants": None, "error": None}
        try:
            rules = engine_by_name(entry.name)
        except EngineError as exc:
            row["error"] = str(exc)
        else:
            row["players"] = list(getattr(rules, "player_counts", ()) or ()) or None  # None: what game.yaml declares
            row["variants"] = list(rules.variants)
        rows.append(row)
    return rows


def format_counts(counts: list[int] | None) -> str:
    """'1-5', '2, 4' or 'per game.yaml' (an engine that seats what its game folder declares)."""
    if not counts:
        return "per game.yaml"
    if counts == list(range(counts[0], counts[-1] + 1)) and len(counts) > 1:
        return f"{counts[0]}-{counts[-1]}"
    return ", ".join(map(str, counts))


@contextlib.contextmanager
def engine_on_worker(game: Any) -> Iterator[None]:
    """Around the work a cluster's worker does for `game`: a worker that lacks the game's engine
    (or cannot import it) fails with one line naming the engine and the machine, not the hint for
    a designer that `engine_by_name` gives. The client has loaded the engine before it sends
    anything, so this fires only where the worker's Python differs from the client's."""
    try:
        yield
    except EngineError as exc:
        where = f"{socket.gethostname()} ({sys.executable})"
        if game.engine and game.engine not in installed_engines():
            raise EngineError(f"the worker on {where} has no rules engine '{game.engine}' for {game.id}; install the "
                              f"distribution that provides it on every worker, as on the machine that sent the work") from None
        raise EngineError(f"the worker on {where}: {exc}") from None
