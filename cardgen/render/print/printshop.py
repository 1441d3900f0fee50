"""Print-shop files: one card face per page, with bleed, TrimBox and BleedBox.

Each page is the trimmed card plus `bleed` mm on every side (MediaBox = BleedBox); the
TrimBox is the card itself.  Pages go front, back, front, back ... in card order, so a shop
that prints "page 2n on the back of page 2n-1" gets every back, including a card's own back,
behind its front; `back_first` (a preset's page order, see presets.py) puts each card's back
page before its front instead.  The default bleed is 1/8 in (3.175 mm), which also satisfies shops that
ask for 3 mm, and makes the 300 dpi PNGs the common 825 x 1125 px for poker cards.

With `cmyk=True` (`--preset dtc`) the file is PDF/X-1a:2003 in DeviceCMYK:

- PDF/X-1a rather than X-4: DriveThruCards asks for X-1a by name, and X-1a is the flavour
  every print RIP accepts.  It forbids transparency and ICC-based or RGB colour, which cardgen's
  faces do not need (flat vector fills, embedded TrueType text, no images), and it fits the
  PDF 1.4 that ReportLab writes; X-4 (PDF 1.6, live transparency, XMP metadata) buys nothing here.
- Every colour is converted once (cached per RGB value, so once per colour of the layout's
  palette) from sRGB to CMYK through the shipped profile `assets/icc/cardgen-FOGRA39L-coated.icc`
  (made from Fogra's FOGRA39 characterisation data, zlib licence: see its LICENSE), relative
  colorimetric; neutral greys and black become K only (crisp small text, no rich-black
  registration fringes), and so does every text below 12 pt and rule below 1 pt, coloured
  or not (a grey as light as its colour; `keep_small_colour` keeps the coloured ones' plates).
  A colour with alpha is flattened over white (X-1a has no transparency).
- The catalogue's OutputIntents names FOGRA39 (the ICC registry's "Coated FOGRA39") with
  that profile embedded as DestOutputProfile; the Info dictionary carries
  GTS_PDFXVersion (PDF/X-1a:2003) and Trapped False; fonts stay embedded (IPAex TrueType).
"""

from __future__ import annotations

import io
from typing import Callable, Sequence

from reportlab.lib.units import mm
from reportlab.pdfbase.pdfdoc import PDFArray, PDFDictionary, PDFInfo, PDFName, PDFStream, PDFString
from reportlab.pdfgen.canvas import Canvas

from ...fonts import GOTHIC, register_fonts
from ...langs import pdf_lang
from ..colour import ICC_PROFILE, keep_small_colour_on, to_cmyk
from .sheet import FaceForms, binary_streams, new_canvas, shared_back

SHOP_BLEED_MM = 3.175
OUTPUT_CONDITION = "FOGRA39"  # registered in the ICC characterization data registry
OUTPUT_CONDITION_INFO = "Coated FOGRA39 (ISO 12647-2:2004), profile cardgen-FOGRA39L-coated"
PDFX_VERSION = "PDF/X-1a:2003"


class _PdfxInfo(PDFInfo):
    """The Info dictionary with PDF/X-1a's keys."""

    def format(self, document):
        text = super().format(document)
        extra = PDFDictionary({"GTS_PDFXVersion": PDFString(PDFX_VERSION)}).format(document)
        return text[:-2] + extra[2:]  # splice the key into ReportLab's "<< ... >>"


def _cmyk_canvas(buffer: io.BytesIO, pagesize_mm: tuple[float, float], title: str, lang: str) -> Canvas:
    """A canvas that draws in DeviceCMYK only and writes a PDF/X-1a output intent."""
    register_fonts()
    c = Canvas(buffer, pagesize=(pagesize_mm[0] * mm, pagesize_mm[1] * mm), invariant=1, pageCompression=1,
               initialFontName=GOTHIC, initialFontSize=10, initialLeading=12, enforceColorSpace=to_cmyk,
               lang=pdf_lang(lang))
    c.setTitle(title)
    c.setAuthor("cardgen")
    c.setCreator("cardgen")
    c.setSubject(title)
    doc = c._doc
    doc.info.__class__ = _PdfxInfo
    doc.info.trapped = "False"
    profile = ICC_PROFILE.read_bytes()
    stream = PDFStream(PDFDictionary({"N": 4}), profile)
    ref = doc.Reference(stream, "CardgenOutputProfile")
    intent = PDFDictionary({
        "Type": PDFName("OutputIntent"),
        "S": PDFName("GTS_PDFX"),
        "OutputConditionIdentifier": PDFString(OUTPUT_CONDITION),
        "OutputCondition": PDFString(OUTPUT_CONDITION_INFO),
        "RegistryName": PDFString("http://www.color.org"),
        "Info": PDFString(OUTPUT_CONDITION_INFO),
        "DestOutputProfile": ref,
    })
    catalog = doc.Catalog
    catalog.__NoDefault__ = list(catalog.__NoDefault__) + ["OutputIntents"]
    catalog.OutputIntents = PDFArray([intent])
    return c


@binary_streams
def printshop_pdf(
    game,
    pairs: Sequence[tuple[object, object]],
    card_size: tuple[float, float],
    bleed: float = SHOP_BLEED_MM,
    lang: str = "ja",
    overflows: list | None = None,
    progress: Callable[[int], None] | None = None,
    corner_index: bool = False,
    cmyk: bool = False,
    back_first: bool = False,
    keep_small_colour: bool = False,
) -> bytes:
    """Return the PDF bytes: for every card its front page, then its back page (the back first
    with `back_first`; PDF/X-1a CMYK with `cmyk`, where text below 12 pt and rules below 1 pt
    print in K only, the coloured ones too unless `keep_small_colour`: see colour.plate_colour)."""
    w, h = card_size
    page = (w + 2 * bleed, h + 2 * bleed)
    buffer = io.BytesIO()
    title = f"{game.title.get(lang)} — print-shop file"
    c = _cmyk_canvas(buffer, page, title + " (CMYK)", lang) if cmyk else new_canvas(buffer, page, title, lang)
    if cmyk and keep_small_colour:
        keep_small_colour_on(c)
    # Boxes persist for every following page in ReportLab; all pages share them.
    c.setTrimBox((bleed * mm, bleed * mm, (bleed + w) * mm, (bleed + h) * mm))
    c.setBleedBox((0, 0, page[0] * mm, page[1] * mm))
    forms = FaceForms(c, game, card_size, bleed, lang, overflows, corner_index)
    for index, (front, back) in enumerate(pairs):
        for face in ((back, front) if back_first else (front, back)):
            name = forms.define(index, face)
            forms.place(name, bleed, bleed)
            c.showPage()
        if progress:
            progress(1)
    c.save()
    return buffer.getvalue()


def page_labels(game, pairs: Sequence[tuple[object, object]], back_first: bool = False) -> list[tuple[int, str, str, str | None]]:
    """(page index, card id, side, shared back) for every page of `printshop_pdf`, in order.

    `shared back` names the back group for a back that several cards share (see
    `sheet.shared_back`), None for fronts and cards' own backs.
    """
    out = []
    front_page, back_page = (1, 0) if back_first else (0, 1)
    for index, (front, back) in enumerate(pairs):
        page = [(2 * index + front_page, front.card.id, "front", None),
                (2 * index + back_page, back.card.id, "back", shared_back(game, back))]
        out += sorted(page)
    return out
