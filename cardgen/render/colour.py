"""Colour conversion every renderer may need: sRGB to the print-shop CMYK through the shipped profile.

A face drawn for a PDF/X-1a file (`--preset dtc`) converts its colours and pixels here; the
print-shop file sets `to_cmyk` as its canvas's colour hook. It lives below cards and print
because both use it.
"""

from __future__ import annotations

from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path

from reportlab.lib.colors import CMYKColor, Color, toColor

ICC_PROFILE = Path(__file__).resolve().parents[1] / "assets" / "icc" / "cardgen-FOGRA39L-coated.icc"


@lru_cache(maxsize=1)
def cmyk_transform():
    """The one sRGB -> FOGRA39 transform (relative colorimetric), for colours and pixels alike."""
    from PIL import ImageCms

    srgb = ImageCms.createProfile("sRGB")
    cmyk = ImageCms.ImageCmsProfile(str(ICC_PROFILE))
    return ImageCms.buildTransform(srgb, cmyk, "RGB", "CMYK", renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)


@lru_cache(maxsize=4096)
def rgb_to_cmyk(r: int, g: int, b: int) -> tuple[float, float, float, float]:
    """CMYK (0..1) of an sRGB colour (0..255) through the shipped FOGRA39 profile; greys are K only."""
    if r == g == b:
        return 0.0, 0.0, 0.0, round(1 - r / 255, 4)
    from PIL import Image, ImageCms

    pixel = ImageCms.applyTransform(Image.new("RGB", (1, 1), (r, g, b)), cmyk_transform()).getpixel((0, 0))
    return tuple(round(v / 255, 4) for v in pixel)  # type: ignore[return-value]


def _as_colour(colour):
    """A ReportLab colour from what a layout or renderer passes: a Color, an (r, g, b) or (c, m, y, k) tuple, a name."""
    if isinstance(colour, (tuple, list)):
        return Color(*colour[:3]) if len(colour) == 3 else CMYKColor(*colour[:4])
    if isinstance(colour, str):
        return toColor(colour)
    return colour


def _over_white(colour) -> list[float]:
    """The sRGB (0..1) of a colour flattened over white paper: PDF/X-1a has no transparency."""
    alpha = getattr(colour, "alpha", 1)
    alpha = 1 if alpha is None else alpha
    return [alpha * v + (1 - alpha) for v in (colour.red, colour.green, colour.blue)]


def to_cmyk(colour) -> CMYKColor:
    """ReportLab's colour hook for the CMYK canvas: any colour in, a CMYKColor out (opaque)."""
    colour = _as_colour(colour)
    if isinstance(colour, CMYKColor):
        return CMYKColor(colour.cyan, colour.magenta, colour.yellow, colour.black, alpha=1)
    c, m, y, k = rgb_to_cmyk(*(max(0, min(255, round(v * 255))) for v in _over_white(colour)))
    return CMYKColor(c, m, y, k, alpha=1)


# The prepress rule for the CMYK file: every text below 12 pt and every rule thinner than 1 pt
# prints on the K plate only, so that misregistration cannot fringe it; rich black is for large
# areas. A neutral colour (black, grey, a warm near-black ink, a cream knockout) becomes the K of
# its lightness; so does a coloured one (a red label becomes a grey as dark), since small text
# carries its meaning in its words. `--keep-small-colour` (`keep_small_colour_on`) lets the coloured
# ones keep their plates; the neutral ones go to K either way.
SMALL_TEXT_PT = 12.0
THIN_RULE_PT = 1.0
NEUTRAL_SPREAD = 0.12  # largest minus smallest sRGB channel (0..1) of a colour counted as neutral

# While a list, each coloured small text or thin rule pulled to K adds its colour (the build counts them).
K_PULLED: ContextVar[list | None] = ContextVar("K_PULLED", default=None)


def is_cmyk_canvas(c) -> bool:
    return getattr(c, "_enforceColorSpace", None) is to_cmyk


def keep_small_colour_on(c) -> None:
    """Let coloured small text and thin rules on the CMYK canvas `c` keep their plates (--keep-small-colour)."""
    c.__dict__["_cardgen_keep_small_colour"] = True


def k_grey(colour) -> CMYKColor:
    """The K-only grey of the same lightness: K = 1 - the sRGB luma of the colour over white."""
    colour = _as_colour(colour)
    rgb = _over_white(colour)
    luma = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
    return CMYKColor(0, 0, 0, round(max(0.0, min(1.0, 1 - luma)), 4), alpha=1)


def k_only(colour) -> CMYKColor | None:
    """The K-only equivalent of a neutral colour (its `k_grey`), None when coloured."""
    colour = _as_colour(colour)
    if isinstance(colour, CMYKColor):
        return colour if colour.cyan == colour.magenta == colour.yellow == 0 else None
    rgb = _over_white(colour)
    if max(rgb) - min(rgb) > NEUTRAL_SPREAD:
        return None
    return k_grey(colour)


def plate_colour(c, colour, size_pt: float, limit_pt: float = SMALL_TEXT_PT):
    """`colour` for text of `size_pt` (or a rule of that width, with limit THIN_RULE_PT) on canvas
    `c`: on the CMYK canvas, when small, K only (its `k_grey`), unless coloured and the canvas keeps
    small colour; else unchanged."""
    if colour is None or size_pt >= limit_pt or not is_cmyk_canvas(c):
        return colour
    neutral = k_only(colour)
    if neutral is not None:
        return neutral
    if c.__dict__.get("_cardgen_keep_small_colour"):
        return colour
    pulled = K_PULLED.get()
    if pulled is not None:
        pulled.append(colour)
    return k_grey(colour)
