"""The standard corner index drawn on a face (rank above a vector suit) and the suits' print colours.

A card face draws it when a game maps its cards to ordinary playing cards (`--corner-index`);
the standard-deck sheet draws the same suits in the same colours.
"""

from __future__ import annotations

from reportlab.lib import colors

from ...fonts import draw_string, register_fonts, string_width
from ..colour import plate_colour
from . import icons

RED = colors.HexColor("#C8102E")
BLACK = colors.HexColor("#111111")
GREY = colors.HexColor("#666666")


def suit_colour(suit: str | None) -> colors.Color:
    """Red for hearts, diamonds and the red joker; black otherwise; grey for a joker of either colour."""
    if suit in ("hearts", "diamonds", "red"):
        return RED
    if suit is None:
        return GREY
    return BLACK


def draw_suit(canvas, suit: str | None, cx: float, cy: float, size: float) -> None:
    """A standard suit (or a joker star for None, "red", "black") in its print colour; see icons.draw_suit."""
    icons.draw_suit(canvas, suit, cx, cy, size, suit_colour(suit))


def draw_index(canvas, x: float, top: float, rank_label: str, suit: str | None, size: float,
               lang: str, font: str | None = None, align: str = "left") -> float:
    """Draw a corner index (rank above a vector suit) with its top at `top`; return its height.

    `rank_label` and `suit` are what `cardgen.mapping.corner_index` returns. `size` is the
    rank's font size in points; the suit below is drawn 0.8 times as tall. `align` is left,
    centre or right about `x` (use right in a right-hand corner). Rotate the canvas 180°
    about the card centre before calling to draw the opposite corner.
    """
    font = font or register_fonts()[0]
    canvas.saveState()
    canvas.setFillColor(plate_colour(canvas, suit_colour(suit), size))  # the rank is text: K only when small in the CMYK file
    label = "JK" if rank_label in ("JK", "JOKER") else rank_label
    width = string_width(label, font, size, lang)  # set as every text of `lang` is (fonts.face_of)
    cap = size * 0.75
    centre = {"left": x + width / 2, "centre": x, "center": x, "right": x - width / 2}[align]
    canvas.setFont(font, size)
    draw_string(canvas, centre, top - cap, label, lang, "centre")
    suit_size = size * 0.8
    draw_suit(canvas, suit, centre, top - cap - size * 0.25 - suit_size / 2, suit_size)
    canvas.restoreState()
    return cap + size * 0.25 + suit_size
