"""The tuck box, read back from its PDF: the die line's panels measure what the deck needs, cut
lines are solid and fold lines dashed, everything prints inside the printer's margin, and the
art and words are the game's (no band over the art, the title once on the front, a vertical
Japanese spine, words from words.yaml)."""

from __future__ import annotations

import io
import subprocess
import sys

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from cardgen.errors import CardgenError
from cardgen.load import load_game
from cardgen.render.cards.card import back_group
from cardgen.render.print.sheet import DEFAULT_MARGIN_MM
from cardgen.render.print.tuckbox import (CLEARANCE_MM, FREE_EDGE_OFFSET_MM, TUCK_MAX_MM, TUCK_MIN_MM, tuckbox_geometry,
                                          tuckbox_pdf)
from cardgen.sizes import size_mm

PT = 25.4 / 72  # mm in a point
PAGES = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}


def _mul(a, b):
    return (a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
            a[2] * b[1] + a[3] * b[3], a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5])


def stroked_lines(page) -> list[tuple[str, list[tuple[float, float]]]]:
    """Every stroked path drawn in grey ink on the page ("G": the die line; the art strokes in RGB),
    as ("cut" | "fold", points in mm): dashed is a fold, solid a cut."""
    ops = ContentStream(page.get_contents(), page.pdf).operations
    state = {"ctm": (1, 0, 0, 1, 0, 0), "dash": False, "grey": None}
    stack = []
    path: list[list[tuple[float, float]]] = []
    out = []

    def at(x, y):
        m = state["ctm"]
        return ((m[0] * x + m[2] * y + m[4]) * PT, (m[1] * x + m[3] * y + m[5]) * PT)

    for operands, op in ops:
        op = op.decode() if isinstance(op, bytes) else op
        if op == "q":
            stack.append(dict(state))
        elif op == "Q":
            state = stack.pop()
        elif op == "cm":
            state["ctm"] = _mul(tuple(float(v) for v in operands), state["ctm"])
        elif op == "d":
            state["dash"] = len(operands[0]) > 0
        elif op == "G":
            state["grey"] = float(operands[0])
        elif op in ("RG", "K", "CS", "SC", "SCN"):
            state["grey"] = None
        elif op == "m":
            path.append([at(float(operands[0]), float(operands[1]))])
        elif op == "l":
            path[-1].append(at(float(operands[0]), float(operands[1])))
        elif op == "re":
            path = []
        elif op in ("S", "s"):
            if state["grey"] is not None:
                out += [("fold" if state["dash"] else "cut", p) for p in path if len(p) > 1]
            path = []
        elif op in ("n", "f", "f*", "B", "B*", "b", "b*"):
            path = []
    return out


def inside(point, polygon) -> bool:
    x, y = point
    hit = False
    for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            hit = not hit
    return hit


