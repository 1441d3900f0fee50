"""The CMYK print-shop PDF (--preset dtc): PDF/X-1a:2003, read back with pypdf."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from cardgen.load import load_game
from cardgen.render.cards.card import faces
from cardgen.render.colour import ICC_PROFILE, rgb_to_cmyk, to_cmyk
from cardgen.render.print.printshop import printshop_pdf

RGB_OPERATORS = {b"rg", b"RG"}
POKER = (63.5, 88.9)


@pytest.fixture(scope="module", params=["alice", "ohanatsumi"])
def cmyk_pdf(request):
    game = load_game(request.param)
    return game, PdfReader(io.BytesIO(printshop_pdf(game, faces(game), POKER, 3.175, "en", cmyk=True)))


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


def small_inks(reader) -> list[tuple[str, float, tuple[float, ...]]]:
    """(what, size, CMYK) of every text shown below 12 pt (its fill, and its stroke when the
    text is stroked: Tr 1 or 2) and every rule stroked thinner than 1 pt, read from the content
    streams: the colour operators in force at each text show and each stroke."""
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
                elif op in (b"Tj", b"TJ", b"'", b'"') and size < 12:
                    found.append(("text", size, fill))
                    if mode in (1, 2):
                        found.append(("text outline", size, stroke))
                elif op in (b"S", b"s", b"B", b"b", b"B*", b"b*") and width < 1:
                    found.append(("rule", width, stroke))
    return found


def test_small_text_and_thin_rules_that_are_black_or_grey_print_on_k_only(cmyk_pdf):
    """The prepress rule: black, grey and near-neutral text below 12 pt and rules below 1 pt
    are K only (no rich black, no four-colour cream), so misregistration cannot fringe them; only
    a clearly coloured ink (a suit's red) uses its plates."""
    game, reader = cmyk_pdf
    inks = small_inks(reader)
    assert len([i for i in inks if i[0] == "text"]) > 100
    # rich black: dark, with all three colour plates under it (a brown has no cyan: it is a colour)
    rich = {i for i in inks if i[2][3] > 0.5 and min(i[2][:3]) > 0}
    assert rich == set(), f"{game.id}: rich black on small text or thin rules: {sorted(rich)[:5]}"
    # a neutral on three plates: C, M and Y all present and within 0.1 of each other (a cream knockout)
    muddy = {i for i in inks if min(i[2][:3]) > 0 and max(i[2][:3]) - min(i[2][:3]) < 0.1}
    assert muddy == set(), f"{game.id}: near-neutral inks on several plates: {sorted(muddy)[:5]}"
    assert any(i[2][:3] == (0, 0, 0) and i[2][3] > 0.8 for i in inks)  # the body text: K only, dark


def test_k_only_is_for_the_cmyk_file_alone(cmyk_pdf):
    """On the RGB canvas a colour is never rewritten; on the CMYK one a neutral colour becomes
    K = 1 - luma and a coloured one stays."""
    from reportlab.lib.colors import CMYKColor, HexColor
    from cardgen.render.colour import k_only, plate_colour

    ink = HexColor("#3A2E2A")  # ohanatsumi's warm near-black
    assert plate_colour(object(), ink, 8) is ink
    k = k_only(ink)
    assert (k.cyan, k.magenta, k.yellow) == (0, 0, 0) and 0.78 < k.black < 0.84
    assert k_only(HexColor("#C0392B")) is None
    assert k_only(CMYKColor(0, 0, 0, 0.5)).black == 0.5


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
