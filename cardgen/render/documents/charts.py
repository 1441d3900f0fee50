"""Charts for the balance and sweep reports, drawn by matplotlib and placed in the PDF as vectors.

Route: each chart is a matplotlib figure of exactly the size it takes on the page, saved with
matplotlib's own PDF backend (TrueType fonts, `pdf.fonttype` 42, so IPAex is embedded as a
subset and Japanese labels are real, searchable text), then laid onto the ReportLab page with
pypdf's `merge_transformed_page` (`place_charts`): the chart's content stream and resources go
into the page as they are, no rasterising and no re-interpretation of matplotlib's drawing.
Measured against svglib (matplotlib SVG -> ReportLab Drawing) on the llll length histogram:
svglib is faster (0.31 s against 0.50 s a chart) but its drawing brings an unembedded
Helvetica into the page resources and re-lays out matplotlib's text; the PDF route keeps
matplotlib's exact output, embeds only the faces it sets (about 9 KB a chart) and pypdf is pure Python.

Every figure here uses one set of defaults (`pyplot(lang)`): the report language's faces for
every text (IPAex Gothic in Japanese; Liberation Sans in a Latin language, IPAex for a character
it lacks, as `fonts.face_of` chooses; no DejaVu, no Type 3), integer ticks for counts, axis
titles, light grid.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from typing import Sequence

from reportlab.lib.units import mm

from ... import printed
from ...fonts import GOTHIC, draw_string, face_files
from .pages import MARGIN, PageWriter

BAR = "#4c72b0"
BAR_ALT = "#dd8452"
REFERENCE = "#c44e52"
INK = "#262626"
MAX_BINS = 14  # a histogram wider than this is binned (readable labels on an A4 half page)


def pyplot(lang: str):
    """matplotlib's pyplot on the Agg backend with the faces of `lang` registered for every text
    (matplotlib falls back from one to the next per character) and TrueType embedding
    (pdf.fonttype 42), so a PDF it writes embeds all its fonts."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib import font_manager
    import matplotlib.pyplot as plt

    families = [_family(font_manager, path) for path in face_files(GOTHIC, lang)]
    matplotlib.rcParams.update({
        "font.family": families, "pdf.fonttype": 42, "ps.fonttype": 42,
        "mathtext.fontset": "custom", "mathtext.rm": families[0], "mathtext.it": families[0], "mathtext.bf": families[0],
        "axes.unicode_minus": False, "font.size": 8, "axes.titlesize": 9, "axes.labelsize": 8,
        "xtick.labelsize": 7.5, "ytick.labelsize": 7.5, "legend.fontsize": 7.5,
        "axes.edgecolor": "#555555", "axes.linewidth": 0.6, "text.color": INK,
        "axes.spines.top": False, "axes.spines.right": False, "svg.fonttype": "none",
        "pdf.compression": 9,
    })
    return plt


def _family(font_manager, path) -> str:
    """The family name of the bundled font file `path`, registered with matplotlib once."""
    known = {entry.fname: entry.name for entry in font_manager.fontManager.ttflist}
    if str(path) not in known:
        font_manager.fontManager.addfont(str(path))
        return font_manager.FontProperties(fname=str(path)).get_name()
    return known[str(path)]


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    low: float | None = None    # interval, same unit as value
    high: float | None = None


@dataclass(frozen=True)
class Chart:
    """A chart as a one-page PDF of `width` x `height` points, ready to place."""

    pdf: bytes
    width: float
    height: float


@dataclass(frozen=True)
class Placement:
    page: int        # 0-based page of the document
    x: float         # lower-left corner, points
    y: float
    chart: Chart


percent = printed.percent  # one style on every page: '40 %'


def figure(plt, width: float, height: float):
    """A matplotlib figure of `width` x `height` points: the size it takes on the page."""
    return plt.figure(figsize=(width / 72, height / 72))


