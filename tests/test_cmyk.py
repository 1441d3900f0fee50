"""The CMYK print-shop PDF (--preset dtc): PDF/X-1a:2003, read back with pypdf."""

from __future__ import annotations

import functools
import io
import subprocess
import sys

import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from cardgen.load import load_game
from cardgen.render.cards.card import faces
from cardgen.render.cards.index import RED
from cardgen.render.cards.layout import get_layout
from cardgen.render.colour import ICC_PROFILE, k_grey, rgb_to_cmyk, to_cmyk
from cardgen.render.print.printshop import printshop_pdf

RGB_OPERATORS = {b"rg", b"RG"}
POKER = (63.5, 88.9)


@functools.lru_cache(maxsize=None)
def _cmyk_file(game_id: str, lang: str, keep_small_colour: bool = False) -> tuple:
    """(game, reader) of a game's CMYK print-shop file, drawn once per test session."""
    game = load_game(game_id)
    data = printshop_pdf(game, faces(game), POKER, 3.175, lang, cmyk=True, keep_small_colour=keep_small_colour)
    return game, PdfReader(io.BytesIO(data))


@pytest.fixture(params=["alice", "ohanatsumi"])
def cmyk_pdf(request):
    return _cmyk_file(request.param, "en")




def _streams(resources, contents, seen):
    """Yield (content stream, resources) for a page and every form XObject it uses, recursively."""
    yield contents, resources
    xobjects = resources.get("/XObject", {}) if resources else {}
    for name in xobjects:
        ref = xobjects.raw_get(name)
        key = getattr(ref, "idnum", id(ref))
        if key in seen:
            continue
        seen.add(key)
        xobj = xobjects[name].get_object()
        subtype = xobj.get("/Subtype")
        if subtype == "/Image":
            yield xobj, None
        elif subtype == "/Form":
            yield from _streams(xobj.get("/Resources", resources), xobj, seen)


def test_output_intent_and_pdfx_keys(cmyk_pdf):
    _, reader = cmyk_pdf
    intents = reader.trailer["/Root"]["/OutputIntents"]
    assert len(intents) == 1
    intent = intents[0].get_object()
    assert intent["/S"] == "/GTS_PDFX"
    assert intent["/OutputConditionIdentifier"] == "FOGRA39"
    profile = intent["/DestOutputProfile"].get_object()
    assert profile["/N"] == 4
    data = profile.get_data()
    assert data == ICC_PROFILE.read_bytes()
    assert data[12:16] == b"prtr" and data[16:20] == b"CMYK"  # an output (printer) profile in CMYK
    info = reader.metadata
    assert info["/GTS_PDFXVersion"] == "PDF/X-1a:2003"
    assert info["/Trapped"] == "/False"
    assert reader.pdf_header <= "%PDF-1.4"  # X-1a:2003 allows PDF 1.3 and 1.4
    assert reader.trailer.get("/ID") is not None


def test_boxes_on_every_page(cmyk_pdf):
    game, reader = cmyk_pdf
    assert len(reader.pages) == 2 * game.total
    for page in reader.pages:
        trim = [float(v) for v in page.trimbox]
        bleed = [float(v) for v in page.bleedbox]
        media = [float(v) for v in page.mediabox]
        assert "/TrimBox" in page and "/BleedBox" in page
        assert bleed == media
        to_mm = 25.4 / 72
        assert trim[2] - trim[0] == pytest.approx(POKER[0] / to_mm, abs=0.01)
        assert trim[3] - trim[1] == pytest.approx(POKER[1] / to_mm, abs=0.01)
        assert trim[0] - bleed[0] == pytest.approx(3.175 / to_mm, abs=0.01)


def test_no_rgb_anywhere_and_no_transparency(cmyk_pdf):
    _, reader = cmyk_pdf
    seen: set = set()
    cmyk_ops = 0
    for page in reader.pages:
        for stream, resources in _streams(page["/Resources"], page.get_contents(), seen):
            if resources is None:  # an image
                assert stream.get("/ColorSpace") in ("/DeviceCMYK", "/DeviceGray"), "an RGB image in the CMYK file"
                continue
            for operands, op in ContentStream(stream, reader).operations:
                assert op not in RGB_OPERATORS, f"RGB colour operator {op!r} {operands}"
                if op in (b"sc", b"scn", b"SC", b"SCN", b"cs", b"CS"):
                    assert not operands or len(operands) in (1, 4)
                cmyk_ops += op in (b"k", b"K")
            for gs in (resources.get("/ExtGState", {}) or {}).values():
                gs = gs.get_object()
                assert float(gs.get("/ca", 1)) == 1 and float(gs.get("/CA", 1)) == 1
                assert gs.get("/SMask", "/None") == "/None"
    assert cmyk_ops > 0


