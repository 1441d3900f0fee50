"""`<game>-sweep.pdf`: what a sweep found, as charts (matplotlib, IPAex fonts embedded).

One page per chosen metric: a line chart with its 95 % band when one parameter varies, a heat
map when two do (each cell printed with its value; points meeting `--target` outlined and
starred), and one scatter panel per parameter otherwise (three or more parameters, or samples).
A last page lists the command's settings and every point's numbers.
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any, Sequence

from ..files import write_atomic
from ..render.documents.charts import fit_tick_labels, pyplot
from .sweep import SweepResult, primary_metric, resolve_metric


def _matplotlib():
    """pyplot with the reports' shared defaults (IPAex Gothic for every text, TrueType embedded)."""
    plt = pyplot()
    import matplotlib

    matplotlib.rcParams.update({"font.size": 9})
    return plt


def _label(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def write_sweep_report(result: SweepResult, path: str | Path, metrics: Sequence[str] = (), title: str | None = None) -> Path:
    """Write the report PDF atomically; `metrics`: names (or short names) of the metrics to chart."""
    plt = _matplotlib()
    from matplotlib.backends.backend_pdf import PdfPages

    rows = result.rows()
    names = result.metric_names()
    chosen = [resolve_metric(m, names, "--metric") for m in metrics] or [primary_metric(result)]
    for c in result.targets:
        if c.metric not in chosen:
            chosen.append(c.metric)
    paths = [v.path for v in result.spec.varies]
    met = [bool(r.get("target")) for r in rows]
    buffer = io.BytesIO()
    with PdfPages(buffer, metadata={"Title": f"{result.game_id} sweep", "Creator": "cardgen sweep"}) as pdf:
        for metric in chosen:
            fig = plt.figure(figsize=(8.27, 5.8))
            values = [r.get(metric) for r in rows]
            grid = result.spec.samples is None
            if len(paths) == 1:
                _line(fig, rows, paths[0], metric, met)
            elif len(paths) == 2 and grid:
                _heat(fig, rows, paths, metric, met, [v.values for v in result.spec.varies])
            else:
                _scatter(fig, rows, paths, metric, met)
            heading = title or result.game_id
            fig.suptitle(f"{heading} — {metric}", fontsize=12)
            fig.text(0.01, 0.012, _settings(result), fontsize=6.5, color="0.35")
            pdf.savefig(fig)
            plt.close(fig)
            del values
        _table_pages(plt, pdf, result, rows, chosen)
    return write_atomic(path, buffer.getvalue())


def _settings(result: SweepResult) -> str:
    s = result.spec
    vary = " ".join(f"--vary {v.path}={v.text}" for v in s.varies)
    extra = f" --samples {s.samples} --sampling {s.sampling}" if s.samples else ""
    target = f' --target "{", ".join(map(str, result.targets))}"' if result.targets else ""
    import textwrap

    return textwrap.fill(f"cardgen sweep {s.game} {vary}{extra} --games {s.games} --seed {s.seed} --players {result.players} "
            f"--variant {result.variant} " + " ".join(f"--policy {p}" for p in result.policies) + (" --rotate-seats" if s.rotate else "")
            + target + f"   ({len(result.points)} points; 95 % intervals; ★ = meets the target)", 170)


def _line(fig, rows, path, metric, met) -> None:
    from matplotlib.ticker import MaxNLocator

    ax = fig.add_axes([0.1, 0.14, 0.85, 0.72])
    xs = [r[path] for r in rows]
    numeric = _numeric(xs)
    pos = xs if numeric else list(range(len(xs)))
    ys = [r.get(metric) for r in rows]
    ax.plot(pos, [math.nan if y is None else y for y in ys], marker="o", color="#3b6fb6", label=metric)
    if f"{metric}_lo" in rows[0]:
        lo = [math.nan if r.get(f"{metric}_lo") is None else r[f"{metric}_lo"] for r in rows]
        hi = [math.nan if r.get(f"{metric}_hi") is None else r[f"{metric}_hi"] for r in rows]
        ax.fill_between(pos, lo, hi, color="#3b6fb6", alpha=0.18, label="95 % interval / 95 %区間")
    hits = [(p, y) for p, y, m in zip(pos, ys, met) if m and y is not None]
    if hits:
        ax.scatter([h[0] for h in hits], [h[1] for h in hits], marker="*", s=160, color="#d9822b", zorder=3,
                   label="meets the target / 目標達成")
    if not numeric or (all(isinstance(x, int) for x in xs) and len(xs) <= 12):
        ax.set_xticks(pos, [_label(x) for x in xs])
    else:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=8, integer=all(isinstance(x, int) for x in xs)))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6))
    ax.set_xlabel(path)
    ax.set_ylabel(metric)
    ax.grid(True, color="0.88")
    ax.legend(loc="best", fontsize=8)
    fit_tick_labels(fig, ax)