def bar_figure(plt, bars: Sequence[Bar], width: float, height: float, *, value_label: str, category_label: str = "",
               percent_axis: bool = True, reference: tuple[float, str] | None = None, horizontal: bool = False,
               colour: str = BAR):
    """Bars with 95 % interval whiskers, each bar's value printed at its end, and an optional
    labelled reference line (`(value, "fair share 25%")`). Horizontal bars suit long category
    names (endings, strategies)."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    fig = figure(plt, width, height)
    ax = fig.add_subplot()
    positions = list(range(len(bars)))
    values = [b.value for b in bars]
    errors = None
    if any(b.low is not None for b in bars):
        errors = [[max(0.0, b.value - (b.low if b.low is not None else b.value)) for b in bars],
                  [max(0.0, (b.high if b.high is not None else b.value) - b.value) for b in bars]]
    top = max([1e-9] + [b.high if b.high is not None else b.value for b in bars] + [reference[0] if reference else 0])
    limit = min(1.0, top * 1.25) if percent_axis else top * 1.2
    text = [percent(b.value, 1) if percent_axis else f"{b.value:g}" for b in bars]
    error_style = {"ecolor": INK, "elinewidth": 0.8, "capsize": 3}
    if horizontal:
        ax.barh(positions, values, xerr=errors, color=colour, height=0.6, error_kw=error_style)
        ax.set_yticks(positions, [b.label for b in bars])
        ax.invert_yaxis()
        ax.set_xlim(0, limit)
        value_axis = ax.xaxis
        ax.set_xlabel(value_label)
        if category_label:
            ax.set_ylabel(category_label)
        for pos, bar, label in zip(positions, bars, text):
            end = bar.high if bar.high is not None else bar.value
            ax.annotate(label, (end, pos), xytext=(4, 0), textcoords="offset points", va="center", fontsize=7)
        ax.grid(axis="x", color="0.88", linewidth=0.5)
    else:
        ax.bar(positions, values, yerr=errors, color=colour, width=0.6, error_kw=error_style)
        ax.set_xticks(positions, [b.label for b in bars])
        ax.set_ylim(0, limit)
        value_axis = ax.yaxis
        ax.set_ylabel(value_label)
        if category_label:
            ax.set_xlabel(category_label)
        for pos, bar, label in zip(positions, bars, text):
            end = bar.high if bar.high is not None else bar.value
            ax.annotate(label, (pos, end), xytext=(0, 3), textcoords="offset points", ha="center", fontsize=7)
        ax.grid(axis="y", color="0.88", linewidth=0.5)
    ax.set_axisbelow(True)
    value_axis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]))
    if percent_axis:
        value_axis.set_major_formatter(FuncFormatter(lambda v, _pos: percent(v)))
    if reference is not None:
        value, label = reference
        line = ax.axvline if horizontal else ax.axhline
        line(value, color=REFERENCE, linestyle=(0, (4, 2)), linewidth=0.9)
        # the line's label sits outside the plot (above it, or right of it), clear of bars and values
        if horizontal:
            ax.annotate(label, (value, 1.0), xycoords=("data", "axes fraction"), xytext=(0, 3),
                        textcoords="offset points", ha="center", va="bottom", fontsize=7, color=REFERENCE,
                        annotation_clip=False)
        else:
            ax.annotate(label, (1.0, value), xycoords=("axes fraction", "data"), xytext=(4, 0),
                        textcoords="offset points", ha="left", va="center", fontsize=7, color=REFERENCE,
                        annotation_clip=False)
    if not _finish(fig, ax) and not horizontal:   # names too long to stand side by side: list them
        plt.close(fig)
        return bar_figure(plt, bars, width, height, value_label=value_label, category_label=category_label,
                          percent_axis=percent_axis, reference=reference, horizontal=True, colour=colour)
    return fig


def nice_bin_width(low: int, high: int, max_bins: int = MAX_BINS) -> int:
    """The smallest of 1, 2, 5, 10, 20, 25, 50, 100, ... that puts low..high in at most `max_bins`
    bins starting at its multiples."""
    magnitude = 1
    while True:
        for width in (magnitude, 2 * magnitude, max(2, 25 * magnitude // 10), 5 * magnitude):
            if math.ceil((high + 1) / width) - math.floor(low / width) <= max_bins:
                return width
        magnitude *= 10


def bins(counts: dict[int, int], max_bins: int = MAX_BINS) -> tuple[int, list[tuple[int, int]]]:
    """Integer values (value -> count) grouped into equal bins starting at multiples of a nice
    width: (width, [(bin start, count), ...]) with empty bins kept."""
    low, high = min(counts), max(counts)
    width = nice_bin_width(low, high, max_bins)
    first = math.floor(low / width) * width
    grouped: dict[int, int] = {}
    for value, count in counts.items():
        start = math.floor(value / width) * width
        grouped[start] = grouped.get(start, 0) + count
    return width, [(start, grouped.get(start, 0)) for start in range(first, high + 1, width)]


def tick_step(width: int, start: int, stop: int, max_ticks: int = 7) -> int:
    """A multiple of the bin width (x 1, 2, 5, 10, ...) giving at most `max_ticks` ticks over start..stop."""
    magnitude = 1
    while True:
        for factor in (1, 2, 5):
            step = width * factor * magnitude
            if (stop - start) / step + 1 <= max_ticks:
                return step
        magnitude *= 10


def histogram_figure(plt, counts: dict[int, int], width: float, height: float, *, value_label: str, count_label: str,
                     colour: str = BAR, max_bins: int = MAX_BINS):
    """A histogram of integer values in nice bins (1, 2, 5, 10, 20, 25, ... wide) on a number
    axis: a bar covers its bin, ticks fall on bin edges at round numbers, counts on an integer axis."""
    from matplotlib.ticker import MaxNLocator, MultipleLocator

    fig = figure(plt, width, height)
    ax = fig.add_subplot()
    if counts:
        size, grouped = bins(counts, max_bins)
        # one-wide bins are centred on their value (a score of 3 is a bar over the tick 3)
        offset = 0.5 if size == 1 else 0.0
        lefts = [start - offset for start, _c in grouped]
        ax.bar(lefts, [c for _s, c in grouped], width=size * 0.92, align="edge", color=colour)
        first, last = grouped[0][0], grouped[-1][0] + size
        ax.set_xlim(first - offset - size * 0.3, last - offset + size * 0.3)
        ax.xaxis.set_major_locator(MultipleLocator(tick_step(size, first, last)))
    ax.set_xlabel(value_label)
    ax.set_ylabel(count_label)
    ax.yaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
    ax.grid(axis="y", color="0.88", linewidth=0.5)
    ax.set_axisbelow(True)
    _finish(fig, ax)
    return fig


def tick_label_boxes(fig, axis: str = "x") -> list:
    """The drawn extents (display units) of every visible tick label of `axis` in the figure."""
    renderer = fig.canvas.get_renderer()
    boxes = []
    for ax in fig.axes:
        ticks = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
        boxes.extend(t.get_window_extent(renderer) for t in ticks if t.get_visible() and t.get_text())
    return boxes


def overlapping(boxes: Sequence, gap: float = 1.0) -> list[tuple[int, int]]:
    """Index pairs of boxes that overlap or come closer than `gap` display units."""
    pairs = []
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i], boxes[j]
            if a.x0 < b.x1 + gap and b.x0 < a.x1 + gap and a.y0 < b.y1 + gap and b.y0 < a.y1 + gap:
                pairs.append((i, j))
    return pairs


def _finish(fig, ax) -> bool:
    fig.set_layout_engine("constrained", w_pad=2 / 72, h_pad=2 / 72)
    return fit_tick_labels(fig, ax)


def fit_tick_labels(fig, ax) -> bool:
    """Where x tick labels would collide (measured from the renderer's text extents), slant them;
    while numbers still do, keep every second, third, ... tick. True when the labels fit."""
    fig.canvas.draw()
    if not overlapping(tick_label_boxes(fig)):
        return True
    for label in ax.get_xticklabels():
        label.set_rotation(35)
        label.set_horizontalalignment("right")
        label.set_rotation_mode("anchor")
    fig.canvas.draw()
    ticks = list(ax.get_xticks())
    texts = [t.get_text() for t in ax.get_xticklabels()]
    numeric = all(t.replace("−", "").replace("-", "").replace(".", "").isdigit() for t in texts if t)
    step = 2
    while numeric and overlapping(tick_label_boxes(fig)) and step <= len(ticks):
        ax.set_xticks(ticks[::step], texts[::step], rotation=35, ha="right", rotation_mode="anchor")
        fig.canvas.draw()
        step += 1
    return not overlapping(tick_label_boxes(fig))


def to_chart(plt, fig) -> Chart:
    """Save the figure with matplotlib's PDF backend (no dates, so the bytes are reproducible)."""
    width, height = fig.get_size_inches() * 72
    buffer = io.BytesIO()
    fig.savefig(buffer, format="pdf", metadata={"CreationDate": None, "Creator": None, "Producer": None})
    plt.close(fig)
    return Chart(buffer.getvalue(), float(width), float(height))


def place_charts(document: bytes, placements: Sequence[Placement]) -> bytes:
    """Lay each chart's page onto its page of the ReportLab document at (x, y), as vectors."""
    if not placements:
        return document
    from pypdf import PdfReader, PdfWriter, Transformation

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(document)))
    for placement in placements:
        chart_page = PdfReader(io.BytesIO(placement.chart.pdf)).pages[0]
        writer.pages[placement.page].merge_transformed_page(
            chart_page, Transformation().translate(placement.x, placement.y), expand=False)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