@pytest.fixture(scope="module")
def ohanatsumi():
    return load_game("ohanatsumi")


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("game_id,thickness", [("alice", 0.30), ("ohanatsumi", 0.30), ("requiem", 0.45)])
def test_die_line_read_back_from_the_pdf(paper, game_id, thickness):
    game = load_game(game_id)
    w, h = size_mm(game.card_size)
    reader = PdfReader(io.BytesIO(tuckbox_pdf(game, (w, h), paper, "en", thickness)))
    assert len(reader.pages) == 1
    page = reader.pages[0]
    pw, ph = float(page.mediabox.width) * PT, float(page.mediabox.height) * PT
    assert sorted((pw, ph)) == pytest.approx(sorted(PAGES[paper]), abs=0.05)
    legend = tuckbox_geometry((w, h), game.total, paper, thickness)[0].legend
    lines = [(kind, p) for kind, p in stroked_lines(page) if not all(_in(legend, x, y) for x, y in p)]  # not its samples
    assert len(lines) > 10
    cuts = [p for kind, p in lines if kind == "cut"]
    folds = [p for kind, p in lines if kind == "fold"]
    W, H, D = w + CLEARANCE_MM, h + CLEARANCE_MM, game.total * thickness + CLEARANCE_MM
    # the body row's folds: back | side | front | side | glue
    vertical = sorted({round(p[0][0], 2) for p in folds if abs(p[0][0] - p[1][0]) < 1e-6})
    assert len(vertical) == 4
    xsl, xf, xsr, xg = vertical
    assert (xf - xsl, xsr - xf, xg - xsr) == pytest.approx((D, W, D), abs=0.02)
    for p in folds:
        if abs(p[0][0] - p[1][0]) < 1e-6:
            assert abs(p[1][1] - p[0][1]) == pytest.approx(H, abs=0.02)
    y0 = min(min(p[0][1], p[1][1]) for p in folds if abs(p[0][0] - p[1][0]) < 1e-6)
    yt = y0 + H
    horizontal = sorted({round(p[0][1], 2) for p in folds if abs(p[0][1] - p[1][1]) < 1e-6})
    # lid-to-tuck creases one depth above the front and below the back, with the body's folds
    assert horizontal == pytest.approx([y0 - D, y0, yt, yt + D], abs=0.02)
    outline = max(cuts, key=len)
    assert outline[0] == pytest.approx(outline[-1])  # closed
    xs = [p[0] for p in outline]
    ys = [p[1] for p in outline]
    assert xsl - min(xs) == pytest.approx(W - FREE_EDGE_OFFSET_MM, abs=0.02)  # the back, its free edge on the glue fold
    glue = max(xs) - xg
    assert glue == pytest.approx(12.7 if D < 22.2 else 15.9, abs=0.02)
    tuck = max(ys) - (yt + D)
    assert TUCK_MIN_MM - 0.01 <= tuck <= TUCK_MAX_MM + 0.01
    assert (y0 - D) - min(ys) == pytest.approx(tuck, abs=0.02)
    # slit locks: short cuts on the lid-to-tuck creases, at both ends of each
    slits = [p for p in cuts if p is not outline]
    assert len(slits) == 4
    for p in slits:
        assert p[0][1] == pytest.approx(p[1][1]) and round(p[0][1], 2) in (round(yt + D, 2), round(y0 - D, 2))
        assert 3 < abs(p[1][0] - p[0][0]) < 10
    # folds run inside the net, the outline is all cut
    polygon = outline[:-1]
    for p in folds:
        mid = ((p[0][0] + p[-1][0]) / 2, (p[0][1] + p[-1][1]) / 2)
        assert inside(mid, polygon), p
    # thumb notch: the outline dips below the back's top edge, in the back's middle
    notch = [y for x, y in outline if min(xs) + 5 < x < xsl - 5 and y < yt - 1 and y > yt - 15]
    assert notch and yt - min(notch) >= 5
    # the whole die line and its bleed lie inside the printer's margin
    margin = DEFAULT_MARGIN_MM
    assert min(xs) - 1.5 >= margin - 0.01 and max(xs) + 1.5 <= pw - margin + 0.01
    assert min(ys) - 1.5 >= margin - 0.01 and max(ys) + 1.5 <= ph - margin + 0.01


@pytest.mark.parametrize("paper,lang,size,thickness", [("letter", "ja", "poker", 0.30), ("a4", "en", "mini", 0.9)])
def test_nothing_prints_in_the_margin_and_no_band_crosses_the_front(ohanatsumi, paper, lang, size, thickness):
    """Pixels: the art, its bleed, the texts and the legend (the longest, a split deck's) stay off the margin."""
    data = tuckbox_pdf(ohanatsumi, size_mm(size), paper, lang, thickness)
    doc = pdfium.PdfDocument(data)
    try:
        scale = 1.4  # px a pt: 4 px a mm, about 100 dpi
        image = doc[0].render(scale=scale).to_pil().convert("L")
    finally:
        doc.close()
    px_mm = scale * 72 / 25.4
    band = int(DEFAULT_MARGIN_MM * px_mm) - 1
    width, height = image.size
    pixels = image.load()
    for edge in ((0, 0, band, height), (0, 0, width, band), (width - band, 0, width, height), (0, height - band, width, height)):
        assert image.crop(edge).getextrema()[0] >= 250, edge  # white: nothing printed in the margin
    box = tuckbox_geometry(size_mm(size), ohanatsumi.total, paper, thickness)[0]
    front = box.panels["front"]
    top = height - (front.y + front.h) * px_mm
    for row in range(int(top) + 2, int(top + front.h * px_mm) - 2):
        line = [pixels[x, row] for x in range(int(front.x * px_mm) + 2, int((front.x + front.w) * px_mm) - 2)]
        assert min(line) < 200, f"a white band across the front at {row}"


def _chars(data: bytes, lang_page: int = 0):
    """(character, centre x mm, centre y mm) of every character on the page."""
    doc = pdfium.PdfDocument(data)
    try:
        text = doc[lang_page].get_textpage()
        out = []
        for i in range(text.count_chars()):
            ch = text.get_text_range(i, 1)
            left, bottom, right, top = text.get_charbox(i)
            out.append((ch, (left + right) / 2 * PT, (bottom + top) / 2 * PT))
        return out
    finally:
        doc.close()


def _in(rect, x, y, eps=0.01):
    return rect.x - eps <= x <= rect.x + rect.w + eps and rect.y - eps <= y <= rect.y + rect.h + eps


