"""The balance report's runs: simulate each run of a game's `report.yaml` and draw the report.

What the runs are and how the pages look is the document's (`cardgen.render.documents.report`);
playing the games is the engine's; this module, above both, joins them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..engine.simulate import simulate
from ..files import write_atomic
from ..langs import suffix as lang_suffix
from ..model import Game
from ..render.documents.report import ReportRun, build_balance_report, games_needed, games_of, report_runs


def run_report(game: Game, games: int | None, seed: int, workers: int | None = None,
               progress: Callable[[int], None] | None = None,
               runs: list[ReportRun] | None = None) -> list[tuple[ReportRun, dict]]:
    """Simulate every run of the game's report; return each run with its `as_dict()` result
    (for a run that comes to no game at this `--games`, a stub saying so: `not_played`)."""
    results = []
    for run in runs if runs is not None else report_runs(game):
        count = games_of(run, games)
        if not count:
            results.append((run, {"game": game.id, "games": 0, "seed": seed, "players": run.players,
                                  "policies": list(run.policies), "endings": {}, "seat_rotation": run.rotate,
                                  "not_played": {"games_option": games, "own_games": run.games,
                                                 "needs": games_needed(run)}}))
            continue
        report = simulate(game, games=count, seed=seed, players=run.players, policies=list(run.policies),
                          workers=workers, variant=run.variant, rotate=run.rotate, progress=progress)
        results.append((run, report.as_dict()))
    return results


def write_balance_report(game: Game, lang: str, out_dir: str | Path, games: int | None, seed: int,
                         workers: int | None = None, progress: Callable[[int], None] | None = None,
                         runs: list[ReportRun] | None = None, paper: str = "a4") -> tuple[Path, list]:
    results = run_report(game, games, seed, workers, progress, runs)
    pdf = build_balance_report(game, lang, results, paper)
    tag = lang_suffix(lang, game.languages)  # the first language keeps today's name
    return write_atomic(Path(out_dir) / game.id / f"{game.id}-balance{tag}.pdf", pdf), results