# --- charts on the document kit's pages -----------------------------------------------------------

ROW_GAP = 6 * mm
TITLE_SIZE = 9.5


class ChartRows:
    """Rows of one or two charts flowing down the writer's pages; `placements` says where each
    chart's PDF goes once the ReportLab pages are finished."""

    def __init__(self, writer: PageWriter):
        self.writer = writer
        self.plt = pyplot(writer.lang)
        self.placements: list[Placement] = []

    def widths(self, count: int) -> float:
        return (self.writer.width - ROW_GAP * (count - 1)) / count

    def row(self, items: list[tuple[str, object]]) -> None:
        """Draw one row: each (title, figure) side by side, titles above, kept on one page."""
        writer = self.writer
        charts = [to_chart(self.plt, fig) for _title, fig in items]
        height = max(c.height for c in charts)
        title_h = TITLE_SIZE * 1.6
        writer.ensure(title_h + height + 3 * mm)
        x = MARGIN
        for (title, _fig), chart in zip(items, charts):
            writer.canvas.setFont(writer.font, TITLE_SIZE)
            writer.canvas.setFillColorRGB(0.15, 0.15, 0.15)
            draw_string(writer.canvas, x, writer.y - TITLE_SIZE, title, writer.lang)
            self.placements.append(Placement(writer.page - 1, x, writer.y - title_h - chart.height, chart))
            x += chart.width + ROW_GAP
        writer.y -= title_h + height + 3 * mm
