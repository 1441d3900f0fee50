"""Balance report: print the results of simulating a game with bots as charts.

Which runs a game's report holds (player counts, policies, strategy comparisons) is data in
`<game folder>/templates/report.yaml` (else the bundled `templates/<game>/report.yaml`),
read through the schema reader with a declared shape (`REPORT`). The numbers printed are those of `simulate(...).as_dict()`,
the same dictionary `cardgen simulate --format json` prints, so anyone can reproduce them
from the seed, policies and game count shown on the page. Running the simulations is
analysis (`cardgen.analysis.balance.run_report`); this module reads the runs and draws.
"""

from __future__ import annotations

import io
import unicodedata
from dataclasses import dataclass

from reportlab.lib.units import mm

from ... import __version__
from ... import printed, words
from ...model import Game
from ...metrics import skill_table
from .charts import BAR_ALT, Bar, ChartRows, bar_figure, histogram_figure, percent, place_charts
from .pages import PageWriter, text_of
from ...errors import DataError, Problem
from ...io.schema import Bool, List, Map, OneOf, Int, Str
from .playtest import TEXT, load_spec

DEFAULT_GAMES = 2000  # games of a run without its own `games:` when --games is not given (see games_of)
MAX_GAMES = 10_000_000  # the most games a run's `games:` may ask for, and the most a scaled run plays


@dataclass(frozen=True)
class ReportRun:
    title: dict
    players: int
    policies: tuple[str, ...]
    variant: str | None = None
    rotate: bool = False
    note: dict | None = None
    games: int | None = None  # the run's own game count in a full report (a slow search policy needs fewer); see games_of


RUN = Map({"title": TEXT, "players": OneOf((Int(1, 100), Str(("players",)))), "policies": List(Str(), min_items=1, max_items=100),
           "variant": Str(), "rotate": Bool(), "note": TEXT, "games": Int(1, MAX_GAMES)},
          optional={"players", "policies", "variant", "rotate", "note", "games"})
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
                              bool(run.get("rotate", False)), run.get("note"),
                              None if run.get("games") is None else int(run["games"])))
    return runs


