"""Report charts (cardgen/render/documents/charts.py): nice bins, tick labels that never
collide (measured from matplotlib's own text extents), fonts embedded in the sweep report."""

from __future__ import annotations

import io
import random

import pytest
from pypdf import PdfReader

from cardgen.render.documents.charts import (MAX_BINS, Bar, bar_figure, bins, histogram_figure, overlapping, pyplot,
                                             tick_label_boxes, to_chart)

from .test_report import unembedded_fonts

NICE = {1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000}


def lengths(low: int, high: int, games: int = 2000, seed: int = 1) -> dict[int, int]:
    rng = random.Random(seed)
    counts: dict[int, int] = {}
    for _ in range(games):
        value = round(rng.triangular(low, high))
        counts[value] = counts.get(value, 0) + 1
    return counts


@pytest.mark.parametrize("low, high", [(0, 3), (-20, 19), (126, 185), (188, 264), (612, 1837), (3, 4000)])
def test_bins_are_nice_and_keep_every_game(low, high):
    counts = lengths(low, high)
    width, grouped = bins(counts)
    assert width in NICE and len(grouped) <= MAX_BINS
    assert all(start % width == 0 for start, _c in grouped)
    assert sum(c for _s, c in grouped) == sum(counts.values())
    assert grouped[0][0] <= min(counts) and grouped[-1][0] + width > max(counts)


@pytest.mark.parametrize("width_mm", [85, 180])
@pytest.mark.parametrize("low, high", [(126, 185), (188, 264), (612, 1837), (-20, 19), (0, 5000)])
def test_histogram_tick_labels_do_not_overlap(width_mm, low, high):
    plt = pyplot("ja")
    fig = histogram_figure(plt, lengths(low, high), width_mm * 72 / 25.4, 170, value_label="Player decisions per game",
                           count_label="Games")
    fig.canvas.draw()
    for axis in ("x", "y"):
        boxes = tick_label_boxes(fig, axis)
        assert len(boxes) >= 3 and not overlapping(boxes), axis
    ticks = [float(t.get_text()) for t in fig.axes[0].get_xticklabels() if t.get_visible() and t.get_text()]
    assert all(t == int(t) for t in ticks)   # whole numbers on a count axis, not 612.5
    plt.close(fig)


def test_many_long_bar_labels_are_fitted():
    plt = pyplot("ja")
    bars = [Bar(f"情報集合モンテカルロ木探索 {i}", 0.1 * i, 0.05 * i, 0.12 * i) for i in range(1, 8)]
    fig = bar_figure(plt, bars, 240, 170, value_label="勝率", reference=(0.25, "公平な取り分 25%"))
    fig.canvas.draw()
    assert not overlapping(tick_label_boxes(fig, "x")) and not overlapping(tick_label_boxes(fig, "y"))
    plt.close(fig)


def test_a_chart_pdf_embeds_ipaex_and_keeps_japanese_as_text():
    import pypdfium2 as pdfium

    plt = pyplot("ja")
    fig = bar_figure(plt, [Bar("席1", 0.3, 0.2, 0.4), Bar("席2", 0.2, 0.1, 0.3)], 300, 200, value_label="勝率",
                     reference=(0.5, "公平な取り分 50%"))
    chart = to_chart(plt, fig)
    assert unembedded_fonts(chart.pdf) == []
    fonts = {str(f.get_object()["/BaseFont"]) for p in PdfReader(io.BytesIO(chart.pdf)).pages
             for f in p["/Resources"]["/Font"].values()}
    assert fonts and all("IPAexGothic" in f for f in fonts)
    text = pdfium.PdfDocument(chart.pdf)[0].get_textpage().get_text_range()
    assert "公平な取り分" in text and "勝率" in text
    assert abs(chart.width - 300) < 0.5 and abs(chart.height - 200) < 0.5


def test_sweep_report_embeds_every_font(tmp_path):
    from cardgen.analysis.overrides import parse_vary
    from cardgen.analysis.sweep import SweepSpec, run_sweep
    from cardgen.load import load_game
    from cardgen.render.documents.sweep_report import write_sweep_report

    spec = SweepSpec("ohanatsumi", (parse_vary("elf_urge_default=0..2"),), games=20, seed=3, players=3)
    result = run_sweep(spec, out_dir=tmp_path)
    path = write_sweep_report(load_game("ohanatsumi"), result, tmp_path / "sweep.pdf", "en")
    assert unembedded_fonts(path.read_bytes()) == []
