"""Imposition of home-print sheets, read back from the PDFs with pypdf and pypdfium2."""

from __future__ import annotations

import dataclasses
import itertools
import math

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from cardgen.errors import CardgenError
from cardgen.load import load_game
from cardgen.render.cards import card as card_render
from cardgen.render.print.sheet import (
    CAL_STEP_MM,
    MARK_WIDTH_PT,
    PAPERS,
    calibration_geometry,
    calibration_pdf,
    compute_layout,
    crop_mark_lines,
    mirror_position,
    plan_sheets,
    sheets_pdf,
)

PT = 72 / 25.4  # points per mm
POKER = (63.5, 88.9)
SIZES = {"poker": POKER, "bridge": (57.15, 88.9), "mini": (44.0, 68.0), "euro": (59.0, 92.0), "tarot": (70.0, 120.0)}


# --- reading PDFs back ---------------------------------------------------------------------


@dataclasses.dataclass
class Placed:
    name: str  # form name without the FormXob. prefix, e.g. c0003_LL04_front / back_default
    x: float  # lower-left of the form (card + bleed), mm
    y: float
    w: float
    h: float


def _mul(a, b):
    """Concatenate PDF matrices: a then b (a * b)."""
    a0, a1, a2, a3, a4, a5 = a
    b0, b1, b2, b3, b4, b5 = b
    return (a0 * b0 + a1 * b2, a0 * b1 + a1 * b3, a2 * b0 + a3 * b2, a2 * b1 + a3 * b3,
            a4 * b0 + a5 * b2 + b4, a4 * b1 + a5 * b3 + b5)


def read_page(reader: PdfReader, page) -> tuple[list[Placed], list[tuple[float, float, float, float, float]]]:
    """Form placements and stroked line segments (x1, y1, x2, y2 mm, width pt) drawn on a page."""
    content = ContentStream(page.get_contents(), reader)
    xobjects = page["/Resources"].get("/XObject", {})
    ctm = (1, 0, 0, 1, 0, 0)
    stack, placed, segs, path = [], [], [], []
    width, start = 1.0, None
    for operands, op in content.operations:
        if op == b"q":
            stack.append((ctm, width))
        elif op == b"Q":
            ctm, width = stack.pop()
        elif op == b"cm":
            ctm = _mul(tuple(float(v) for v in operands), ctm)
        elif op == b"w":
            width = float(operands[0])
        elif op == b"m":
            start = (float(operands[0]), float(operands[1]))
        elif op == b"l":
            end = (float(operands[0]), float(operands[1]))
            path.append((start, end))
            start = end
        elif op == b"S":
            for (x1, y1), (x2, y2) in path:
                p1 = (x1 * ctm[0] + y1 * ctm[2] + ctm[4], x1 * ctm[1] + y1 * ctm[3] + ctm[5])
                p2 = (x2 * ctm[0] + y2 * ctm[2] + ctm[4], x2 * ctm[1] + y2 * ctm[3] + ctm[5])
                segs.append((p1[0] / PT, p1[1] / PT, p2[0] / PT, p2[1] / PT, width))
            path = []
        elif op == b"n":
            path = []
        elif op == b"Do":
            name = str(operands[0])
            form = xobjects[name].get_object()
            x0, y0, x1, y1 = (float(v) for v in form["/BBox"])
            assert ctm[0] == 1 and ctm[3] == 1, "cards are placed unrotated and unscaled"
            placed.append(Placed(name.removeprefix("/FormXob."), (ctm[4] + x0) / PT, (ctm[5] + y0) / PT, (x1 - x0) / PT, (y1 - y0) / PT))
    return placed, segs


def card_of(placed: Placed) -> tuple[str, str]:
    """(card id, side) from a per-card form name such as c0003_LL04_front."""
    _, rest = placed.name.split("_", 1)
    card_id, side = rest.rsplit("_", 1)
    return card_id, side


def _pdf(data: bytes, tmp_path, name="s.pdf") -> PdfReader:
    path = tmp_path / name
    path.write_bytes(data)
    return PdfReader(str(path))


@pytest.fixture(scope="module")
def llll():
    return load_game("llll")


@pytest.fixture(scope="module")
def llll_pairs(llll):
    return card_render.faces(llll)


# --- grid ------------------------------------------------------------------------------------