def inks(reader) -> list[tuple[str, float, tuple[float, ...]]]:
    """(what, size or width, CMYK) of every text shown (its fill, and its stroke when the text is
    stroked: Tr 1 or 2) and every stroked path, read from the content streams of the pages and
    every form XObject: the colour operators in force at each text show and each stroke."""
    found = []
    seen: set = set()
    for page in reader.pages:
        for stream, resources in _streams(page["/Resources"], page.get_contents(), seen):
            if resources is None:
                continue
            fill = stroke = (0.0, 0.0, 0.0, 1.0)
            size, width, mode, stack = 0.0, 1.0, 0, []
            for operands, op in ContentStream(stream, reader).operations:
                if op in (b"k", b"K"):
                    value = tuple(float(v) for v in operands)
                    fill, stroke = (value, stroke) if op == b"k" else (fill, value)
                elif op in (b"g", b"G"):
                    value = (0.0, 0.0, 0.0, 1 - float(operands[0]))
                    fill, stroke = (value, stroke) if op == b"g" else (fill, value)
                elif op == b"q":
                    stack.append((fill, stroke, width, mode))
                elif op == b"Q" and stack:
                    fill, stroke, width, mode = stack.pop()
                elif op == b"Tf":
                    size = float(operands[1])
                elif op == b"Tr":
                    mode = int(operands[0])
                elif op == b"w":
                    width = float(operands[0])
                elif op in (b"Tj", b"TJ", b"'", b'"'):
                    found.append(("text", size, fill))
                    if mode in (1, 2):
                        found.append(("text outline", size, stroke))
                elif op in (b"S", b"s", b"B", b"b", b"B*", b"b*"):
                    found.append(("rule", width, stroke))
    return found


def _small(ink) -> bool:
    return ink[1] < (12 if ink[0].startswith("text") else 1)


def small_inks(reader) -> list[tuple[str, float, tuple[float, ...]]]:
    """`inks` of every text shown below 12 pt and every rule stroked thinner than 1 pt."""
    return [i for i in inks(reader) if _small(i)]


def _on_colour_plates(found) -> list:
    return [i for i in found if max(i[2][:3]) > 0]


def test_every_small_text_and_thin_rule_prints_on_k_only(cmyk_pdf):
    """The prepress rule (issue 27): every text below 12 pt and every rule below 1 pt is K only,
    coloured ones too (a red label becomes a grey as light), so misregistration cannot fringe them."""
    game, reader = cmyk_pdf
    found = small_inks(reader)
    assert len([i for i in found if i[0] == "text"]) > 100
    coloured = _on_colour_plates(found)
    assert coloured == [], f"{game.id}: small text or thin rules on colour plates: {sorted(set(coloured))[:5]}"
    assert any(i[2][3] > 0.8 for i in found)  # the body text: K only, dark


def test_small_text_is_k_only_in_japanese_too():
    game, reader = _cmyk_file("ohanatsumi", "ja")
    found = small_inks(reader)
    assert len([i for i in found if i[0] == "text"]) > 100
    assert _on_colour_plates(found) == []


def test_red_corner_indices_are_k_only():
    """--corner-index draws ranks in the suit's colour with its own code (index.py): red ranks
    below 12 pt are K only too, while the suit symbols (shapes, not text) keep their red."""
    game = load_game("alice")
    reader = PdfReader(io.BytesIO(printshop_pdf(game, faces(game), POKER, 3.175, "en", cmyk=True, corner_index=True)))
    found = small_inks(reader)
    red_rank = k_grey(RED).black
    assert ("text", 7.5, (0.0, 0.0, 0.0, red_rank)) in found
    assert _on_colour_plates(found) == []


def test_a_coloured_small_text_takes_the_k_of_its_lightness():
    """alice's red event label (6.5 pt, layout colour `red`) prints as K = 1 - the red's luma."""
    game, reader = _cmyk_file("alice", "en")
    red = get_layout(game).colours["red"]
    expected = k_grey(red).black
    assert 0.3 < expected < 0.8  # a mid grey: neither paper nor black
    found = small_inks(reader)
    assert ("text", 6.5, (0.0, 0.0, 0.0, expected)) in found


