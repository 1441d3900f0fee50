"""Composition and rule-consistency checks behind `cardgen check`.

Generic checks run for every game; a game's engine module may add its own through
`setup_checks(game)` (setup arithmetic) and `claim_checks(game)` (the source's claims).
Results are dataclasses; validity is a flag per check, in the style of python-chess's status.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .engine import engine_module
from .model import Game, Location


@dataclass(frozen=True)
class CheckResult:
    id: str
    ok: bool
    message: str
    location: Location | None = None

    def as_dict(self) -> dict:
        return {"id": self.id, "ok": self.ok, "message": self.message,
                "location": str(self.location) if self.location else None}


@dataclass(frozen=True)
class GameReport:
    game_id: str
    results: tuple[CheckResult, ...] = field(default_factory=tuple)
    summary: str = ""

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    def as_dict(self) -> dict:
        return {"game": self.game_id, "ok": self.ok, "cards": self.summary, "checks": [r.as_dict() for r in self.results]}


def check_game(game: Game, *, simulate: bool = True) -> GameReport:
    """Run every check that applies to the game."""
    results = [*composition_checks(game), *printed_claim_checks(game)]
    module = engine_module(game)
    if module is not None:
        for hook in ("setup_checks", "claim_checks"):
            if hasattr(module, hook):
                results.extend(getattr(module, hook)(game))
        if simulate and hasattr(module, "simulation_checks"):
            results.extend(module.simulation_checks(game))
        elif simulate and hasattr(module, "Rules"):
            from .engine.harness import random_sim_sweep  # every engine gets the random-simulation sweep

            results.extend(random_sim_sweep(game))
    return GameReport(game.id, tuple(results), composition_summary(game))


_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def composition_checks(game: Game) -> list[CheckResult]:
    """What loading cannot already guarantee.

    The loader rejects, with file:line errors, a declared total or count that differs from the
    cards, duplicate ids and a missing language, so a loaded game holds those; what is left to
    check is that numbered ids run without gaps.
    """
    return [_contiguous([c.id for c in game.cards])]


def composition_summary(game: Game) -> str:
    """'32 cards: princess ×2, noble ×2, ...' for the report header."""
    return f"{game.total} cards: " + ", ".join(f"{t.id} ×{t.count}" for t in game.card_types)


def _contiguous(ids: list[str]) -> CheckResult:
    """Numbered ids (LL01..LL32) must run 1..N without gaps, in card order."""
    matches = [_NUMBERED.match(i) for i in ids]
    if not all(matches) or len({m.group(1) for m in matches}) != 1:
        return CheckResult("contiguous-ids", True, "ids are not a single numbered series (nothing to check)")
    numbers = [int(m.group(2)) for m in matches]
    ok = numbers == list(range(1, len(ids) + 1))
    return CheckResult("contiguous-ids", ok, f"{ids[0]}–{ids[-1]} contiguous" if ok else f"ids do not run 1..{len(ids)} in order: {numbers}")


def printed_claim_checks(game: Game) -> list[CheckResult]:
    """Claims about what the printed cards show, checked against the layout (not the rules).

    `copy_icons`: each card's front shows as many `icon` figures as its type has copies
    (llll's copy-count figures).
    """
    out = []
    for claim in game.claims:
        if claim.get("kind") != "copy_icons":
            continue
        from .render.card import icon_counts

        shown = icon_counts(game, claim["icon"])
        wrong = [f"{card.id} shows {shown[card.id]}, has {game.card_type(card.type_id).count}"
                 for card in game.cards if shown[card.id] != game.card_type(card.type_id).count]
        text = claim.get("text", {}).get("en", claim.get("id", "copy icons"))
        out.append(CheckResult(f"claim-{claim.get('id', 'copy-icons')}", not wrong,
                               f"{text}: every card" if not wrong else f"{text}: {'; '.join(wrong[:5])}"))
    return out
