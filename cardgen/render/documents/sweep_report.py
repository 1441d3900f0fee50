"""`<game>-sweep.pdf`: what a parameter sweep (`cardgen sweep`) found, on the document kit's pages.

The first page says what was run (points, games, players, policies, seed, target, the command
that reproduces it goes in the PDF's subject); then one chart per chosen metric, as wide as the text: a line with its 95 %
band when one parameter varies, a heat map when two do on a grid (each cell printed with its
value), one scatter panel per parameter otherwise (three or more parameters, or samples). Points
meeting `--target` are starred. Last, every point's numbers in the kit's table, and the points
the game's checks refused. Words come from words.yaml (`sweep.*`) in the report's language;
metric names and parameters are printed as words (`words.parameter_label`), never as ids.
"""

from __future__ import annotations

import io
import math
import re
from pathlib import Path
from typing import Any, Sequence

from reportlab.lib.units import mm

from ... import __version__, printed, words
from ...files import write_atomic
from ...model import Game
from ...sweep_result import SweepResult, Vary, chart_metrics, metric_slug, show_value
from .charts import BAR, BAR_ALT, ChartRows, figure, fit_tick_labels, place_charts
from .pages import PageWriter

LINE_H = 78 * mm
SCATTER_ROW_H = 62 * mm


def build_sweep_report(game: Game, result: SweepResult, lang: str, metrics: Sequence[str] = (), paper: str = "a4") -> bytes:
    """The report's PDF bytes; `metrics`: names (or short names) of the metrics to chart."""
    buffer = io.BytesIO()
    title = _w("title", lang, game)
    # the command that reproduces the sweep names ids (game, paths, policies): it goes in the
    # PDF's subject (document properties), not on the page
    writer = PageWriter.create(buffer, game, lang, title, paper, subject=_command(result))
    charts = ChartRows(writer)
    rows = result.rows()
    chosen = chart_metrics(result, metrics)
    met = [bool(r.get("target")) for r in rows]
    writer.heading(f"{game.title.get(lang)} — {title}")
    _draw_summary(writer, game, lang, result, met)
    paths = [v.path for v in result.spec.varies]
    names = [words.parameter_label(game, path, lang) for path in paths]
    for metric in chosen:
        label = metric_label(metric, result, lang, game)
        if len(paths) == 1:
            fig = _line_figure(charts.plt, writer.width, rows, paths[0], names[0], metric, label, met, lang, game)
        elif len(paths) == 2 and result.spec.samples is None:
            fig = _heat_figure(charts.plt, writer.width, rows, paths, names, metric, label, met,
                               [v.values for v in result.spec.varies], lang, game)
        else:
            fig = _scatter_figure(charts.plt, writer.width, rows, paths, names, metric, label, met)
        charts.row([(label, fig)])
    _draw_points(writer, game, lang, result, rows, paths, chosen)
    if result.refused:
        writer.heading(_w("refused", lang, game), size=12)
        for index, (overrides, reason) in enumerate(result.refused):
            shown = words.word("common.separator", lang, game).join(
                f"{words.parameter_label(game, path, lang)} = {show_value(value)}" for path, value in overrides.items())
            why = result.refused_why[index] if index < len(result.refused_why) else reason
            writer.paragraph(f"{shown}: {why}", size=8)
    writer.finish()
    return place_charts(buffer.getvalue(), charts.placements)


def write_sweep_report(game: Game, result: SweepResult, path: str | Path, lang: str, metrics: Sequence[str] = (),
                       paper: str = "a4") -> Path:
    """Write the report PDF atomically."""
    return write_atomic(path, build_sweep_report(game, result, lang, metrics, paper))


# --- words ----------------------------------------------------------------------------------------

def _w(key: str, lang: str, game: Game, **fields: Any) -> str:
    return words.word(f"sweep.{key}", lang, game, **fields)


_FIXED = {"games": "m_games", "seat_gap": "m_seat_gap", "draw_rate": "m_draw", "success_rate": "m_success",
          "success_score": "m_success_score", "length_mean": "m_length"}