def test_three_by_three_poker_fit_a4_and_letter_without_bleed():
    for paper in ("a4", "letter"):
        layout = compute_layout(paper, *POKER)
        assert (layout.cols, layout.rows) == (3, 3)
        W, H = PAPERS[paper]
        # computed independently: the 3 x 3 block centred on the paper
        left, top = (W - 3 * 63.5) / 2, H - (H - 3 * 88.9) / 2
        for slot in range(9):
            r, c = divmod(slot, 3)
            x, y = layout.front_position(slot)
            assert x == pytest.approx(left + c * 63.5, abs=1e-6)
            assert y == pytest.approx(top - (r + 1) * 88.9, abs=1e-6)
    assert compute_layout("a4", *POKER).front_position(0) == pytest.approx((9.75, 192.95))
    # Letter's top and bottom margins are only 6.35 mm: the footer goes along a side
    assert compute_layout("letter", *POKER).footer_side in ("left", "right")
    assert compute_layout("a4", *POKER).footer_side == "bottom"


def test_bleed_on_every_card_takes_fewer_cards_never_clips():
    a4 = compute_layout("a4", *POKER, bleed=3.0)
    assert (a4.cols, a4.rows) == (2, 3)  # 3 x 69.5 = 208.5 mm > 200 mm printable
    letter = compute_layout("letter", *POKER, bleed=3.0)
    assert (letter.cols, letter.rows) == (2, 2)  # 3 x 94.9 = 284.7 mm > 269.4 mm
    # 3 x 3 with bleed needs 208.5 mm: 1.5 mm of A4's width to spare in all (design notes)
    assert compute_layout("a4", *POKER, bleed=3.0, margin=0.7, crop_marks="none").per_sheet == 9
    assert compute_layout("a4", *POKER, bleed=3.0, margin=0.8, crop_marks="none").per_sheet == 6


def test_impossible_layout_is_a_clear_error():
    with pytest.raises(CardgenError, match="does not fit on A4.*use less bleed"):
        compute_layout("a4", 300.0, 100.0)
    with pytest.raises(CardgenError, match="does not fit"):
        compute_layout("letter", *SIZES["tarot"], bleed=10, margin=70)
    with pytest.raises(CardgenError, match="bleed must be 0 mm or more"):
        compute_layout("a4", *POKER, bleed=-1)


@pytest.mark.parametrize("paper,size,bleed,gutter,marks", [
    (p, s, b, g, m)
    for p, s, b, g, m in itertools.product(PAPERS, SIZES, (0.0, 3.0, 3.175), (0.0, 2.0, 5.0), ("corners", "lines", "none"))
])
def test_every_layout_keeps_cards_in_the_printable_area_and_marks_outside_cards(paper, size, bleed, gutter, marks):
    layout = compute_layout(paper, *SIZES[size], bleed=bleed, gutter=gutter, crop_marks=marks)
    W, H = PAPERS[paper]
    w, h = SIZES[size]
    m = layout.margin
    areas = []
    for slot in range(layout.per_sheet):
        x, y = layout.front_position(slot)
        box = (x - bleed, y - bleed, x + w + bleed, y + h + bleed)
        assert box[0] >= m - 1e-6 and box[1] >= m - 1e-6 and box[2] <= W - m + 1e-6 and box[3] <= H - m + 1e-6
        for other in areas:
            assert box[2] <= other[0] + 1e-6 or other[2] <= box[0] + 1e-6 or box[3] <= other[1] + 1e-6 or other[3] <= box[1] + 1e-6
        areas.append(box)
    # as many as fit: one more column or row would not
    assert (layout.cols + 1) * (w + 2 * bleed) + layout.cols * gutter > W - 2 * m
    segs = crop_mark_lines(layout, [layout.front_position(s) for s in range(layout.per_sheet)])
    if marks == "none":
        assert segs == []
        return
    trims = [(x, y, x + w, y + h) for x, y in (layout.front_position(s) for s in range(layout.per_sheet))]
    for seg in segs:
        assert not any(_crosses(seg, box) for box in trims)
        assert 0 <= min(seg[0], seg[2]) and max(seg[0], seg[2]) <= W and 0 <= min(seg[1], seg[3]) and max(seg[1], seg[3]) <= H
        # inside the printable area: never within the printer margin of the paper edge
        assert m - 1e-6 <= min(seg[0], seg[2]) and max(seg[0], seg[2]) <= W - m + 1e-6
        assert m - 1e-6 <= min(seg[1], seg[3]) and max(seg[1], seg[3]) <= H - m + 1e-6
    # every cut position gets a mark at both ends of the block (and more across wide gutters)
    xs = {round(x, 3) for s in range(layout.per_sheet) for x in (layout.front_position(s)[0], layout.front_position(s)[0] + w)}
    for x in xs:
        assert sum(1 for s in segs if s[0] == s[2] and abs(s[0] - x) < 1e-3) >= 2


