"""Colour conversion every renderer may need: sRGB to the print-shop CMYK through the shipped profile.

A face drawn for a PDF/X-1a file (`--preset dtc`) converts its colours and pixels here; the
print-shop file sets `to_cmyk` as its canvas's colour hook. It lives below cards and print
because both use it.
"""

from __future__ import annotations

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


def to_cmyk(colour) -> CMYKColor:
    """ReportLab's colour hook for the CMYK canvas: any colour in, a CMYKColor out (opaque)."""
    if isinstance(colour, (tuple, list)):
        colour = Color(*colour[:3]) if len(colour) == 3 else CMYKColor(*colour[:4])
    elif isinstance(colour, str):
        colour = toColor(colour)
    if isinstance(colour, CMYKColor):
        return CMYKColor(colour.cyan, colour.magenta, colour.yellow, colour.black, alpha=1)
    alpha = getattr(colour, "alpha", 1)
    alpha = 1 if alpha is None else alpha
    # flatten over white paper: PDF/X-1a has no transparency
    rgb = [alpha * v + (1 - alpha) for v in (colour.red, colour.green, colour.blue)]
    c, m, y, k = rgb_to_cmyk(*(max(0, min(255, round(v * 255))) for v in rgb))
    return CMYKColor(c, m, y, k, alpha=1)


# The prepress rule for the CMYK file: text below 12 pt and rules thinner than 1 pt that are
# black, grey or near-neutral (a warm near-black ink, a cream knockout) print on the K plate
# only, so that misregistration cannot fringe them; rich black is for large areas. A clearly
# coloured text keeps its colour (it needs its plates).
SMALL_TEXT_PT = 12.0
THIN_RULE_PT = 1.0
NEUTRAL_SPREAD = 0.12  # largest minus smallest sRGB channel (0..1) of a colour counted as neutral


def is_cmyk_canvas(c) -> bool:
    return getattr(c, "_enforceColorSpace", None) is to_cmyk


def k_only(colour) -> CMYKColor | None:
    """The K-only equivalent of a neutral colour (K = 1 - its luma over white), None when coloured."""
    if isinstance(colour, CMYKColor):
        return colour if colour.cyan == colour.magenta == colour.yellow == 0 else None
    if isinstance(colour, (tuple, list)):
        colour = Color(*colour[:3])
    elif isinstance(colour, str):
        colour = toColor(colour)
    alpha = getattr(colour, "alpha", 1)
    alpha = 1 if alpha is None else alpha
    rgb = [alpha * v + (1 - alpha) for v in (colour.red, colour.green, colour.blue)]
    if max(rgb) - min(rgb) > NEUTRAL_SPREAD:
        return None
    luma = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
    return CMYKColor(0, 0, 0, round(max(0.0, min(1.0, 1 - luma)), 4), alpha=1)


def plate_colour(c, colour, size_pt: float, limit_pt: float = SMALL_TEXT_PT):
    """`colour` for text of `size_pt` (or a rule of that width, with limit THIN_RULE_PT) on canvas
    `c`: K-only on the CMYK canvas when small and neutral, else unchanged."""
    if colour is None or size_pt >= limit_pt or not is_cmyk_canvas(c):
        return colour
    return k_only(colour) or colour
