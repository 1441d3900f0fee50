"""The document kit: every document on A4 or Letter (`--paper`), read back from the PDFs."""

from __future__ import annotations

import io

import pytest
from click.testing import CliRunner
from pypdf import PdfReader
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics

from cardgen.cli import cli
from cardgen.fonts import register_fonts
from cardgen.load import load_game
from cardgen.render.documents.pages import PageWriter
from cardgen.render.documents.paragraph import TextBlock, TStyle
from cardgen.render.documents.playtest import build_playtest
from cardgen.analysis.balance import run_report
from cardgen.render.documents.report import build_balance_report
from cardgen.render.documents.rulebook import build_rulebook
from cardgen.render.documents.standard_sheet import build_standard_sheet

PAPER_PT = {"a4": (210 * mm, 297 * mm), "letter": (8.5 * 72, 11 * 72)}


def page_sizes(data: bytes) -> set[tuple[float, float]]:
    return {(round(float(p.mediabox.width), 1), round(float(p.mediabox.height), 1)) for p in PdfReader(io.BytesIO(data)).pages}


def expected(paper: str) -> set[tuple[float, float]]:
    w, h = PAPER_PT[paper]
    return {(round(w, 1), round(h, 1))}


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_rulebook_on_either_paper(paper):
    data = build_rulebook(load_game("llll"), "en", paper)
    assert page_sizes(data) == expected(paper)
    # the text block follows the paper: a Letter page is wider, so its lines are too
    assert len(PdfReader(io.BytesIO(data)).pages) >= 4


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_standard_sheet_on_either_paper(paper):
    assert page_sizes(build_standard_sheet(load_game("requiem"), "ja", paper)) == expected(paper)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_playtest_kit_on_either_paper(paper):
    assert page_sizes(build_playtest(load_game("ohanatsumi"), "en", paper)) == expected(paper)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_balance_report_on_either_paper(paper):
    game = load_game("alice")
    results = run_report(game, games=20, seed=1, workers=1)
    assert page_sizes(build_balance_report(game, "en", results, paper)) == expected(paper)


def test_mapping_sheet_and_report_commands_take_paper(tmp_path, monkeypatch):
    runner = CliRunner()
    monkeypatch.chdir(tmp_path)  # `mapping --sheet` writes under ./output
    result = runner.invoke(cli, ["mapping", "requiem", "--sheet", "en", "--paper", "letter"])
    assert result.exit_code == 0, result.output
    sheet = (tmp_path / "output" / "requiem" / "requiem-standard-deck-en.pdf").read_bytes()
    assert page_sizes(sheet) == expected("letter")
    result = runner.invoke(cli, ["report", "alice", "--games", "10", "--seed", "1", "--out", str(tmp_path),
                                 "--lang", "en", "--workers", "1", "--paper", "letter"])
    assert result.exit_code == 0, result.output
    assert page_sizes((tmp_path / "alice" / "alice-balance-en.pdf").read_bytes()) == expected("letter")


def test_build_paper_reaches_every_document(tmp_path):
    result = CliRunner().invoke(cli, ["build", "requiem", "--only", "rules", "--only", "standard", "--only", "playtest",
                                      "--paper", "letter", "--out", str(tmp_path), "--workers", "1"])
    assert result.exit_code == 0, result.output
    pdfs = sorted((tmp_path / "requiem").glob("requiem-*.pdf"))
    names = {p.name for p in pdfs}
    assert {"requiem-rules-ja.pdf", "requiem-rules-en.pdf", "requiem-standard-deck.pdf", "requiem-playtest.pdf"} <= names
    for pdf in pdfs:
        assert page_sizes(pdf.read_bytes()) == expected("letter"), pdf.name


def test_page_writer_paragraph_is_the_kits_paragraph():
    """PageWriter sets a paragraph exactly as the kit's TextBlock breaks it (one line breaker)."""
    gothic, _ = register_fonts()
    text = "ゲームを始める前に、すべてのカードを混ぜてシャッフルし、1つの山にしてください。山置き場・捨て札置き場・捜査記録・メモの場所を空けておきます。" * 2
    buffer = io.BytesIO()
    writer = PageWriter.create(buffer, load_game("alice"), "ja", "test")
    top = writer.y
    writer.paragraph(text, size=9.5, gap=0)
    block = TextBlock([(text, False)], "ja", TStyle(gothic, gothic, 9.5, 9.5 * 1.45, (0, 0, 0)))
    block.wrap(writer.width, 1000)
    assert abs((top - writer.y) - len(block.lines) * 9.5 * 1.45) < 0.01
    assert len(block.lines) >= 3
    # justified: every line but the last is set to the full measure
    assert all(abs(line.width - writer.width) < 0.01 for line in block.lines[:-1])
    assert block.lines[-1].width < writer.width