def games_of(run: ReportRun, games: int | None) -> int:
    """Games a run plays. Without `--games`: the run's own `games:`, else DEFAULT_GAMES. `--games N`
    sizes the whole report: a run without `games:` plays N, and a run with its own count plays the
    same share of it, `games * N / DEFAULT_GAMES` rounded down (`--games 200` plays a tenth of
    every run). A run that comes to no game is not played; its page says from which N it would be."""
    if run.games is None:
        return games if games is not None else DEFAULT_GAMES
    if games is None:
        return run.games
    return min(run.games * games // DEFAULT_GAMES, MAX_GAMES)


def games_needed(run: ReportRun) -> int:
    """The least `--games` at which a run with its own `games:` plays at least one game."""
    return -(-DEFAULT_GAMES // run.games) if run.games else 1


def build_balance_report(game: Game, lang: str, results: list[tuple[ReportRun, dict]], paper: str = "a4") -> bytes:
    """Draw the report's pages from simulation results: text by ReportLab, charts by matplotlib."""
    buffer = io.BytesIO()
    # the commands that reproduce the runs name ids (game, policies): the PDF's subject keeps
    # them (document properties), the page does not
    commands = "; ".join(_command(data) for _run, data in results if not data.get("not_played"))
    writer = PageWriter.create(buffer, game, lang, _w("title", lang, game), paper, subject=commands or None)
    charts = ChartRows(writer)
    writer.heading(f"{game.title.get(lang)} — {_w('title', lang, game)}")
    for index, (run, data) in enumerate(results):
        if index:
            writer.new_page()
        _draw_run(writer, charts, game, lang, run, data)
    _draw_skill(writer, game, lang, results)
    writer.finish()
    return place_charts(buffer.getvalue(), charts.placements)


# --- words the page shows instead of ids ----------------------------------------------------------

def _w(key: str, lang: str, game: Game, **fields) -> str:
    """An interface word of the report (words.yaml `report.<key>`, a game may override it)."""
    return words.word(f"report.{key}", lang, game, **fields)


def _label(kind: str, value: str, lang: str, game: Game) -> str:
    """A policy's or ending's name for the page instead of its id (words.label)."""
    return words.label(kind, value, lang, game=game)


def _seat(n: int, lang: str, game: Game) -> str:
    return words.word("common.seat", lang, game, n=n)


def _policies(values, lang: str, game: Game) -> str:
    return _w("separator", lang, game).join(_label("policy", p, lang, game) for p in dict.fromkeys(values))


# --- charts -------------------------------------------------------------------------------------

FULL_H = 54 * mm
HALF_H = 58 * mm


def _command(data: dict) -> str:
    """The `cardgen simulate` command that plays a run again."""
    return (f"cardgen simulate {data['game']} --games {data['games']} --seed {data['seed']} --players {data['players']}"
            + "".join(f" --policy {p}" for p in data["policies"]) + (" --rotate-seats" if data.get("seat_rotation") else "")
            + (f" --variant {data['variant']}" if data.get("variant", "standard") != "standard" else "") + " --format json")


def _draw_run(writer: PageWriter, charts: ChartRows, game: Game, lang: str, run: ReportRun, data: dict) -> None:
    writer.heading(text_of(run.title, lang), size=13)
    if data.get("not_played"):
        skipped = data["not_played"]
        writer.paragraph(_w("not_played", lang, game, games=skipped["games_option"], own=skipped["own_games"],
                            full=DEFAULT_GAMES, needs=skipped["needs"]), size=9)
        if run.note:
            writer.paragraph(text_of(run.note, lang), size=9)
        return
    policies = _policies(data["policies"], lang, game) + (_w("rotating", lang, game) if data.get("seat_rotation") else "")
    players = _w("one_player" if data["players"] == 1 else "player_count", lang, game, n=data["players"])
    writer.paragraph(_w("summary", lang, game, games=data["games"], seed=data["seed"], players=players,
                                                   policies=policies, version=__version__), size=8.5, gap=2)
    if run.note:
        writer.paragraph(text_of(run.note, lang), size=9)
    if data.get("metrics"):
        _draw_metrics(writer, game, lang, data)
    plt = charts.plt
    full, half = charts.widths(1), charts.widths(2)
    multi = data["players"] > 1
    endings = (data.get("metrics") or {}).get("endings") or {}
    seat_chart = None
    ranked = []  # (title, bars, reference) drawn as horizontal bars
    if multi and "cooperative" not in data:
        fair = (1 / data["players"], _w("fair", lang, game, share=percent(1 / data["players"])))
        if data["seats"] and not data.get("seat_rotation"):
            bars = [Bar(_seat(s["seat"], lang, game), s["win_rate"], *s["wilson95"]) for s in data["seats"]]
            seat_chart = (_w("win_rate", lang, game), bar_figure(
                plt, bars, full, FULL_H, value_label=_w("wins", lang, game), category_label=_w("seats", lang, game),
                reference=fair))
        if data.get("strategies"):
            ranked.append((_w("strategies", lang, game), _w("wins", lang, game), fair,
                           [Bar(_label("policy", s["policy"], lang, game), s["win_rate"], *s["wilson95"])
                            for s in data["strategies"]]))
    if endings and ("cooperative" in data or (multi and len(endings) > 1)):
        ranked.append((_w("endings", lang, game), _w("share", lang, game), None,
                       [Bar(_label("ending", name, lang, game), e["rate"], *e["wilson95"]) for name, e in endings.items()]))
    if seat_chart:
        charts.row([seat_chart])
    # two ranked charts share a row when there is no seat chart above them and their labels are
    # short enough for half the width (a search policy's label with its settings is not); else one a row
    side_by_side = len(ranked) == 2 and max(_label_width(bar.label) for *_rest, bars in ranked for bar in bars) <= HALF_LABEL
    ranked_width = half if side_by_side else full
    tallest = max([len(bars) for *_rest, bars in ranked] + [0])
    figures = [(title, bar_figure(plt, bars, ranked_width, _ranked_height(tallest), value_label=axis, reference=reference,
                                  horizontal=True, colour=BAR_ALT))
               for title, axis, reference, bars in ranked]
    if side_by_side:
        charts.row(figures)
    else:
        for item in figures:
            charts.row([item])
    pair = []
    if "cooperative" in data:
        scores = {int(k): v for k, v in data["cooperative"].get("scores_of_successes", {}).items()}
        if scores:
            pair.append((_w("success_scores", lang, game), scores, _w("score", lang, game), _w("games_axis", lang, game)))
    elif data.get("scores"):
        counts: dict[int, int] = {}
        for per_seat in data["scores"].values():
            for score, count in per_seat.items():
                counts[int(score)] = counts.get(int(score), 0) + count
        pair.append((_w("scores", lang, game) if multi else _w("scores_solo", lang, game), counts, _w("score", lang, game),
                     _w("seat_scores", lang, game) if multi else _w("games_axis", lang, game)))
    if data.get("length_counts"):
        pair.append((_w("length", lang, game), {int(k): v for k, v in data["length_counts"].items()},
                     _w("decisions", lang, game), _w("games_axis", lang, game)))
    if pair:
        width = half if len(pair) == 2 else full
        charts.row([(title, histogram_figure(plt, counts, width, HALF_H, value_label=value_axis, count_label=count_axis))
                    for title, counts, value_axis, count_axis in pair])


HALF_LABEL = 28  # the widest bar label (in half-width characters) a half-width ranked chart leaves room for


def _label_width(text: str) -> int:
    """A label's width in half-width characters (a Japanese character counts two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _ranked_height(bars: int) -> float:
    """Height of a horizontal bar chart: room for each bar, the axis and its title."""
    return max(34 * mm, 17 * bars + 62)


def _ci(value: dict | None, key: str = "ci95", percent_value: bool = False) -> tuple[str, str]:
    """(value, interval) as printed; a dash where the run has no such number."""
    if not value or value.get("mean", value.get("rate")) is None:
        return "–", "–"
    mean = value.get("mean", value.get("rate"))
    lo, hi = value.get(key) or value.get("wilson95") or (mean, mean)
    if percent_value:
        return percent(mean, 1), printed.span(percent(lo, 1), percent(hi, 1))
    return printed.number(mean, 2), printed.span(printed.number(lo, 2), printed.number(hi, 2))


def _signed(value: float) -> str:
    return printed.percent(value, 1, signed=True)


def _draw_metrics(writer: PageWriter, game: Game, lang: str, data: dict) -> None:
    """The run's balance metrics (cardgen.metrics) as a table with 95 % intervals."""
    m = data["metrics"]
    rows = [[_w("m_length", lang, game), *_ci(m["length"])]]
    if "success_rate" in m:
        rows.insert(0, [_w("m_success", lang, game), *_ci(m["success_rate"], "wilson95", True)])
    elif data["players"] > 1:
        for seat in m.get("seat_advantage", []):
            lo, hi = seat["advantage95"]
            rows.append([_w("m_seat", lang, game, seat=_seat(seat["seat"], lang, game)), _signed(seat["advantage"]),
                         f"{_signed(lo)} – {_signed(hi)}"])
        rows.append([_w("m_draws", lang, game), *_ci(m["draw_rate"], "wilson95", True)])
        rows.append([_w("m_lead", lang, game), *_ci(m["lead_changes"])])
        rows.append([_w("m_decisive", lang, game), *_ci(m["decisiveness"])])
    writer.grid([_w("measure", lang, game), _w("value", lang, game), _w("interval", lang, game)], rows,
                widths=[3.2, 0.9, 1.4], row_height=5.6 * mm, size=8)


def _draw_skill(writer: PageWriter, game: Game, lang: str, results: list[tuple[ReportRun, dict]]) -> None:
    """Strong against weak policies (cardgen.metrics.skill_table) as one table, with each run's
    game count; a run not played at this `--games` is listed as such rather than left out."""
    rows = []
    for run, data in results:
        if data.get("not_played"):
            rows.append([str(data["players"]), _policies(data["policies"], lang, game), "–", "–", "0",
                         _w("not_played_short", lang, game)])
            continue
        for row in skill_table([(run, data)]):
            lo, hi = row["wilson95"]
            if row["fair"] is None:
                policy, against = _policies(data["policies"], lang, game), "–"
                measure = _w("m_success", lang, game)
            else:
                policy = _label("policy", row["policies"], lang, game)
                against = _policies([p for p in data["policies"] if p != row["policies"]], lang, game)
                measure = _w("win_measure", lang, game, fair=_w("fair", lang, game, share=percent(row["fair"])))
            rows.append([str(row["players"]), policy, against, measure, str(data["games"]),
                         f"{percent(row['rate'], 1)} [{percent(lo, 1)} – {percent(hi, 1)}]"])
    if not rows:
        return
    row_height = 6.5 * mm   # a one-line row; wrapped labels make some taller, and the table then runs on
    writer.ensure(12 * 2 + 8.5 * 1.5 * 3 + row_height * (len(rows) + 1))   # heading, note, head row and every row on one page
    writer.heading(_w("skill", lang, game), size=12)
    writer.paragraph(_w("skill_note", lang, game), size=8.5, gap=2)
    writer.grid([_w("players", lang, game), _w("policy", lang, game), _w("against", lang, game), _w("measure", lang, game),
                 _w("games_axis", lang, game), _w("rate", lang, game)], rows,
                widths=[0.45, 1.6, 1.5, 1.6, 0.55, 1.3], row_height=None, size=8)   # a row grows with a wrapped label

