"""Register the bundled fonts with ReportLab (once per process), and make every PDF cardgen
writes use binary streams."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from reportlab import rl_config
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from .io.paths import package_root

GOTHIC = "IPAexGothic"
MINCHO = "IPAexMincho"
FONT_FILES = {GOTHIC: "ipaexg.ttf", MINCHO: "ipaexm.ttf"}

# Every module that draws a PDF imports this one, so this is where ReportLab is told, for the
# whole process, to write plain Flate streams instead of Flate + ASCII85 (its default): ASCII85
# makes every stream a quarter larger and costs its pure-Python encoder's time in every
# rulebook, standard-deck sheet and playtest kit (`sheet.binary_streams` restores this value).
rl_config.useA85 = 0


def fonts_dir() -> Path:
    return package_root() / "fonts"


@cache
def register_fonts() -> tuple[str, str]:
    """Register IPAex Gothic and Mincho (TrueType outlines, so embedded and subset) and return their names."""
    for name, filename in FONT_FILES.items():
        pdfmetrics.registerFont(TTFont(name, str(fonts_dir() / filename)))
    return GOTHIC, MINCHO