@pytest.mark.parametrize("game_id", ["ohanatsumi", "requiem", "alice", "llll"])
def test_the_front_names_the_game_once_and_no_deck_label(game_id):
    game = load_game(game_id)
    size = size_mm(game.card_size)
    for lang in ("ja", "en"):
        chars = _chars(tuckbox_pdf(game, size, "a4", lang))
        front = tuckbox_geometry(size, game.total, "a4")[0].panels["front"]
        text = "".join(ch for ch, x, y in chars if _in(front, x, y))
        title = game.title.get(lang)
        squeezed = text.replace(" ", "").replace("\n", "").replace("\r", "")
        assert title.replace(" ", "") in squeezed, (lang, text)
        assert squeezed.count(title.replace(" ", "")) == 1, (lang, text)
        assert "イベントカード" not in text and "Event cards" not in text


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_spine_reads_top_to_bottom(ohanatsumi, lang):
    """Japanese stacks the characters (vertical text), English turns the line: both read downwards."""
    size = size_mm("poker")
    chars = _chars(tuckbox_pdf(ohanatsumi, size, "a4", lang))
    side = tuckbox_geometry(size, ohanatsumi.total, "a4")[0].panels["side_left"]
    title = ohanatsumi.title.get(lang)
    spine = [(ch, x, y) for ch, x, y in chars if _in(side, x, y) and ch.strip()]
    assert "".join(ch for ch, _, _ in spine) == title.replace(" ", "")
    ys = [y for _, _, y in spine]
    assert all(a > b for a, b in zip(ys, ys[1:]))  # each character below the one before
    assert max(x for _, x, _ in spine) - min(x for _, x, _ in spine) < 1.5  # in one column


def test_words_come_from_words_yaml(ohanatsumi):
    size = size_mm("poker")
    ja = "".join(ch for ch, _, _ in _chars(tuckbox_pdf(ohanatsumi, size, "a4", "ja")))
    en = "".join(ch for ch, _, _ in _chars(tuckbox_pdf(ohanatsumi, size, "a4", "en")))
    assert "実際のサイズ" in ja and "130枚" in ja and "1〜5人" in ja
    assert not any(word in ja for word in ("Cut", "fold", "glue", "cards", "players"))
    assert "actual size" in en and "130 cards" in en and "1–5 players" in en


def test_a_deck_too_deep_for_one_box_splits_and_says_so(ohanatsumi):
    boxes = tuckbox_geometry(size_mm("poker"), 400, "a4", 0.30)
    assert len(boxes) > 1 and sum(b.cards for b in boxes) == 400
    assert len({b.inner for b in boxes}) == 1
    chars = _chars(tuckbox_pdf(ohanatsumi, size_mm("poker"), "a4", "en", 0.30, cards=list(ohanatsumi.cards) * 3))
    text = " ".join("".join(ch for ch, _, _ in chars).split())  # the legend wraps where its font sets it
    assert f"box 1 of {len(tuckbox_geometry(size_mm('poker'), 390, 'a4'))}" in text and "too deep for one box on A4" in text


def test_the_box_holds_a_given_deck_under_its_own_title(ohanatsumi):
    """The entry the per-deck boxes call: its cards' count and shared back, its title."""
    flowers = [c for c in ohanatsumi.cards if back_group(ohanatsumi, c) == "flowers"]
    assert len(flowers) == 10
    data = tuckbox_pdf(ohanatsumi, size_mm("poker"), "a4", "ja", cards=flowers, title="お花摘み 花の山")
    text = "".join(ch for ch, _, _ in _chars(data))
    assert f"{len(flowers)}枚" in text and "お花摘み 花の山".replace(" ", "") in text.replace(" ", "")
    # the flowers' back, not the events' (the game's most common): its green field fills the front
    box = tuckbox_geometry(size_mm("poker"), len(flowers), "a4")[0]
    front = box.panels["front"]
    doc = pdfium.PdfDocument(data)
    try:
        image = doc[0].render(scale=1).to_pil().convert("RGB")
    finally:
        doc.close()
    px = 72 / 25.4
    r, g, b = image.getpixel((int((front.x + 3) * px), int(image.size[1] - (front.y + 3) * px)))
    assert g > r + 30 and g > b + 10, (r, g, b)


