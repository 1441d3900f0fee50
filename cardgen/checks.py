"""Composition and rule-consistency checks behind `cardgen check`.

Generic checks run for every game; a game's engine (its Rules class) may add its own through
`setup_checks(game)` (setup arithmetic) and `claim_checks(game)` (the source's claims).
Results are dataclasses; validity is a flag per check, in the style of python-chess's status.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from .model import CheckResult, Game
from .registry import game_engine


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
    results = [*composition_checks(game), *label_checks(game), *word_checks(game), *style_checks(game), *printed_claim_checks(game)]
    rules = game_engine(game)
    if rules is not None:
        for hook in ("setup_checks", "claim_checks"):
            if getattr(rules, hook) is not None:
                results.extend(_run_hook(game, hook, getattr(rules, hook)))
        if simulate and rules.simulation_checks is not None:
            results.extend(_run_hook(game, "simulation_checks", rules.simulation_checks))
        elif simulate:
            from .engine.harness import random_sim_sweep  # every engine gets the random-simulation sweep

            results.extend(_run_hook(game, "random_sim_sweep", random_sim_sweep))
    return GameReport(game.id, tuple(_located(game, r) for r in results), composition_summary(game))


def _run_hook(game: Game, name: str, hook) -> list[CheckResult]:
    """An engine's checks; a crash in one is a failed check at game.yaml, not a crash of `check`."""
    try:
        return list(hook(game))
    except Exception as exc:  # noqa: BLE001 - data an engine did not foresee must not end `check` with a traceback
        import traceback

        frame = traceback.extract_tb(exc.__traceback__)[-1]
        return [CheckResult(f"{game.engine}-{name}", False,
                            f"the {game.engine} engine's {name} stopped: {type(exc).__name__}: {exc} "
                            f"(at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}); the game data holds something the engine "
                            "does not handle", game.where("game.yaml"))]


def _located(game: Game, result: CheckResult) -> CheckResult:
    """Every failed check names a file and line: its own, or game.yaml's first line."""
    if result.ok or result.location is not None:
        return result
    return replace(result, location=game.where("game.yaml"))


_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def composition_checks(game: Game) -> list[CheckResult]:
    """What loading cannot already guarantee.

    The loader rejects, with file:line errors, a declared total or count that differs from the
    cards, duplicate ids and a missing language, so a loaded game holds those; what is left to
    check is that numbered ids run without gaps.
    """
    return [_contiguous(game)]


def label_checks(game: Game) -> list[CheckResult]:
    """Every enum value has a printed label in each language, so no internal id reaches paper."""
    from .words import missing_labels

    problems = missing_labels(game)
    if not problems:
        return [CheckResult("labels", True, "every enum value has a label in each language")]
    return [CheckResult("labels", False, p.message, p.location) for p in problems]


def word_checks(game: Game) -> list[CheckResult]:
    """Every interface word the outputs print exists in each declared language (cardgen's or the game's own)."""
    from .words import missing_words

    problems = missing_words(game)
    if not problems:
        return [CheckResult("words", True, f"every interface word is there in {', '.join(game.languages)}")]
    return [CheckResult("words", False, p.message, p.location) for p in problems]


def style_checks(game: Game) -> list[CheckResult]:
    """The Japanese text style check (cardgen/style.py): each finding a warning at its
    file:line:column; `cardgen check --fix-style` rewrites them."""
    from .style import game_findings

    findings = game_findings(game)
    if not findings:
        return [CheckResult("style", True, "Japanese text style (JTF): digits and Latin half-width, full-width brackets, "
                                           "no half-width kana, ellipsis ……, dash ――")]
    return [CheckResult("style", True, f.message, f.location, warning=True) for f in findings]


def composition_summary(game: Game) -> str:
    """'32 cards: princess ×2, noble ×2, ...' for the report header."""
    return f"{game.total} cards: " + ", ".join(f"{t.id} ×{t.count}" for t in game.card_types)


def _contiguous(game: Game) -> CheckResult:
    """Numbered ids (LL01..LL32) must run 1..N without gaps, in card order; a failure points at
    the first card out of order."""
    ids = [c.id for c in game.cards]
    matches = [_NUMBERED.match(i) for i in ids]
    if not ids or not all(matches) or len({m.group(1) for m in matches}) != 1:
        return CheckResult("contiguous-ids", True, "ids are not a single numbered series (nothing to check)")
    numbers = [int(m.group(2)) for m in matches]
    ok = numbers == list(range(1, len(ids) + 1))
    if ok:
        return CheckResult("contiguous-ids", True, f"{ids[0]}–{ids[-1]} contiguous")
    first = next(i for i, n in enumerate(numbers) if n != i + 1)
    return CheckResult("contiguous-ids", False, f"ids do not run 1..{len(ids)} in order: {ids[first]} is card {first + 1}; "
                                                f"numbers {numbers[:12]}{' ...' if len(numbers) > 12 else ''}",
                       game.cards[first].location)


def printed_claim_checks(game: Game) -> list[CheckResult]:
    """Claims about what the printed cards show, checked against the layout (not the rules).

    `copy_icons`: each card's front shows as many `icon` figures as its type has copies
    (copy-count figures, as some bundled games print).
    """
    out = []
    for claim in game.claims:
        if not isinstance(claim, dict) or claim.get("kind") != "copy_icons":
            continue
        from .render.cards.card import icon_counts

        cid = claim.get("id", "copy-icons")
        text = claim.get("text", {}).get("en", cid) if isinstance(claim.get("text"), dict) else cid
        if not isinstance(claim.get("icon"), str):
            out.append(CheckResult(f"claim-{cid}", False, f"{text}: a copy_icons claim needs 'icon: <layout icon name>'",
                                   game.where("game.yaml")))
            continue
        shown = icon_counts(game, claim["icon"])
        wrong = [card for card in game.cards if shown[card.id] != game.card_type(card.type_id).count]
        said = [f"{card.id} shows {shown[card.id]}, has {game.card_type(card.type_id).count}" for card in wrong[:5]]
        out.append(CheckResult(f"claim-{cid}", not wrong,
                               f"{text}: every card" if not wrong else f"{text}: {'; '.join(said)}",
                               wrong[0].location if wrong else None))
    return out