def test_a_justified_line_is_a_few_shows_with_every_character_where_the_breaker_spaced_it():
    """A justified Japanese line is drawn as a few text shows (runs spaced out by character spacing),
    not one show per character, and every character still lands where the line breaker put it:
    the room of the line shared equally between its stretch points (read back with PDFium)."""
    import ctypes

    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_raw
    from pypdf.generic import ContentStream
    from reportlab.pdfgen.canvas import Canvas

    from cardgen.text import stretch_points

    gothic, _ = register_fonts()
    text = "手札から3枚のカードを選んで場に出し、残りは山札の下に戻します。次の手番まで待ちます。" * 3
    style = TStyle(gothic, gothic, 9.5, 14.0, (0, 0, 0))
    block = TextBlock([(text, False)], "ja", style)
    width = 300.0
    block.wrap(width, 1000)
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(400, 400), initialFontName=gothic)
    block.drawOn(canvas, 50, 100)
    canvas.save()
    data = buffer.getvalue()

    page = PdfReader(io.BytesIO(data)).pages[0]
    shows = sum(op in (b"Tj", b"TJ") for _, op in ContentStream(page.get_contents(), page.pdf).operations)
    assert len(block.lines) >= 4
    assert shows <= 4 * len(block.lines) < len(text) / 4

    textpage = pdfium.PdfDocument(data)[0].get_textpage()
    origins = []
    for i in range(textpage.count_chars()):
        if pdfium_raw.FPDFText_IsGenerated(textpage.raw, i) == 1 or textpage.get_text_range(i, 1) in "\r\n":
            continue
        x, y = ctypes.c_double(), ctypes.c_double()
        pdfium_raw.FPDFText_GetCharOrigin(textpage.raw, i, x, y)
        origins.append(x.value)
    assert len(origins) == len(text)
    start = 0
    for number, line in enumerate(block.lines):
        end = start + sum(len(piece[1]) for piece in line.pieces)
        widths = [pdfmetrics.stringWidth(ch, gothic, 9.5) for ch in text[start:end]]
        cuts = stretch_points(text, start, end) if number < len(block.lines) - 1 else []
        extra = (width - sum(widths)) / len(cuts) if cuts else 0.0
        x = 50.0
        for k in range(start, end):
            if k in cuts:
                x += extra
            assert abs(origins[k] - x) < 0.01, (number, text[k])
            x += widths[k - start]
        start = end


def test_a_rulebook_is_laid_out_in_one_pass(monkeypatch):
    """The contents and the folios ("n / total") need pages only known at the end: they are late
    forms, so the book is built once and each heading placed once, where the contents says."""
    from cardgen.render.documents import toc
    from cardgen.render.documents.rulebook import build_rulebook

    builds, placed = [], []
    build, after = toc.OnePassDocTemplate.build, toc._DocTemplate.afterFlowable
    monkeypatch.setattr(toc.OnePassDocTemplate, "build", lambda self, *a, **k: builds.append(1) or build(self, *a, **k))
    monkeypatch.setattr(toc._DocTemplate, "afterFlowable",
                        lambda self, f: (placed.append(f.key) if toc._in_contents(f) else None, after(self, f))[1])
    pdf = build_rulebook(load_game("alice"), "en")
    assert builds == [1]
    assert len(placed) == len(set(placed)) > 5
    def flat(entries):
        return sum((flat(e) if isinstance(e, list) else [e] for e in entries), [])
    assert len(flat(PdfReader(io.BytesIO(pdf)).outline)) == len(placed)


def test_a_cell_works_out_its_characters_fonts_once_for_measuring_and_breaking(monkeypatch):
    """A table cell is measured for its column (natural and least width) and broken, perhaps at
    several widths: each character's font is decided once, and every width adds the same advances."""
    gothic, _ = register_fonts()
    made = []
    new_fonts = TextBlock._new_fonts
    monkeypatch.setattr(TextBlock, "_new_fonts", lambda self: made.append(self) or new_fonts(self))
    cell = TextBlock("Draw 2 cards, then discard one card.", "en", TStyle(gothic, gothic, 9, 13, (0, 0, 0)))
    natural, least = cell.natural_width(), cell.min_width()
    cell.wrap(400, 100)
    cell.wrap(60, 100)
    assert made == [cell]
    fonts = cell._fonts()
    assert natural == pytest.approx(sum(pdfmetrics.stringWidth(ch, f, 9) for ch, f in zip(cell.plain, fonts)))
    assert least == pytest.approx(pdfmetrics.stringWidth("discard", fonts[cell.plain.index("discard")], 9))
    assert len(cell.lines) > 1
