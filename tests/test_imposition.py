"""Issue 11 part A, read back from the PDFs (positions in mm): home-sheet bleed on 9-up A4 and
Letter, crop marks inside the printable area, gutterfold and simplex impositions, the
checklist page, ink saver, corner guides and --paper on every document."""

from __future__ import annotations

import dataclasses
import io
import itertools

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from cardgen.build import build_game, make_options
from cardgen.errors import CardgenError
from cardgen.load import bundled_game_ids, load_game
from cardgen.render.cards import card as card_render
from cardgen.render.print.sheet import MARK_WIDTH_PT, PAPERS, compute_fold_layout, compute_layout, sheets_pdf

from .test_sheet import SIZES, _mul

PT = 72 / 25.4
POKER = (63.5, 88.9)
MARGIN = 5.0


@dataclasses.dataclass
class Form:
    name: str
    x0: float  # the form's box (card + bleed) on the page, mm
    y0: float
    x1: float
    y1: float
    rotated: bool

    def trim(self, w: float, h: float) -> tuple[float, float, float, float]:
        cx, cy = (self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2
        return cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2

    @property
    def card_id(self) -> str:
        return self.name.split("_", 1)[1].rsplit("_", 1)[0]


def read(reader: PdfReader, page):
    """Forms placed (rotation allowed) and stroked segments (x1, y1, x2, y2 mm, width pt, dashed)."""
    content = ContentStream(page.get_contents(), reader)
    xobjects = page["/Resources"].get("/XObject", {})
    ctm, width, dashed = (1, 0, 0, 1, 0, 0), 1.0, False
    stack, forms, segs, path, start = [], [], [], [], None
    for operands, op in content.operations:
        if op == b"q":
            stack.append((ctm, width, dashed))
        elif op == b"Q":
            ctm, width, dashed = stack.pop()
        elif op == b"cm":
            ctm = _mul(tuple(float(v) for v in operands), ctm)
        elif op == b"w":
            width = float(operands[0])
        elif op == b"d":
            dashed = bool(len(operands[0]))
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
                segs.append((p1[0] / PT, p1[1] / PT, p2[0] / PT, p2[1] / PT, width, dashed))
            path = []
        elif op == b"n":
            path = []
        elif op == b"Do":
            name = str(operands[0])
            bx0, by0, bx1, by1 = (float(v) for v in xobjects[name].get_object()["/BBox"])
            pts = [(x * ctm[0] + y * ctm[2] + ctm[4], x * ctm[1] + y * ctm[3] + ctm[5]) for x in (bx0, bx1) for y in (by0, by1)]
            xs, ys = [p[0] / PT for p in pts], [p[1] / PT for p in pts]
            forms.append(Form(name.removeprefix("/FormXob."), min(xs), min(ys), max(xs), max(ys), ctm[0] < 0))
    return forms, segs


def marks(segs):
    return [s[:4] for s in segs if abs(s[4] - MARK_WIDTH_PT) < 1e-6 and not s[5]]


def _inside(seg, box, eps=1e-6) -> bool:
    x1, y1, x2, y2 = seg
    return (min(x1, x2) < box[2] - eps and max(x1, x2) > box[0] + eps
            and min(y1, y2) < box[3] - eps and max(y1, y2) > box[1] + eps)


@pytest.fixture(scope="module")
def llll():
    return load_game("llll")


@pytest.fixture(scope="module")
def pairs(llll):
    return card_render.faces(llll)


def _reader(data: bytes) -> PdfReader:
    return PdfReader(io.BytesIO(data))


# --- home bleed on 9-up sheets -------------------------------------------------------------


def _check_bleed_sheet(reader: PdfReader, paper: str, min_bleed: float) -> dict[str, float]:
    """Every sheet page: cards with bleed inside the printable area, neighbours' bleeds meeting,
    marks outside the cards and >= 5 mm from the paper edge, every cut line marked. Returns the
    smallest bleed seen on each edge."""
    W, H = PAPERS[paper]
    w, h = POKER
    seen = {"left": 99.0, "right": 99.0, "top": 99.0, "bottom": 99.0}
    for page in reader.pages[:-1]:  # the last page is the checklist
        forms, segs = read(reader, page)
        assert len(forms) in range(1, 10)
        trims = [f.trim(w, h) for f in forms]
        for f, t in zip(forms, trims):
            edges = {"left": t[0] - f.x0, "right": f.x1 - t[2], "bottom": t[1] - f.y0, "top": f.y1 - t[3]}
            for k, v in edges.items():
                seen[k] = min(seen[k], v)
                assert v >= min_bleed - 1e-3, (k, v)
            # the bleed reaches no further than the printable area
            assert f.x0 >= MARGIN - 1e-3 and f.y0 >= MARGIN - 1e-3 and f.x1 <= W - MARGIN + 1e-3 and f.y1 <= H - MARGIN + 1e-3
        for a, b in itertools.combinations(forms, 2):  # bleeds meet, never overlap
            overlap_x = min(a.x1, b.x1) - max(a.x0, b.x0)
            overlap_y = min(a.y1, b.y1) - max(a.y0, b.y0)
            assert min(overlap_x, overlap_y) <= 1e-3
        ms = marks(segs)
        assert ms
        for m in ms:
            assert not any(_inside(m, t) for t in trims)
            for x in (m[0], m[2]):
                assert MARGIN - 1e-3 <= x <= W - MARGIN + 1e-3
            for y in (m[1], m[3]):
                assert MARGIN - 1e-3 <= y <= H - MARGIN + 1e-3
        # every cut line has a mark on it
        for x in {round(v, 2) for t in trims for v in (t[0], t[2])}:
            assert any(m[0] == pytest.approx(x, abs=0.01) and m[2] == pytest.approx(x, abs=0.01) for m in ms), x
        for y in {round(v, 2) for t in trims for v in (t[1], t[3])}:
            assert any(m[1] == pytest.approx(y, abs=0.01) and m[3] == pytest.approx(y, abs=0.01) for m in ms), y
    return seen


def test_a4_nine_poker_cards_with_at_least_1_5_mm_bleed_on_every_edge(llll, tmp_path):
    result = build_game(llll, make_options(out=tmp_path, outputs=("sheets",)))
    reader = PdfReader(str(result.files[0]))
    assert result.layout.per_sheet == 9
    assert len(read(reader, reader.pages[0])[0]) == 9
    seen = _check_bleed_sheet(reader, "a4", 1.5)
    # (200 - 190.5) / 6 across; (287 - 3.6 footer - 266.7) / 6 down
    assert seen["left"] == pytest.approx(9.5 / 6, abs=0.01) and seen["right"] == pytest.approx(9.5 / 6, abs=0.01)
    assert seen["top"] == pytest.approx(16.7 / 6, abs=0.01) and seen["bottom"] == pytest.approx(16.7 / 6, abs=0.01)
    assert "printed bleed per cut edge: left 1.58 mm, right 1.58 mm, top 2.78 mm, bottom 2.78 mm" in result.summary()


def test_letter_nine_poker_cards_with_the_bleed_a_5_mm_margin_leaves(llll, tmp_path):
    result = build_game(llll, make_options(out=tmp_path, paper="letter", outputs=("sheets",)))
    reader = PdfReader(str(result.files[0]))
    assert result.layout.per_sheet == 9
    seen = _check_bleed_sheet(reader, "letter", 0.44)
    # the height leaves 279.4 - 10 - 266.7 = 2.7 mm for six bleeds; the footer runs along a side
    assert seen["top"] == pytest.approx(2.7 / 6, abs=0.01) and seen["bottom"] == pytest.approx(2.7 / 6, abs=0.01)
    assert seen["left"] == pytest.approx((215.9 - 10 - 3.6 - 190.5) / 6, abs=0.01)
    assert "top 0.45 mm, bottom 0.45 mm" in result.summary()


def test_bleed_beyond_what_nine_up_leaves_chooses_six_up():
    assert compute_layout("a4", *POKER, bleed=1.5).per_sheet == 9
    assert compute_layout("a4", *POKER, bleed=3.0).per_sheet == 6
    assert compute_layout("letter", *POKER, bleed=0.45).per_sheet == 9
    assert compute_layout("letter", *POKER, bleed=1.0).per_sheet == 6


def test_red_al01_no_longer_touches_blue_al02(tmp_path):
    """Issue 11: on alice-cards-a4.pdf p1 the red AL01 touched the blue AL02 at the cut."""
    alice = load_game("alice")
    result = build_game(alice, make_options(out=tmp_path, outputs=("sheets",)))
    pdf = pdfium.PdfDocument(str(result.files[0]))
    scale = 200 / 72
    image = pdf[0].render(scale=scale).to_pil().convert("RGB")
    layout = result.layout
    (x0, y0), (x1, _) = layout.front_position(0), layout.front_position(1)
    H = layout.page_h
    # 0.5 mm outside AL01's right edge (a miscut) is still AL01's red, not white or blue
    px = int((x0 + 63.5 + 0.5) * scale * PT)
    py = int((H - y0 - 44) * scale * PT)
    r, g, b = image.getpixel((px, py))
    assert r > 150 and b < 120, (r, g, b)
    px = int((x1 - 0.5) * scale * PT)  # and 0.5 mm left of AL02 is AL02's blue
    r, g, b = image.getpixel((px, py))
    assert b > 120 and r < 120, (r, g, b)
    pdf.close()


# --- gutterfold ----------------------------------------------------------------------------


@pytest.mark.parametrize("paper,size", list(itertools.product(PAPERS, SIZES)))
def test_gutterfold_fits_every_card_size_inside_the_printable_area(paper, size):
    w, h = SIZES[size]
    layout = compute_fold_layout(paper, w, h)
    W, H = layout.page_w, layout.page_h
    assert {W, H} == set(PAPERS[paper])
    boxes = []
    for slot in range(layout.per_sheet):
        for (x, y), face in ((layout.front_position(slot), "f"), (layout.back_position(slot), "b")):
            box = (x - layout.bleed_x, y - layout.bleed_y, x + w + layout.bleed_x, y + h + layout.bleed_y)
            assert box[0] >= MARGIN - 1e-6 and box[1] >= MARGIN - 1e-6 and box[2] <= W - MARGIN + 1e-6 and box[3] <= H - MARGIN + 1e-6
            assert not any(_inside((box[0], box[1], box[2], box[3]), other) and _inside(other, box) for other in boxes)
            boxes.append(box)
        # the back is the front's mirror image across the fold
        fx, fy = layout.front_position(slot)
        bx, by = layout.back_position(slot)
        if layout.fold == "h":
            assert bx == pytest.approx(fx) and (fy + by + h) / 2 == pytest.approx(layout.fold_at)
        else:
            assert by == pytest.approx(fy) and (fx + bx + w) / 2 == pytest.approx(layout.fold_at)
    # the most cards: poker takes 4 a page on both papers (Squib's letter_poker_foldable_8up)
    if size == "poker":
        assert layout.per_sheet == 4


def test_gutterfold_says_when_nothing_fits():
    with pytest.raises(CardgenError, match="gutterfold: .*does not fit on A4"):
        compute_fold_layout("a4", 150.0, 200.0)


@pytest.mark.parametrize("game_id", bundled_game_ids())
@pytest.mark.parametrize("paper", list(PAPERS))
def test_gutterfold_pdf_of_every_game(game_id, paper, monkeypatch):
    game = load_game(game_id)
    real = card_render.faces

    def with_own_backs(g):  # every third card has its own back, to see it land behind its own front
        return [(dataclasses.replace(f, own_back=f.own_back or i % 3 == 0), dataclasses.replace(b, own_back=b.own_back or i % 3 == 0))
                for i, (f, b) in enumerate(real(g))]

    monkeypatch.setattr(card_render, "faces", with_own_backs)
    pairs = card_render.faces(game)
    layout = compute_layout(paper, *card_render.card_size_mm(game), None, imposition="gutterfold")
    reader = _reader(sheets_pdf(game, pairs, layout, lang="en", overflows=[]))
    n_pages = -(-len(pairs) // layout.per_sheet)
    assert len(reader.pages) == n_pages + 1  # and the checklist
    w, h = layout.card_w, layout.card_h
    seen = []
    for number, page in enumerate(reader.pages[:-1]):
        assert (float(page.mediabox.width) / PT, float(page.mediabox.height) / PT) == pytest.approx((layout.page_w, layout.page_h), abs=0.01)
        forms, segs = read(reader, page)
        fronts = [f for f in forms if f.name.endswith("_front")]
        backs = [f for f in forms if not f.name.endswith("_front")]
        expected = min(layout.per_sheet, len(pairs) - number * layout.per_sheet)  # the last page is partial
        assert len(fronts) == len(backs) == expected
        for slot, (f, b) in enumerate(zip(fronts, backs)):
            seen.append(f.card_id)
            tf, tb = f.trim(w, h), b.trim(w, h)
            if layout.fold == "h":  # mirror images across the fold, the back turned for a sideways flip
                assert tb[0] == pytest.approx(tf[0], abs=0.01) and (tf[1] + tb[3]) / 2 == pytest.approx(layout.fold_at, abs=0.01)
                assert b.rotated
            else:
                assert tb[1] == pytest.approx(tf[1], abs=0.01) and (tf[2] + tb[0]) / 2 == pytest.approx(layout.fold_at, abs=0.01)
            if not b.name.startswith("back_"):
                assert b.card_id == f.card_id  # a card's own back is behind its own front
        folds = [s for s in segs if s[5]]
        assert folds, "a dashed fold line"
        for m in marks(segs):
            assert not any(_inside(m, f.trim(w, h)) for f in forms)
            assert min(m[0], m[2]) >= MARGIN - 1e-3 and max(m[0], m[2]) <= layout.page_w - MARGIN + 1e-3
            assert min(m[1], m[3]) >= MARGIN - 1e-3 and max(m[1], m[3]) <= layout.page_h - MARGIN + 1e-3
    assert seen == [f.card.id for f, _ in pairs]


# --- simplex, checklist, ink saver, corner guides ------------------------------------------


def test_simplex_prints_every_front_sheet_then_every_back_sheet(llll, pairs):
    layout = compute_layout("a4", *POKER, None, imposition="simplex")
    reader = _reader(sheets_pdf(llll, pairs, layout, lang="en"))
    assert len(reader.pages) == 4 + 4 + 1
    for n in range(4):
        fronts, _ = read(reader, reader.pages[n])
        backs, _ = read(reader, reader.pages[4 + n])
        assert all(f.name.endswith("_front") for f in fronts)
        assert [v for b in backs for v in (b.x0, b.y0)] == pytest.approx([v for f in fronts for v in (f.x0, f.y0)])  # same places, not mirrored
    assert "fronts first, then backs" in reader.pages[0].extract_text()


def test_checklist_lists_every_card_with_a_box(llll, pairs):
    layout = compute_layout("letter", *POKER, None)
    reader = _reader(sheets_pdf(llll, pairs, layout, lang="en"))
    text = reader.pages[-1].extract_text()
    assert "Card checklist" in text and "32 cards on 4 sheets" in text
    for front, _ in pairs:
        assert front.card.id in text and front.card.name.en in text
    assert (float(reader.pages[-1].mediabox.width) / PT) == pytest.approx(215.9, abs=0.01)
    big = load_game("ohanatsumi")
    big_pairs = card_render.faces(big)
    reader = _reader(sheets_pdf(big, big_pairs, compute_layout("a4", *POKER, None), lang="ja", overflows=[]))
    text = "".join(p.extract_text() for p in reader.pages[-2:])
    assert all(f.card.id in text for f, _ in big_pairs)


def _ink(data: bytes, page: int = 0) -> float:
    pdf = pdfium.PdfDocument(data)
    image = pdf[page].render(scale=0.5).to_pil().convert("L")
    pdf.close()
    pixels = image.tobytes()
    return sum(255 - v for v in pixels) / (255 * len(pixels))


def test_ink_saver_keeps_the_geometry_and_uses_far_less_ink(llll, pairs):
    layout = compute_layout("a4", *POKER, None)
    normal = sheets_pdf(llll, pairs, layout, lang="en")
    saver = sheets_pdf(llll, pairs, layout, lang="en", ink_saver=True)
    rn, rs = _reader(normal), _reader(saver)
    assert len(rn.pages) == len(rs.pages)
    for page in (0, 1):
        a, b = read(rn, rn.pages[page])[0], read(rs, rs.pages[page])[0]
        assert [(f.x0, f.y0, f.x1, f.y1) for f in a] == [(f.x0, f.y0, f.x1, f.y1) for f in b]
    assert _ink(saver, 0) < 0.75 * _ink(normal, 0)  # llll's fronts are light already
    assert _ink(saver, 1) < 0.5 * _ink(normal, 1)  # its backs are a dark full-bleed fill
    assert "LL01" in rs.pages[0].extract_text()


def test_corner_guides_are_drawn_on_the_fronts_only(llll, pairs):
    layout = compute_layout("a4", *POKER, None)
    plain = _reader(sheets_pdf(llll, pairs, layout, lang="en"))
    guided = _reader(sheets_pdf(llll, pairs, layout, lang="en", corner_radius=3.0))

    def curves(reader, n):
        return sum(1 for _, op in ContentStream(reader.pages[n].get_contents(), reader).operations if op == b"c")

    assert curves(guided, 0) - curves(plain, 0) >= 9 * 4 * 2  # four quarter circles a card, halo and line
    assert curves(guided, 1) == curves(plain, 1)


# --- --paper reaches every document ----------------------------------------------------------


def test_paper_applies_to_every_document(llll, tmp_path):
    result = build_game(llll, make_options(out=tmp_path, paper="letter", outputs=("sheets", "rules", "standard", "playtest")))
    pdfs = [p for p in result.files if p.suffix == ".pdf"]
    assert {p.name for p in pdfs} >= {"llll-cards-letter.pdf", "llll-rules-ja.pdf", "llll-rules-en.pdf", "llll-playtest.pdf"}
    for path in pdfs:
        reader = PdfReader(str(path))
        for page in reader.pages:
            size = sorted((float(page.mediabox.width) / PT, float(page.mediabox.height) / PT))
            assert size == pytest.approx([215.9, 279.4], abs=0.05), path.name