def _crosses(seg, box, eps=1e-6) -> bool:
    x1, y1, x2, y2 = seg
    lo_x, hi_x, lo_y, hi_y = min(x1, x2), max(x1, x2), min(y1, y2), max(y1, y2)
    return lo_x < box[2] - eps and hi_x > box[0] + eps and lo_y < box[3] - eps and hi_y > box[1] + eps


def test_mirror_positions():
    page, size = (210.0, 297.0), POKER
    assert mirror_position((9.75, 192.95), size, page, "long") == pytest.approx((210 - 9.75 - 63.5, 192.95))
    assert mirror_position((9.75, 192.95), size, page, "short") == pytest.approx((9.75, 297 - 192.95 - 88.9))
    assert mirror_position((9.75, 192.95), size, page, "long", (0.5, -1)) == pytest.approx((137.25, 191.95))
    assert mirror_position((9.75, 192.95), size, page, "none", (0.5, -1)) == (9.75, 192.95)


def test_plan_sheets_keeps_the_last_partial_sheet():
    layout = compute_layout("a4", *POKER)
    sheets = plan_sheets(layout, 32, "long")
    assert [len(s) for s in sheets] == [9, 9, 9, 5]
    assert [p.index for s in sheets for p in s] == list(range(32))


# --- the PDF -------------------------------------------------------------------------------


def test_sheet_pdf_positions_duplex_and_marks(llll, llll_pairs, tmp_path):
    layout = compute_layout("a4", *POKER)
    offset = (0.6, -0.4)
    data = sheets_pdf(llll, llll_pairs, layout, "long", offset, "en")
    reader = _pdf(data, tmp_path)
    assert len(reader.pages) == 2 * 4 + 1  # front, back for each of 4 sheets, and the checklist
    for page in reader.pages:
        assert float(page.mediabox.width) == pytest.approx(210 * PT, abs=0.01)
        assert float(page.mediabox.height) == pytest.approx(297 * PT, abs=0.01)
    seen = []
    for n in range(4):
        fronts, front_segs = read_page(reader, reader.pages[2 * n])
        backs, back_segs = read_page(reader, reader.pages[2 * n + 1])
        assert len(fronts) == len(backs) == (9 if n < 3 else 5)
        for slot, (f, b) in enumerate(zip(fronts, backs)):
            card_id, side = card_of(f)
            assert side == "front"
            seen.append(card_id)
            r, c = divmod(slot, 3)
            assert f.x == pytest.approx(9.75 + 63.5 * c, abs=0.1)
            assert f.y == pytest.approx(297 - 15.15 - 88.9 * (r + 1), abs=0.1)
            # long edge: mirrored left-right, then the offset
            assert b.x == pytest.approx(210 - f.x - 63.5 + offset[0], abs=0.1)
            assert b.y == pytest.approx(f.y + offset[1], abs=0.1)
            assert b.name == "back_default"
        for segs in (front_segs, back_segs):
            assert len(segs) >= 8
            assert all(width >= 0.25 for *_, width in segs)
            boxes = [(p.x, p.y, p.x + p.w, p.y + p.h) for p in (fronts if segs is front_segs else backs)]
            assert not any(_crosses(s[:4], box) for s in segs for box in boxes)
    assert seen == [card.id for card in llll.cards]
    assert MARK_WIDTH_PT >= 0.25
    text = reader.pages[0].extract_text()
    assert "sheet 1 of 4" in text and "LL01" in text and "LL09" in text and "100 %" in text and "actual size" in text
    assert "sheet 4 of 4" in reader.pages[7].extract_text()


def test_short_edge_duplex_mirrors_top_bottom_on_letter(llll, llll_pairs, tmp_path):
    layout = compute_layout("letter", *POKER, crop_marks="lines")
    offset = (-1.0, 0.75)
    reader = _pdf(sheets_pdf(llll, llll_pairs, layout, "short", offset, "ja"), tmp_path)
    fronts, _ = read_page(reader, reader.pages[0])
    backs, segs = read_page(reader, reader.pages[1])
    W, H = PAPERS["letter"]
    for f, b in zip(fronts, backs):
        assert b.x == pytest.approx(f.x + offset[0], abs=0.1)
        assert b.y == pytest.approx(H - f.y - 88.9 + offset[1], abs=0.1)
        assert f.x >= 5 and f.x + f.w <= W - 5 and f.y >= 5 and f.y + f.h <= H - 5
    assert "シート 1/4" in reader.pages[0].extract_text()
    # lines mode: cut lines reach across the margins, each with some part in the printable area
    for x1, y1, x2, y2, _ in segs:
        assert math.hypot(x2 - x1, y2 - y1) > 0.5