def metric_label(name: str, result: SweepResult, lang: str, game: Game) -> str:
    """A metric column (sweep.metrics_of) in words: 'seat2_win_rate' -> 'Seat 2 win rate'; a
    name it does not know is printed as it is."""
    if name in _FIXED:
        return _w(_FIXED[name], lang, game)
    if m := re.fullmatch(r"seat(\d+)_(win_rate|mean_score)", name):
        seat = words.word("common.seat", lang, game, n=int(m[1]))
        return _w("m_seat_win" if m[2] == "win_rate" else "m_seat_score", lang, game, seat=seat)
    if m := re.fullmatch(r"length_(min|max|p(\d+))", name):
        return _w(f"m_length_{m[1]}" if m[2] is None else "m_length_p", lang, game, n=m[2] or "")
    if m := re.fullmatch(r"ending_(.+)_rate", name):
        ending = next((e for e in result.endings if metric_slug(e) == m[1]), None)
        if ending is not None:
            return _w("m_ending", lang, game, ending=words.label("ending", ending, lang, game))
    if m := re.fullmatch(r"strategy_(.+)_(win_rate|mean_score)", name):
        policy = next((p for p in result.policies if metric_slug(p) == m[1]), None)
        if policy is not None:
            key = "m_strategy_win" if m[2] == "win_rate" else "m_strategy_score"
            return _w(key, lang, game, policy=words.label("policy", policy, lang, game))
    return name


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _number(row: dict, metric: str) -> str:
    """A metric as the table prints it: three decimals, its 95 % interval beside it."""
    value = row.get(metric)
    if value is None:
        return "–"
    if row.get(f"{metric}_lo") is not None:
        ends = printed.span(printed.number(row[metric + '_lo'], 3), printed.number(row[metric + '_hi'], 3))
        return f"{printed.number(value, 3)} ({ends})"
    return printed.number(value, 3) if isinstance(value, float) else str(value)


# --- text -----------------------------------------------------------------------------------------

def _draw_summary(writer: PageWriter, game: Game, lang: str, result: SweepResult, met: list[bool]) -> None:
    spec = result.spec
    players = words.word("report.one_player" if result.players == 1 else "report.player_count", lang, game, n=result.players)
    policies = words.word("common.separator", lang, game).join(
        words.label("policy", p, lang, game) for p in dict.fromkeys(result.policies))
    if spec.rotate:
        policies += words.word("report.rotating", lang, game)
    writer.paragraph(_w("summary", lang, game, points=len(result.points), games=spec.games, players=players,
                        policies=policies, seed=spec.seed, version=__version__), size=9, gap=2)
    varied = words.word("common.separator", lang, game).join(
        f"{words.parameter_label(game, v.path, lang)} = {_values_text(v)}" for v in spec.varies)
    writer.paragraph(_w("varied", lang, game, values=varied), size=9, gap=2)
    if result.targets:
        target = words.word("common.separator", lang, game).join(_condition(c, result, lang, game) for c in result.targets)
        writer.paragraph(_w("target", lang, game, target=target, met=sum(met), points=len(met)), size=9, gap=2)
    writer.y -= 4


_SIGNS = {"<": "<", "<=": "≤", ">": ">", ">=": "≥", "=": "="}


def _condition(condition, result: SweepResult, lang: str, game: Game) -> str:
    """A `--target` condition with its metric in words: 'Seat gap (max − min) < 0.2'."""
    label = metric_label(condition.metric, result, lang, game)
    if condition.op == "range":
        return f"{label} = {printed.span(printed.number(condition.lo), printed.number(condition.hi))}"
    return f"{label} {_SIGNS[condition.op]} {printed.number(condition.lo)}"


def _command(result: SweepResult) -> str:
    s = result.spec
    parts = [f"cardgen sweep {s.game}", *(f"--vary {v.path}={v.text}" for v in s.varies)]
    if s.samples:
        parts.append(f"--samples {s.samples} --sampling {s.sampling}")
    parts += [f"--games {s.games}", f"--seed {s.seed}", f"--players {result.players}", f"--variant {result.variant}",
              *(f"--policy {p}" for p in result.policies)]
    if s.rotate:
        parts.append("--rotate-seats")
    if result.targets:
        parts.append(f'--target "{", ".join(map(str, result.targets))}"')
    return " ".join(parts)


def _draw_points(writer: PageWriter, game: Game, lang: str, result: SweepResult, rows: list[dict], paths: list[str],
                 chosen: list[str]) -> None:
    writer.new_page()
    writer.heading(_w("points", lang, game), size=12)
    headers = [_w("point", lang, game), *(words.parameter_label(game, p, lang) for p in paths),
               *(metric_label(m, result, lang, game) for m in chosen)]
    widths = [0.45] + [1.0] * len(paths) + [1.7] * len(chosen)
    if result.targets:
        headers.append(_w("meets", lang, game))
        widths.append(0.5)
    body = []
    for row in rows:
        line = [str(row["point"]), *(_value(row[p]) for p in paths), *(_number(row, m) for m in chosen)]
        if result.targets:
            line.append("★" if row.get("target") else "")
        body.append(line)
    writer.grid(headers, body, widths=widths, row_height=None, size=7.5)


# --- charts ---------------------------------------------------------------------------------------

def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _nan(value: Any) -> float:
    return math.nan if value is None else float(value)