def test_large_text_and_thick_rules_keep_their_colours(cmyk_pdf):
    game, reader = cmyk_pdf
    large = [i for i in inks(reader) if not _small(i)]
    assert _on_colour_plates([i for i in large if i[0] == "text"]), f"{game.id}: no coloured text of 12 pt or more"
    assert _on_colour_plates([i for i in large if i[0] == "rule"]), f"{game.id}: no coloured rule of 1 pt or more"


def test_keep_small_colour_keeps_coloured_small_text_and_pulls_neutral_to_k():
    """--keep-small-colour: a coloured small text keeps its plates; black, grey and near-neutral
    ones (a warm near-black, a cream knockout) are still K only: no rich black, no muddy neutrals."""
    game, reader = _cmyk_file("alice", "en", keep_small_colour=True)
    found = small_inks(reader)
    assert any(sum(i[2][:3]) > 0 for i in found if i[0] == "text")
    rich = {i for i in found if i[2][3] > 0.5 and min(i[2][:3]) > 0}
    assert rich == set(), f"{game.id}: rich black on small text or thin rules: {sorted(rich)[:5]}"
    muddy = {i for i in found if min(i[2][:3]) > 0 and max(i[2][:3]) - min(i[2][:3]) < 0.1}
    assert muddy == set(), f"{game.id}: near-neutral inks on several plates: {sorted(muddy)[:5]}"
    assert any(i[2][:3] == (0, 0, 0) and i[2][3] > 0.8 for i in found)


def test_plate_colour_on_each_canvas():
    """On the RGB canvas a colour is never rewritten; on the CMYK one a small neutral colour
    becomes K = 1 - luma, a small coloured one the K of its lightness (its own when the canvas
    keeps small colour), and a large one stays."""
    from reportlab.lib.colors import CMYKColor, HexColor
    from cardgen.render.colour import THIN_RULE_PT, k_only, keep_small_colour_on, plate_colour
    from cardgen.render.print.printshop import _cmyk_canvas

    ink, red = HexColor("#3A2E2A"), HexColor("#C0392B")  # ohanatsumi's warm near-black; a red
    assert plate_colour(object(), ink, 8) is ink
    k = k_only(ink)
    assert (k.cyan, k.magenta, k.yellow) == (0, 0, 0) and 0.78 < k.black < 0.84
    assert k_only(red) is None
    assert k_only(CMYKColor(0, 0, 0, 0.5)).black == 0.5
    assert k_grey(ink).black == k.black  # one formula for neutral and coloured
    assert k_grey("#C0392B").black == pytest.approx(1 - (0.299 * 0xC0 + 0.587 * 0x39 + 0.114 * 0x2B) / 255, abs=1e-4)
    assert k_grey(HexColor("#C0392B", hasAlpha=False)).black > k_grey(HexColor("#C0392B80", hasAlpha=True)).black  # over white
    c = _cmyk_canvas(io.BytesIO(), POKER, "t", "en")
    assert plate_colour(c, red, 8) == k_grey(red)
    assert plate_colour(c, red, 0.5, THIN_RULE_PT) == k_grey(red)
    assert plate_colour(c, red, 12) is red and plate_colour(c, red, 1, THIN_RULE_PT) is red
    keep_small_colour_on(c)
    assert plate_colour(c, red, 8) is red
    assert plate_colour(c, ink, 8) == k


def test_svg_art_follows_the_rule():
    """Text and thin strokes inside SVG art are drawn on the CMYK canvas by renderPDF, not by the
    face's code: the rule holds there too, and the converted drawing (cached, also drawn on RGB
    canvases) is not changed."""
    from pathlib import Path

    from reportlab.graphics import shapes

    from cardgen.render.cards.art import draw_drawing, svg_drawing
    from cardgen.render.print.printshop import _cmyk_canvas

    svg = b"""<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100">
    <rect width="100" height="100" fill="#2255aa"/>
    <line x1="0" y1="0" x2="100" y2="100" stroke="#cc2222" stroke-width="0.5"/>
    <line x1="0" y1="100" x2="100" y2="0" stroke="#cc2222" stroke-width="3"/>
    <text x="10" y="50" font-size="8" fill="#22aa22">Small</text>
    <text x="10" y="80" font-size="20" fill="#22aa22">Big</text></svg>"""
    drawing = svg_drawing(svg, Path("art.svg"), "art.svg", None)
    buffer = io.BytesIO()
    c = _cmyk_canvas(buffer, POKER, "t", "en")
    draw_drawing(c, drawing)
    c.showPage()
    c.save()
    reader = PdfReader(io.BytesIO(buffer.getvalue()))
    found = small_inks(reader)
    assert {i[0] for i in found} == {"text", "rule"}
    assert _on_colour_plates(found) == []
    large = [i for i in inks(reader) if not _small(i)]
    assert _on_colour_plates([i for i in large if i[0] == "text"]) and _on_colour_plates([i for i in large if i[0] == "rule"])
    nodes, strings = [drawing], []
    while nodes:
        node = nodes.pop()
        nodes += getattr(node, "contents", [])
        strings += [node] if isinstance(node, shapes.String) else []
    assert len(strings) == 2 and all(n.fillColor.green > 2 * n.fillColor.red for n in strings)  # still green