def _heat(fig, rows, paths, metric, met, axes_values) -> None:
    xs_vals, ys_vals = list(axes_values[0]), list(axes_values[1])
    ax = fig.add_axes([0.12, 0.14, 0.72, 0.72])
    grid = [[math.nan] * len(xs_vals) for _ in ys_vals]
    marks = []
    for r, m in zip(rows, met):
        i, j = ys_vals.index(r[paths[1]]), xs_vals.index(r[paths[0]])
        value = r.get(metric)
        grid[i][j] = math.nan if value is None else value
        if m:
            marks.append((j, i))
    image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
    cbar = fig.colorbar(image, ax=ax, fraction=0.05)
    cbar.set_label(metric)
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            if not math.isnan(value):
                ax.text(j, i, f"{value:.3g}", ha="center", va="center", fontsize=7,
                        color="white" if value < (min(v for rr in grid for v in rr if not math.isnan(v))
                                                  + max(v for rr in grid for v in rr if not math.isnan(v))) / 2 else "black")
            else:
                ax.text(j, i, "refused", ha="center", va="center", fontsize=6, color="0.4")
    for j, i in marks:
        ax.add_patch(__import__("matplotlib.patches", fromlist=["Rectangle"]).Rectangle(
            (j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="#d9822b", linewidth=2.2))
        ax.text(j + 0.42, i + 0.32, "★", ha="right", va="top", fontsize=9, color="#d9822b")
    ax.set_xticks(range(len(xs_vals)), [_label(v) for v in xs_vals])
    ax.set_yticks(range(len(ys_vals)), [_label(v) for v in ys_vals])
    ax.set_xlabel(paths[0])
    ax.set_ylabel(paths[1])
    fit_tick_labels(fig, ax)


def _scatter(fig, rows, paths, metric, met) -> None:
    from matplotlib.ticker import MaxNLocator

    n = len(paths)
    cols = min(3, n)
    lines = math.ceil(n / cols)
    for k, path in enumerate(paths):
        ax = fig.add_subplot(lines, cols, k + 1)
        xs = [r[path] for r in rows]
        numeric = _numeric(xs)
        order = sorted({_label(x) for x in xs}) if not numeric else None
        pos = xs if numeric else [order.index(_label(x)) for x in xs]
        ys = [math.nan if r.get(metric) is None else r[metric] for r in rows]
        ax.scatter(pos, ys, s=14, color=["#d9822b" if m else "#3b6fb6" for m in met])
        if not numeric:
            ax.set_xticks(range(len(order)), order)
        else:
            ax.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=all(isinstance(x, int) for x in xs)))
        ax.set_xlabel(path, fontsize=8)
        ax.set_ylabel(metric, fontsize=8)
        ax.grid(True, color="0.9")
    fig.subplots_adjust(left=0.09, right=0.97, top=0.86, bottom=0.14, hspace=0.45, wspace=0.35)
    for ax in fig.axes:
        fit_tick_labels(fig, ax)


def _table_pages(plt, pdf, result: SweepResult, rows, chosen) -> None:
    paths = [v.path for v in result.spec.varies]
    header = ["#", *paths, *chosen] + (["目標 target"] if result.targets else [])
    body = []
    for r in rows:
        line = [str(r["point"]), *(_label(r[p]) for p in paths)]
        for m in chosen:
            v = r.get(m)
            if v is None:
                line.append("–")
            elif r.get(f"{m}_lo") is not None:
                line.append(f"{v:.3f} ({r[m + '_lo']:.3f}–{r[m + '_hi']:.3f})")
            else:
                line.append(f"{v:.3g}")
        if result.targets:
            line.append("★" if r.get("target") else "")
        body.append(line)
    per_page = 32
    for start in range(0, max(1, len(body)), per_page):
        fig = plt.figure(figsize=(8.27, 11.69))
        fig.text(0.06, 0.96, f"{result.game_id}: スイープ結果 / sweep results ({len(rows)} points × {result.spec.games} games)",
                 fontsize=11)
        chunk = body[start:start + per_page] or [["–"] * len(header)]
        ax = fig.add_axes([0.04, 0.08, 0.92, 0.85])
        ax.axis("off")
        table = ax.table(cellText=chunk, colLabels=header, loc="upper center", cellLoc="center")
        table.auto_set_font_size(False)
        table.set_fontsize(7)
        table.scale(1, 1.25)
        if start == 0 and result.refused:
            refused = "; ".join(reason for _o, reason in result.refused[:3])
            fig.text(0.06, 0.05, f"refused ({len(result.refused)}): {refused[:300]}", fontsize=6, wrap=True)
        fig.text(0.06, 0.025, _settings(result), fontsize=6, color="0.35", wrap=True)
        pdf.savefig(fig)
        plt.close(fig)
