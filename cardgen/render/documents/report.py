"""Balance report: simulate a game with bots and print the results as charts.

Which runs a game's report holds (player counts, policies, strategy comparisons) is data in
`<game folder>/templates/report.yaml` (else the bundled `templates/<game>/report.yaml`),
read through the schema reader with a declared shape (`REPORT`). The numbers printed are those of `simulate(...).as_dict()`,
the same dictionary `cardgen simulate --format json` prints, so anyone can reproduce them
from the seed, policies and game count shown on the page.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from reportlab.graphics import renderPDF
from reportlab.lib.units import mm

from ... import __version__
from ...engine.simulate import simulate
from ...files import write_atomic
from ...model import Game
from ...analysis.metrics import skill_table
from .charts import BAR_ALT, Bar, bar_chart, histogram
from .pages import PageWriter, text_of
from ...errors import DataError, Problem
from ...io.schema import Bool, List, Map, OneOf, Int, Str
from .playtest import TEXT, load_spec

WORDS = {
    "title": {"ja": "バランス・レポート", "en": "Balance report"},
    "repro": {"ja": "再現方法", "en": "To reproduce"},
    "seat": {"ja": "席", "en": "Seat"},
    "win_rate": {"ja": "席ごとの勝率（95 % ウィルソン区間）", "en": "Win rate by seat (95 % Wilson interval)"},
    "strategies": {"ja": "戦略ごとの勝率（95 % 区間）", "en": "Win rate by strategy (95 % interval)"},
    "length": {"ja": "ゲームの長さ（プレイヤーの選択数）", "en": "Game length (player decisions)"},
    "scores": {"ja": "得点の分布（全席）", "en": "Score distribution (all seats)"},
    "success": {"ja": "成功率（95 % 区間）", "en": "Success rate (95 % interval)"},
    "endings": {"ja": "結末の分布", "en": "How games ended"},
    "success_scores": {"ja": "成功したゲームの得点", "en": "Scores of successful games"},
    "draws": {"ja": "引き分け率", "en": "Draw rate"},
    "metrics": {"ja": "バランス指標（95 % 区間）", "en": "Balance metrics (95 % intervals)"},
    "skill": {"ja": "腕前は効くか：強い方針と弱い方針（95 % 区間）", "en": "Does skill matter? Strong against weak policies (95 % intervals)"},
    "summary": {"ja": "{games}ゲーム・シード{seed}・{players}人・方針：{policies}・cardgen {version}",
                "en": "{games} games · seed {seed} · {players} players · policies: {policies} · cardgen {version}"},
}


@dataclass(frozen=True)
class ReportRun:
    title: dict
    players: int
    policies: tuple[str, ...]
    variant: str | None = None
    rotate: bool = False
    note: dict | None = None


RUN = Map({"title": TEXT, "players": OneOf((Int(1, 100), Str(("players",)))), "policies": List(Str(), min_items=1, max_items=100),
           "variant": Str(), "rotate": Bool(), "note": TEXT},
          optional={"players", "policies", "variant", "rotate", "note"})
REPORT = Map({"runs": List(RUN, max_items=50)})


def report_runs(game: Game) -> list[ReportRun]:
    """The runs of the game's `report.yaml`, read and checked (DataError at file:line for a bad one)."""
    spec = load_spec(game, "report.yaml", REPORT, "report")
    runs = []
    for run in spec["runs"]:
        players = run.get("players", game.min_players)
        count = game.max_players if players == "players" else int(players)
        if not game.min_players <= count <= game.max_players:
            raise DataError([Problem(getattr(run["title"], "at", None) if isinstance(run["title"], str) else None,
                                     f"report run with {count} players: the game takes {game.min_players}-{game.max_players}; "
                                     f"change 'players'")])
        runs.append(ReportRun(run["title"], count, tuple(str(p) for p in run.get("policies", ["random"])),
                              None if run.get("variant") is None else str(run["variant"]),
                              bool(run.get("rotate", False)), run.get("note")))
    return runs


def run_report(game: Game, games: int, seed: int, workers: int | None = None,
               progress: Callable[[int], None] | None = None,
               runs: list[ReportRun] | None = None) -> list[tuple[ReportRun, dict]]:
    """Simulate every run of the game's report; return each run with its `as_dict()` result."""
    results = []
    for run in runs if runs is not None else report_runs(game):
        report = simulate(game, games=games, seed=seed, players=run.players, policies=list(run.policies),
                          workers=workers, variant=run.variant, rotate=run.rotate, progress=progress)
        results.append((run, report.as_dict()))
    return results


def build_balance_report(game: Game, lang: str, results: list[tuple[ReportRun, dict]]) -> bytes:
    """Draw the report's pages from simulation results."""
    buffer = io.BytesIO()
    writer = PageWriter.create(buffer, game, lang, WORDS["title"][lang])
    writer.heading(f"{game.title.get(lang)} — {WORDS['title'][lang]}")
    for index, (run, data) in enumerate(results):
        if index:
            writer.new_page()
        _draw_run(writer, lang, run, data)
    rows = skill_table(results)
    if rows:
        writer.new_page()
        writer.heading(WORDS["skill"][lang], size=13)
        for row in rows:
            lo, hi = row["wilson95"]
            fair = f" (1/n = {row['fair']:.0%})" if row["fair"] else ""
            writer.paragraph(f"{row['players']}p · {row['policies']} · {row['measure']}: {row['rate']:.1%} "
                             f"[{lo:.1%}–{hi:.1%}]{fair}", size=9)
    writer.finish()
    return buffer.getvalue()