def test_own_backs_land_behind_their_own_fronts(llll, monkeypatch, tmp_path):
    real = card_render.faces

    def faces_with_own_backs(game):
        out = []
        for i, (front, back) in enumerate(real(game)):
            own = i % 4 == 1
            out.append((dataclasses.replace(front, own_back=own), dataclasses.replace(back, own_back=own)))
        return out

    monkeypatch.setattr(card_render, "faces", faces_with_own_backs)
    pairs = card_render.faces(llll)
    for duplex in ("long", "short"):
        layout = compute_layout("a4", *POKER)
        reader = _pdf(sheets_pdf(llll, pairs, layout, duplex, (0.3, 0.2), "en"), tmp_path, f"{duplex}.pdf")
        checked = 0
        for n in range(0, len(reader.pages) - 1, 2):  # the last page is the checklist
            fronts = {card_of(p)[0]: p for p in read_page(reader, reader.pages[n])[0]}
            for b in read_page(reader, reader.pages[n + 1])[0]:
                if b.name.startswith("back_"):
                    continue
                card_id, side = card_of(b)
                assert side == "back"
                f = fronts[card_id]
                expected = mirror_position((f.x, f.y), (f.w, f.h), (210.0, 297.0), duplex, (0.3, 0.2))
                assert (b.x, b.y) == pytest.approx(expected, abs=0.1)
                checked += 1
        assert checked == 8


def test_sheet_pdf_with_bleed_and_gutter(llll, llll_pairs, tmp_path):
    layout = compute_layout("a4", *POKER, bleed=3.0, gutter=2.0)
    reader = _pdf(sheets_pdf(llll, llll_pairs, layout, "long", (0, 0), "en"), tmp_path)
    fronts, segs = read_page(reader, reader.pages[0])
    assert len(fronts) == layout.per_sheet == 4  # 3 rows need 3 x 94.9 + 2 x 2 = 288.7 > 287 mm
    assert fronts[0].w == pytest.approx(63.5 + 6, abs=0.01)
    assert fronts[1].x - fronts[0].x == pytest.approx(63.5 + 6 + 2, abs=0.01)
    boxes = [(p.x, p.y, p.x + p.w, p.y + p.h) for p in fronts]
    assert segs and not any(_crosses(s[:4], box) for s in segs for box in boxes)


# --- calibration ---------------------------------------------------------------------------


def _front_view(point, duplex, page, e):
    """Where a point printed at `point` on the back page, shifted by the printer's error `e`,
    is seen from the front (long edge: mirrored left-right; short edge: top-bottom)."""
    x, y = point[0] + e[0], point[1] + e[1]
    return (page[0] - x, y) if duplex == "long" else (x, page[1] - y)


@pytest.mark.parametrize("duplex", ["long", "short"])
@pytest.mark.parametrize("printed_with", [(0.0, 0.0), (0.5, -0.75)])
@pytest.mark.parametrize("error", [(0.0, 0.0), (1.0, -0.5), (-1.25, 2.0), (0.25, 0.75)])
def test_calibration_reads_the_offset_that_puts_backs_behind_fronts(duplex, printed_with, error):
    layout = compute_layout("a4", *POKER)
    page = (layout.page_w, layout.page_h)
    geo = calibration_geometry(layout, duplex, printed_with)
    # the X reading: the tick that a line from the back continues
    x_hits = [v for v, tick, seg in zip(geo.values, geo.x_ticks, geo.x_lines)
              if abs(_front_view(seg[:2], duplex, page, error)[0] - tick) < 1e-6]
    y_hits = [v for v, tick, seg in zip(geo.values, geo.y_ticks, geo.y_lines)
              if abs(_front_view(seg[:2], duplex, page, error)[1] - tick) < 1e-6]
    assert len(x_hits) == len(y_hits) == 1
    reading = (x_hits[0], y_hits[0])
    # with that reading as --back-offset, every back lands exactly behind its front
    for slot in range(layout.per_sheet):
        fx, fy = layout.front_position(slot)
        bx, by = layout.back_position(slot, duplex, reading)
        corner = (bx + POKER[0], by) if duplex == "long" else (bx, by + POKER[1])
        seen = _front_view(corner, duplex, page, error)
        assert seen == pytest.approx((fx, fy), abs=1e-6)
    assert all(abs(v / CAL_STEP_MM - round(v / CAL_STEP_MM)) < 1e-9 for v in reading)