def _build_shop(tmp_path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cardgen", "build", "alice", "--preset", "dtc", "--only", "shop",
                           "--out", str(tmp_path), "-j", "1", *extra], capture_output=True, text=True, timeout=600)


def test_build_says_how_many_coloured_small_texts_print_in_k(tmp_path):
    """The build tells the designer, with a real count (each pulled text box or rule shows at
    least once, and each distinct colour and size of those shows comes from one), also when the
    file comes from the cache; --keep-small-colour keeps them and says nothing."""
    import re

    line = re.compile(r"dtc: (\d+) small coloured texts and rules print in K only \(grey\).*--keep-small-colour")
    first = _build_shop(tmp_path / "k")
    assert first.returncode == 0, first.stderr
    counts = [int(m.group(1)) for m in line.finditer(first.stdout)]
    assert len(counts) == 1 and counts[0] > 0, first.stdout
    again = _build_shop(tmp_path / "k")  # read from the cache
    assert [int(m.group(1)) for m in line.finditer(again.stdout)] == counts, again.stdout
    kept = _build_shop(tmp_path / "kept", "--keep-small-colour")
    assert kept.returncode == 0, kept.stderr
    assert "K only" not in kept.stdout and "keep-small-colour" not in kept.stdout, kept.stdout
    shown = _on_colour_plates(small_inks(PdfReader(tmp_path / "kept" / "alice" / "alice-dtc-cmyk.pdf")))
    assert len(set(shown)) <= counts[0] <= len(shown)
    refused = subprocess.run([sys.executable, "-m", "cardgen", "build", "alice", "--only", "shop", "--keep-small-colour",
                              "--out", str(tmp_path / "rgb")], capture_output=True, text=True, timeout=600)
    assert refused.returncode == 1 and "--keep-small-colour" in refused.stderr and "Traceback" not in refused.stderr


def test_fonts_stay_embedded(cmyk_pdf):
    _, reader = cmyk_pdf
    fonts = {}
    for page in reader.pages[:4]:
        for stream, resources in _streams(page["/Resources"], page.get_contents(), set()):
            for name, font in ((resources or {}).get("/Font", {}) or {}).items():
                fonts[name] = font.get_object()
    assert fonts
    for font in fonts.values():
        descriptor = font.get("/FontDescriptor")
        if descriptor is None and "/DescendantFonts" in font:
            descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"]
        descriptor = descriptor.get_object()
        assert any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")), font.get("/BaseFont")


def test_colours_converted_once_through_the_profile():
    assert rgb_to_cmyk(255, 255, 255) == (0, 0, 0, 0)
    assert rgb_to_cmyk(0, 0, 0) == (0, 0, 0, 1)  # black text is K only
    c, m, y, k = rgb_to_cmyk(200, 30, 40)  # a red: magenta and yellow, little cyan
    assert m > 0.8 and y > 0.7 and c < 0.1
    rgb_to_cmyk.cache_clear()
    for _ in range(3):
        to_cmyk("#C81E28")
    assert rgb_to_cmyk.cache_info().misses == 1


def test_thin_pattern_lines_follow_the_rule():
    """A back's lattice (icons' pattern code) strokes 0.7 pt lines of its own: llll's is a maroon
    on maroon, and prints in K only like every thin rule (kept with --keep-small-colour)."""
    found = small_inks(_cmyk_file("llll", "en")[1])
    assert [i for i in found if i[0] == "rule" and i[1] == 0.7]  # the lattice is read
    assert _on_colour_plates(found) == []
    kept = small_inks(_cmyk_file("llll", "en", keep_small_colour=True)[1])
    assert _on_colour_plates([i for i in kept if i[0] == "rule" and i[1] == 0.7])