def _line_figure(plt, width: float, rows: list[dict], path: str, name: str, metric: str, label: str, met: list[bool],
                 lang: str, game: Game):
    from matplotlib.ticker import MaxNLocator

    fig = figure(plt, width, LINE_H)
    ax = fig.add_subplot()
    xs = [r[path] for r in rows]
    numeric = _numeric(xs)
    pos = xs if numeric else list(range(len(xs)))
    ys = [_nan(r.get(metric)) for r in rows]
    ax.plot(pos, ys, marker="o", color=BAR, label=label)
    if f"{metric}_lo" in rows[0]:
        ax.fill_between(pos, [_nan(r.get(f"{metric}_lo")) for r in rows], [_nan(r.get(f"{metric}_hi")) for r in rows],
                        color=BAR, alpha=0.18, label=_w("interval", lang, game))
    hits = [(p, y) for p, y, m in zip(pos, ys, met) if m and not math.isnan(y)]
    if hits:
        ax.scatter([h[0] for h in hits], [h[1] for h in hits], marker="*", s=150, color=BAR_ALT, zorder=3,
                   label=_w("best", lang, game))
    if not numeric or (all(isinstance(x, int) for x in xs) and len(xs) <= 12):
        ax.set_xticks(pos, [_value(x) for x in xs])
    else:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=8, integer=all(isinstance(x, int) for x in xs)))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6))
    ax.set_xlabel(name)
    if len(label) <= 24:  # a longer name is the chart's title only
        ax.set_ylabel(label)
    ax.grid(True, color="0.88")
    ax.legend(loc="best")
    fig.subplots_adjust(left=0.1, right=0.98, top=0.96, bottom=0.16)
    fit_tick_labels(fig, ax)
    return fig


def _heat_figure(plt, width: float, rows: list[dict], paths: list[str], names: list[str], metric: str, label: str, met: list[bool],
                 axes_values: list[Sequence[Any]], lang: str, game: Game):
    from matplotlib.patches import Rectangle

    xs_vals, ys_vals = list(axes_values[0]), list(axes_values[1])
    height = min(150 * mm, max(70 * mm, 9 * mm * len(ys_vals) + 30 * mm))
    fig = figure(plt, width, height)
    ax = fig.add_subplot()
    grid = [[math.nan] * len(xs_vals) for _ in ys_vals]
    marks = []
    for r, m in zip(rows, met):
        i, j = ys_vals.index(r[paths[1]]), xs_vals.index(r[paths[0]])
        grid[i][j] = _nan(r.get(metric))
        if m:
            marks.append((j, i))
    image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
    fig.colorbar(image, ax=ax, fraction=0.05, pad=0.02)
    known = [v for line in grid for v in line if not math.isnan(v)]
    middle = (min(known) + max(known)) / 2 if known else 0.0
    for i, line in enumerate(grid):
        for j, value in enumerate(line):
            if math.isnan(value):
                ax.text(j, i, _w("refused_cell", lang, game), ha="center", va="center", fontsize=6, color="0.4")
            else:
                ax.text(j, i, f"{value:.3g}", ha="center", va="center", fontsize=7, color="white" if value < middle else "black")
    for j, i in marks:
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor=BAR_ALT, linewidth=2.2))
        ax.text(j + 0.42, i + 0.32, "★", ha="right", va="top", fontsize=9, color=BAR_ALT)
    ax.set_xticks(range(len(xs_vals)), [_value(v) for v in xs_vals])
    ax.set_yticks(range(len(ys_vals)), [_value(v) for v in ys_vals])
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    fig.subplots_adjust(left=0.14, right=0.93, top=0.96, bottom=0.13)  # room for the colour bar's numbers
    fit_tick_labels(fig, ax)
    return fig


def _scatter_figure(plt, width: float, rows: list[dict], paths: list[str], names: list[str], metric: str, label: str, met: list[bool]):
    from matplotlib.ticker import MaxNLocator

    cols = min(2, len(paths))
    lines = math.ceil(len(paths) / cols)
    fig = figure(plt, width, SCATTER_ROW_H * lines)
    ys = [_nan(r.get(metric)) for r in rows]
    colours = [BAR_ALT if m else BAR for m in met]
    for k, (path, name) in enumerate(zip(paths, names)):
        ax = fig.add_subplot(lines, cols, k + 1)
        xs = [r[path] for r in rows]
        numeric = _numeric(xs)
        order = None if numeric else sorted({_value(x) for x in xs})
        pos = xs if order is None else [order.index(_value(x)) for x in xs]
        ax.scatter(pos, ys, s=14, color=colours)
        distinct = sorted(set(xs)) if order is None else []
        if order is not None:
            ax.set_xticks(range(len(order)), order)
        elif all(isinstance(x, int) for x in xs) and len(distinct) <= 12:
            ax.set_xticks(distinct, [_value(x) for x in distinct])
        else:
            ax.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=all(isinstance(x, int) for x in xs)))
        ax.set_xlabel(name)  # the metric is the row's title
        ax.grid(True, color="0.9")
    height = SCATTER_ROW_H * lines
    fig.subplots_adjust(left=0.07, right=0.98, top=1 - 4 * mm / height, bottom=12 * mm / height, hspace=0.45, wspace=0.22)
    for ax in fig.axes:
        fit_tick_labels(fig, ax)
    return fig


def _values_text(vary: Vary) -> str:
    """The values of a `--vary` as written, a range with the range dash ('3..5' -> '3–5')."""
    return vary.text.replace("..", printed.DASH)