def test_a_card_too_large_for_the_paper_is_a_plain_error(tmp_path):
    with pytest.raises(CardgenError, match="does not fit Letter paper"):
        tuckbox_geometry((150, 250), 10, "letter")
    run = subprocess.run([sys.executable, "-m", "cardgen", "build", "alice", "--only", "tuckbox", "--card-size", "150x250",
                          "--out", str(tmp_path), "--no-cache"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert "tuck box" in run.stderr and "does not fit A4" in run.stderr and "Traceback" not in run.stderr


def test_the_build_says_when_the_deck_splits(ohanatsumi, tmp_path):
    from cardgen.build import make_options, tuckbox_notes

    thick = make_options(out=tmp_path, outputs=("tuckbox",), card_thickness=0.9)
    boxes = tuckbox_geometry(size_mm("poker"), ohanatsumi.total, "a4", 0.9)
    assert len(boxes) > 1
    assert tuckbox_notes(ohanatsumi, thick) == [f"tuck box: {ohanatsumi.total} cards x 0.9 mm are too deep for one box on A4; "
                                                f"split into {len(boxes)} boxes of up to {boxes[0].cards} cards (one a page)"]
    assert tuckbox_notes(ohanatsumi, make_options(out=tmp_path, outputs=("tuckbox",))) == []
    assert tuckbox_notes(ohanatsumi, make_options(out=tmp_path, outputs=("sheets",), card_thickness=0.9)) == []


def test_a_back_without_the_title_gets_it_above_the_art(game_copy):
    """When the back art shows no title, the box sets it above the art (shrunk), not over it."""
    import shutil

    from cardgen.io.paths import bundled_templates

    folder = game_copy("alice")
    (folder / "templates").mkdir(exist_ok=True)
    layout = folder / "templates" / "layout.yaml"
    shutil.copy(bundled_templates() / "alice" / "layout.yaml", layout)
    text = layout.read_text(encoding="utf-8")
    untitled = "\n".join(line for line in text.splitlines() if "name: back_title" not in line)
    assert untitled != text
    layout.write_text(untitled, encoding="utf-8")
    game = load_game(str(folder))
    size = size_mm(game.card_size)
    data = tuckbox_pdf(game, size, "a4", "en")
    front = tuckbox_geometry(size, game.total, "a4")[0].panels["front"]
    chars = [(ch, x, y) for ch, x, y in _chars(data) if _in(front, x, y) and ch.strip()]
    assert "".join(ch for ch, _, _ in chars) == game.title.get("en").replace(" ", "")
    assert min(y for _, _, y in chars) > front.y + front.h * 0.8  # in the strip at the top
    doc = pdfium.PdfDocument(data)
    try:
        px = 72 / 25.4 * 2  # px a mm
        image = doc[0].render(scale=2).to_pil().convert("RGB")
    finally:
        doc.close()
    # the art's gold frame starts below the title: the title is not set over the art
    column = int((front.x + front.w * 0.3) * px)
    gold = [row for row in range(int(image.size[1] - (front.y + front.h) * px) + 2, image.size[1])
            if (lambda r, g, b: r - b > 60)(*image.getpixel((column, row)))]
    frame_top_mm = (image.size[1] - gold[0]) / px
    assert frame_top_mm < min(y for _, _, y in chars) - 2
    # and the art (alice's dark checkerboard) still fills the front below it, shrunk
    y = int(image.size[1] - (front.y + front.h * 0.4) * px)
    row = [sum(image.getpixel((x, y))) / 3 for x in range(int((front.x + 8) * px), int((front.x + front.w - 8) * px))]
    assert max(row) < 200


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("size", ["poker", "bridge", "mini", "euro", "tarot", "63x88"])
@pytest.mark.parametrize("cards", [1, 54, 130])
def test_every_card_size_gets_a_box_inside_the_margin(paper, size, cards):
    w, h = size_mm(size)
    boxes = tuckbox_geometry((w, h), cards, paper)
    assert sum(b.cards for b in boxes) == cards
    for box in boxes:
        page = PAGES[paper]
        assert box.page in (page, page[::-1])
        p = box.panels
        assert (p["front"].w, p["front"].h) == pytest.approx((w + CLEARANCE_MM, h + CLEARANCE_MM))
        assert p["side_left"].w == pytest.approx(max(b.cards for b in boxes) * 0.30 + CLEARANCE_MM)
        assert 2 * box.dust < p["front"].w  # the two dust flaps of an end do not overlap
        assert TUCK_MIN_MM <= box.tuck <= TUCK_MAX_MM
        o, legend = box.outline, box.legend
        for left, bottom, right, top in ((o.x - 1.5, o.y - 1.5, o.x + o.w + 1.5, o.y + o.h + 1.5),
                                         (legend.x, legend.y, legend.x + legend.w, legend.y + legend.h)):
            assert left >= DEFAULT_MARGIN_MM - 1e-6 and bottom >= DEFAULT_MARGIN_MM - 1e-6
            assert right <= box.page[0] - DEFAULT_MARGIN_MM + 1e-6 and top <= box.page[1] - DEFAULT_MARGIN_MM + 1e-6
        # the legend and the net (with its bleed) do not overlap
        assert (legend.y + legend.h <= o.y - 1.5 + 1e-6) or (legend.x >= o.x + o.w + 1.5 - 1e-6)
