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
