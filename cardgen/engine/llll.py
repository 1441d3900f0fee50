"""Love Letter to Lady Luck: setup arithmetic (the rules engine is added in the engine issue)."""

from __future__ import annotations

from ..checks import CheckResult
from ..model import Game


def setup_checks(game: Game) -> list[CheckResult]:
    """Each player takes one card per round for `rounds` rounds; the rest are set aside unseen."""
    rounds = game.param("rounds")
    set_aside = game.param("set_aside_unseen")
    out = []
    for players in game.player_counts:
        aside = set_aside.get(players, 0)
        used = rounds * players
        out.append(CheckResult(
            f"setup-{players}p", used + aside == game.total,
            f"{players} players: {rounds} rounds × {players} = {used} cards + {aside} set aside = {used + aside} of {game.total}",
        ))
    return out
