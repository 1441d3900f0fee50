"""Can You Hear the Requiem?: setup arithmetic (the rules engine is added in the engine issue)."""

from __future__ import annotations

from ..checks import CheckResult
from ..model import Game


def _ranks(game: Game, low: int, high: int, side: str = "ally") -> list[str]:
    return [c.id for c in game.cards if c.get("side") == side and low <= c.get("rank") <= high]


def setup_checks(game: Game) -> list[CheckResult]:
    """The opening deal needs the ranks-8–10 allies; what is left plus K and 7s is the city deck."""
    line = game.param("initial_line")
    low, high = line["dealt_from_ranks"]
    pool = _ranks(game, low, high)
    dealt = line["dealt_each"] * game.max_players
    princes = [c for c in game.cards if c.get("rank") == game.param("prince_rank")]
    city_low, city_high = game.param("city_deck_ranks")
    city_extra = [c.id for c in game.cards if c.get("side") == "ally" and c.get("rank") in (city_low, city_high) and not low <= c.get("rank") <= high]
    city = len(pool) - dealt + len(city_extra)
    enemies = [c for c in game.cards if c.get("side") == "enemy"]
    return [
        CheckResult("setup-princes", len(princes) == game.max_players,
                    f"{len(princes)} princes for {game.max_players} players"),
        CheckResult("setup-initial-deal", len(pool) == game.param("initial_pool_cards") and dealt <= len(pool),
                    f"ranks {low}–{high}: {len(pool)} cards, {dealt} dealt ({line['dealt_each']} each)"),
        CheckResult("setup-city-deck", city == game.param("city_deck_cards"),
                    f"city deck: {len(pool) - dealt} left of ranks {low}–{high} + {len(city_extra)} (K and 7s) = {city} cards"),
        CheckResult("setup-enemy-decks", len(enemies) % game.param("enemy_decks") == 0,
                    f"{len(enemies)} enemies in {game.param('enemy_decks')} decks of {len(enemies) // game.param('enemy_decks')}"),
    ]