def test_calibration_pdf(tmp_path):
    layout = compute_layout("letter", *POKER)
    reader = _pdf(calibration_pdf(layout, "long", (0.5, -1), "en"), tmp_path)
    assert len(reader.pages) == 2
    assert "--back-offset" in reader.pages[0].extract_text()
    _, back_segs = read_page(reader, reader.pages[1])
    assert len(back_segs) == 2 * 25
    with pytest.raises(CardgenError, match="--duplex long or --duplex short"):
        calibration_pdf(layout, "none")
    # pypdfium2 renders the scales (dark pixels around the X vernier's baseline)
    pdf = pdfium.PdfDocument(str(tmp_path / "s.pdf"))
    image = pdf[0].render(scale=300 / 72).to_pil().convert("L")
    pdf.close()
    geo = calibration_geometry(layout, "long", (0.5, -1))
    px = lambda v: round(v / 25.4 * 300)  # noqa: E731
    row = px(layout.page_h - geo.x_base - 2)  # 2 mm up the ticks
    dark = [x for x in range(image.width) if image.getpixel((x, row)) < 128]
    assert len(dark) >= 20


def test_footer_always_fits_its_margin(llll):
    from reportlab.lib.units import mm

    from cardgen.fonts import GOTHIC, register_fonts, string_width
    from cardgen.render.print.sheet import footer_length_mm, footer_text

    register_fonts()
    for paper, size in itertools.product(PAPERS, SIZES):
        layout = compute_layout(paper, *SIZES[size])
        ids = [f"VERY-LONG-CARD-ID-{n:03d}" for n in range(layout.per_sheet)]
        for lang, duplex in itertools.product(("ja", "en"), ("long", "short", "none")):
            text, pt = footer_text(llll, layout, 12, 15, "back", ids, duplex, lang, footer_length_mm(layout))
            assert string_width(text, GOTHIC, pt, lang) <= footer_length_mm(layout) * mm  # as set: English in Liberation Sans
            assert pt >= 4.5
            assert ("100 %" in text) and (ids[0] in text)


def test_standard_sheet_drops_an_empty_text_column_and_lines_up_suits():
    """ohanatsumi's mapping shows no card text: its table has no empty 内容 column (the
    must-print table keeps its own); alice's shows card texts and keeps it. A '10' takes the
    room every rank gets before its suits, so the suits of a cell stand in one column."""
    import io as _io

    from pypdf import PdfReader as _Reader

    from cardgen.mapping import StandardCard
    from cardgen.render.documents.standard_sheet import CardChips, build_standard_sheet

    def text_of(game_id: str) -> str:
        pdf = build_standard_sheet(load_game(game_id), "ja", "a4")
        return "".join(page.extract_text() for page in _Reader(_io.BytesIO(pdf)).pages)

    assert text_of("ohanatsumi").count("内容") == 1
    assert text_of("alice").count("内容") == 2
    chips = CardChips([(StandardCard(6, "spades"), 1), (StandardCard(10, "spades"), 1)], "ja")
    (six, _), (ten, _) = chips._items()
    assert six == ten


def test_checklist_names_never_overprint_long_card_numbers(tmp_path):
    """The checklist's number column is as wide as the widest card number; generated ids
    (merchant-1) are not printed at all, only names."""
    import io

    from reportlab.pdfgen.canvas import Canvas

    from cardgen.render.print.sheet import draw_checklist
    from cardgen.scaffold import new_game

    game = load_game("ohanatsumi")
    long_numbers = dataclasses.replace(game, cards=tuple(dataclasses.replace(c, id=f"OH-LONGNUMBER-{c.id}") for c in game.cards))
    for subject, numbered in ((long_numbers, True), (load_game(new_game(tmp_path / "starter")), False)):
        buffer = io.BytesIO()
        c = Canvas(buffer)
        pairs = card_render.faces(subject)
        draw_checklist(c, subject, pairs, compute_layout("a4", *POKER), "ja", 1)
        c.save()
        doc = pdfium.PdfDocument(buffer.getvalue())
        page = doc[0].get_textpage()
        text = page.get_text_range()
        first = pairs[0][0].card
        assert (first.id in text) == numbered
        name = first.name.get("ja")
        at = text.find(name)
        name_left = page.get_charbox(at)[0]
        if numbered:
            id_at = text.find(first.id)
            assert page.get_charbox(id_at + len(first.id) - 1)[2] < name_left   # the number ends before the name
        doc.close()
