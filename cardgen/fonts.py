"""Register the bundled fonts with ReportLab (once per process)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from .io.paths import package_root

GOTHIC = "IPAexGothic"
MINCHO = "IPAexMincho"
FONT_FILES = {GOTHIC: "ipaexg.ttf", MINCHO: "ipaexm.ttf"}


def fonts_dir() -> Path:
    return package_root() / "fonts"


@cache
def register_fonts() -> tuple[str, str]:
    """Register IPAex Gothic and Mincho (TrueType outlines, so embedded and subset) and return their names."""
    for name, filename in FONT_FILES.items():
        pdfmetrics.registerFont(TTFont(name, str(fonts_dir() / filename)))
    return GOTHIC, MINCHO
