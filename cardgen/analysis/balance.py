"""The balance report's runs: simulate each run of a game's `report.yaml` and draw the report.

What the runs are and how the pages look is the document's (`cardgen.render.documents.report`);
playing the games is the engine's; this module, above both, joins them.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable

from ..engine.simulate import simulate
from ..files import write_atomic
from ..langs import suffix as lang_suffix
from ..model import Game
from ..render.documents.report import ReportRun, build_balance_report, games_needed, games_of, report_runs


STEPS_PER_WORKER = 8  # progress steps a run gives each worker at least (a slow search run is not silent)


def seconds_per_game(game: Game, runs: list[ReportRun], seed: int) -> list[float]:
    """What one game of each run costs, timed by playing its first game once (one process): a
    search policy's game costs hundreds of times a heuristic's, so games alone give no ETA."""
    costs = []
    for run in runs:
        started = time.perf_counter()
        simulate(game, games=1, seed=seed, players=run.players, policies=list(run.policies), workers=1,
                 variant=run.variant, rotate=run.rotate)
        costs.append(max(time.perf_counter() - started, 1e-4))
    return costs


def run_report(game: Game, games: int | None, seed: int, workers: int | None = None,
               progress: Callable[[float], None] | None = None,
               runs: list[ReportRun] | None = None, costs: list[float] | None = None) -> list[tuple[ReportRun, dict]]:
    """Simulate every run of the game's report; return each run with its `as_dict()` result
    (for a run that comes to no game at this `--games`, a stub saying so: `not_played`).

    `progress` gets the games just played, or, with `costs` (seconds_per_game), their
    estimated seconds, so that a bar over the whole report runs at the speed of the clock."""
    results = []
    runs = runs if runs is not None else report_runs(game)
    per_worker = workers or os.cpu_count() or 1
    for index, run in enumerate(runs):
        count = games_of(run, games)
        weight = costs[index] if costs else 1.0
        step = (lambda n, weight=weight: progress(n * weight)) if progress else None
        if not count:
            results.append((run, {"game": game.id, "games": 0, "seed": seed, "players": run.players,
                                  "policies": list(run.policies), "endings": {}, "seat_rotation": run.rotate,
                                  "not_played": {"games_option": games, "own_games": run.games,
                                                 "needs": games_needed(run)}}))
            continue
        report = simulate(game, games=count, seed=seed, players=run.players, policies=list(run.policies),
                          workers=workers, variant=run.variant, rotate=run.rotate, progress=step,
                          chunk=max(1, count // (per_worker * STEPS_PER_WORKER)))
        results.append((run, report.as_dict()))
    return results


def write_balance_report(game: Game, lang: str, out_dir: str | Path, games: int | None, seed: int,
                         workers: int | None = None, progress: Callable[[float], None] | None = None,
                         runs: list[ReportRun] | None = None, paper: str = "a4",
                         costs: list[float] | None = None) -> tuple[Path, list]:
    results = run_report(game, games, seed, workers, progress, runs, costs)
    pdf = build_balance_report(game, lang, results, paper)
    tag = lang_suffix(lang, game.languages)  # the first language keeps today's name
    return write_atomic(Path(out_dir) / game.id / f"{game.id}-balance{tag}.pdf", pdf), results
