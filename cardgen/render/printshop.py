"""Print-shop files: one card face per page, with bleed, TrimBox and BleedBox.

Each page is the trimmed card plus `bleed` mm on every side (MediaBox = BleedBox); the
TrimBox is the card itself.  Pages go front, back, front, back ... in card order, so a shop
that prints "page 2n on the back of page 2n-1" gets every back, including a card's own back,
behind its front.  The default bleed is 1/8 in (3.175 mm), which also satisfies shops that
ask for 3 mm, and makes the 300 dpi PNGs the common 825 x 1125 px for poker cards.
"""

from __future__ import annotations

import io
from typing import Callable, Sequence

from reportlab.lib.units import mm

from .sheet import FaceForms, binary_streams, new_canvas, shared_back

SHOP_BLEED_MM = 3.175


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
) -> bytes:
    """Return the PDF bytes: for every card its front page, then its back page."""
    w, h = card_size
    page = (w + 2 * bleed, h + 2 * bleed)
    buffer = io.BytesIO()
    c = new_canvas(buffer, page, f"{game.title.get(lang)} — print-shop file")
    # Boxes persist for every following page in ReportLab; all pages share them.
    c.setTrimBox((bleed * mm, bleed * mm, (bleed + w) * mm, (bleed + h) * mm))
    c.setBleedBox((0, 0, page[0] * mm, page[1] * mm))
    forms = FaceForms(c, game, card_size, bleed, lang, overflows, corner_index)
    for index, (front, back) in enumerate(pairs):
        for face in (front, back):
            name = forms.define(index, face)
            forms.place(name, bleed, bleed)
            c.showPage()
        if progress:
            progress(1)
    c.save()
    return buffer.getvalue()


def page_labels(game, pairs: Sequence[tuple[object, object]]) -> list[tuple[int, str, str, str | None]]:
    """(page index, card id, side, shared back) for every page of `printshop_pdf`, in order.

    `shared back` names the back group for a back that several cards share (see
    `sheet.shared_back`), None for fronts and cards' own backs.
    """
    out = []
    for index, (front, back) in enumerate(pairs):
        out.append((2 * index, front.card.id, "front", None))
        out.append((2 * index + 1, back.card.id, "back", shared_back(game, back)))
    return out
