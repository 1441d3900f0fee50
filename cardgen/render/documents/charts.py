"""Small vector charts for reports: bars with 95 % intervals and histograms.

Drawn with ReportLab graphics shapes so that they stay sharp in print and embed the same
fonts as the rest of the document.
"""

from __future__ import annotations

from dataclasses import dataclass

from reportlab.graphics.shapes import Drawing, Line, Rect, String
from reportlab.lib.colors import Color

BAR = Color(0.30, 0.45, 0.70)
BAR_ALT = Color(0.85, 0.55, 0.25)
AXIS = Color(0.35, 0.35, 0.35)
GRID = Color(0.85, 0.85, 0.85)
TEXT = Color(0.15, 0.15, 0.15)


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    low: float | None = None    # interval, same unit as value
    high: float | None = None
    note: str = ""              # printed above the bar


def bar_chart(bars: list[Bar], width: float, height: float, font: str, *, maximum: float | None = None,
              percent: bool = False, reference: float | None = None, colour: Color = BAR) -> Drawing:
    """Vertical bars with optional interval whiskers and a dashed reference line."""
    drawing = Drawing(width, height)
    left, bottom, top_pad = 34.0, 30.0, 14.0
    plot_w, plot_h = width - left - 6, height - bottom - top_pad
    top = maximum if maximum is not None else max([b.high or b.value for b in bars] + [1e-9]) * 1.15
    top = top or 1.0

    def y_of(value: float) -> float:
        return bottom + plot_h * max(0.0, min(value, top)) / top

    for i in range(5):
        value = top * i / 4
        y = y_of(value)
        drawing.add(Line(left, y, left + plot_w, y, strokeColor=GRID, strokeWidth=0.5))
        label = f"{value * 100:.0f}%" if percent else (f"{value:.0f}" if top >= 4 else f"{value:.2f}")
        drawing.add(String(left - 4, y - 3, label, fontName=font, fontSize=7, fillColor=TEXT, textAnchor="end"))
    drawing.add(Line(left, bottom, left, bottom + plot_h, strokeColor=AXIS, strokeWidth=0.8))
    drawing.add(Line(left, bottom, left + plot_w, bottom, strokeColor=AXIS, strokeWidth=0.8))
    if reference is not None:
        y = y_of(reference)
        drawing.add(Line(left, y, left + plot_w, y, strokeColor=BAR_ALT, strokeWidth=0.8, strokeDashArray=[3, 2]))
    slot = plot_w / max(1, len(bars))
    bar_w = min(slot * 0.6, 40)
    for i, bar in enumerate(bars):
        x = left + slot * i + (slot - bar_w) / 2
        drawing.add(Rect(x, bottom, bar_w, y_of(bar.value) - bottom, fillColor=colour, strokeColor=None))
        cx = x + bar_w / 2
        if bar.low is not None and bar.high is not None:
            y_low, y_high = y_of(bar.low), y_of(bar.high)
            drawing.add(Line(cx, y_low, cx, y_high, strokeColor=TEXT, strokeWidth=0.8))
            drawing.add(Line(cx - 4, y_low, cx + 4, y_low, strokeColor=TEXT, strokeWidth=0.8))
            drawing.add(Line(cx - 4, y_high, cx + 4, y_high, strokeColor=TEXT, strokeWidth=0.8))
        text = bar.note or (f"{bar.value * 100:.1f}%" if percent else f"{bar.value:g}")
        drawing.add(String(cx, max(y_of(bar.value), y_of(bar.high or 0)) + 3, text, fontName=font, fontSize=7,
                           fillColor=TEXT, textAnchor="middle"))
        drawing.add(String(cx, bottom - 11, bar.label, fontName=font, fontSize=7.5, fillColor=TEXT, textAnchor="middle"))
    return drawing


def histogram(counts: dict[int, int], width: float, height: float, font: str, *, bins: int = 20,
              colour: Color = BAR) -> Drawing:
    """Histogram of integer values (value -> count), grouped into at most `bins` equal bins."""
    if not counts:
        return Drawing(width, height)
    low, high = min(counts), max(counts)
    span = high - low + 1
    size = max(1, -(-span // bins))
    groups: dict[int, int] = {}
    for value, count in counts.items():
        start = low + ((value - low) // size) * size
        groups[start] = groups.get(start, 0) + count
    bars = []
    for start in range(low, high + 1, size):
        label = str(start) if size == 1 else f"{start}–{start + size - 1}"
        bars.append(Bar(label, groups.get(start, 0), note=str(groups.get(start, 0)) if groups.get(start) else ""))
    drawing = bar_chart(bars, width, height, font, colour=colour)
    return drawing