def write_balance_report(game: Game, lang: str, out_dir: str | Path, games: int, seed: int,
                         workers: int | None = None, progress: Callable[[int], None] | None = None,
                         runs: list[ReportRun] | None = None) -> tuple[Path, list]:
    results = run_report(game, games, seed, workers, progress, runs)
    pdf = build_balance_report(game, lang, results)
    return write_atomic(Path(out_dir) / game.id / f"{game.id}-balance.pdf", pdf), results


def _chart(writer: PageWriter, title: str, drawing) -> None:
    writer.ensure(drawing.height + 8 * mm)
    writer.heading(title, size=10.5)
    renderPDF.draw(drawing, writer.canvas, 15 * mm, writer.y - drawing.height)
    writer.y -= drawing.height + 4 * mm


def _draw_run(writer: PageWriter, lang: str, run: ReportRun, data: dict) -> None:
    writer.heading(text_of(run.title, lang), size=13)
    policies = ", ".join(data["policies"]) + (" (rotating seats)" if data.get("seat_rotation") and lang == "en" else
                                               "（席を回転）" if data.get("seat_rotation") else "")
    writer.paragraph(WORDS["summary"][lang].format(games=data["games"], seed=data["seed"], players=data["players"],
                                                   policies=policies, version=__version__), size=8.5)
    command = (f"cardgen simulate {data['game']} --games {data['games']} --seed {data['seed']} --players {data['players']}"
               + "".join(f" --policy {p}" for p in data["policies"]) + (" --rotate-seats" if data.get("seat_rotation") else "")
               + (f" --variant {data['variant']}" if data.get("variant", "standard") != "standard" else "") + " --format json")
    writer.paragraph(f"{WORDS['repro'][lang]}: {command}", size=7.5)
    if run.note:
        writer.paragraph(text_of(run.note, lang), size=9)
    width = writer.width
    font = writer.font
    if "cooperative" in data:
        co = data["cooperative"]
        lo, hi = co["wilson95"]
        _chart(writer, WORDS["success"][lang],
               bar_chart([Bar("", co["success_rate"], lo, hi)], width * 0.4, 110, font, maximum=1.0, percent=True))
        if data.get("endings"):
            total = sum(data["endings"].values())
            bars = [Bar(name, count / total) for name, count in data["endings"].items()]
            _chart(writer, WORDS["endings"][lang], bar_chart(bars, width, 120, font, maximum=1.0, percent=True, colour=BAR_ALT))
        scores = {int(k): v for k, v in co.get("scores_of_successes", {}).items()}
        if scores:
            _chart(writer, WORDS["success_scores"][lang], histogram(scores, width, 120, font))
    else:
        seats = data["seats"]
        if seats and not data.get("seat_rotation"):
            bars = [Bar(f"{WORDS['seat'][lang]} {s['seat']}", s["win_rate"], *s["wilson95"]) for s in seats]
            _chart(writer, WORDS["win_rate"][lang],
                   bar_chart(bars, width, 130, font, maximum=1.0, percent=True, reference=1 / data["players"]))
        if data.get("strategies"):
            bars = [Bar(s["policy"], s["win_rate"], *s["wilson95"]) for s in data["strategies"]]
            _chart(writer, WORDS["strategies"][lang],
                   bar_chart(bars, width, 130, font, maximum=1.0, percent=True, reference=1 / data["players"], colour=BAR_ALT))
        writer.paragraph(f"{WORDS['draws'][lang]}: {data['draw_rate'] * 100:.1f}%", size=9)
    if data.get("metrics"):
        _draw_metrics(writer, lang, data["metrics"])
    if data.get("scores"):
        counts: dict[int, int] = {}
        for per_seat in data["scores"].values():
            for score, count in per_seat.items():
                counts[int(score)] = counts.get(int(score), 0) + count
        _chart(writer, WORDS["scores"][lang], histogram(counts, width, 120, font))
    if data.get("length_counts"):
        lengths = {int(k): v for k, v in data["length_counts"].items()}
        _chart(writer, WORDS["length"][lang], histogram(lengths, width, 110, font))
    else:
        length = data["length"]
        writer.paragraph(f"{WORDS['length'][lang]}: mean {length['mean']:.1f}, min {length['min']}, "
                         f"median {length['p50']}, max {length['max']}", size=9)


def _ci(value: dict, key: str = "ci95", percent: bool = False) -> str:
    if not value or value.get("mean", value.get("rate")) is None:
        return "–"
    mean = value.get("mean", value.get("rate"))
    lo, hi = value.get(key) or value.get("wilson95") or (mean, mean)
    return f"{mean:.1%} [{lo:.1%}–{hi:.1%}]" if percent else f"{mean:.2f} [{lo:.2f}–{hi:.2f}]"


def _draw_metrics(writer: PageWriter, lang: str, m: dict) -> None:
    """The run's balance metrics (cardgen.analysis.metrics) as lines of text."""
    writer.heading(WORDS["metrics"][lang], size=10.5)
    lines = [f"length: {_ci(m['length'])}"]
    if "success_rate" in m:
        lines.append(f"success: {_ci(m['success_rate'], 'wilson95', True)}")
    else:
        for seat in m.get("seat_advantage", []):
            lo, hi = seat["advantage95"]
            lines.append(f"seat {seat['seat']} advantage (win rate − 1/n): {seat['advantage']:+.1%} [{lo:+.1%}, {hi:+.1%}]")
        lines.append(f"draws: {_ci(m['draw_rate'], 'wilson95', True)}")
        lines.append(f"lead changes per game: {_ci(m['lead_changes'])}")
        lines.append(f"decisiveness (share of the game before the winner leads for good): {_ci(m['decisiveness'])}")
    for name, e in (m.get("endings") or {}).items():
        lo, hi = e["wilson95"]
        lines.append(f"ending {name}: {e['rate']:.1%} [{lo:.1%}–{hi:.1%}]")
    for line in lines:
        writer.paragraph(line, size=8.5)
