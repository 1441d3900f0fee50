"""Font subsets: the bundled faces' subsets are ReportLab's, written without copying the font."""

from __future__ import annotations

import tracemalloc

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from cardgen.fonts import FONT_FILES, GOTHIC, fonts_dir, register_fonts

CODES = [ord(ch) for ch in "あいうえお漢字カードAbc123、。"]


def test_a_subset_does_not_copy_the_fonts_glyph_table():
    register_fonts()
    face = pdfmetrics.getFont(GOTHIC).face
    glyf_bytes = face.get_table_pos("glyf")[1]
    assert glyf_bytes > 3_000_000  # IPAex Gothic: a copy of it is what the test would see
    face.makeSubset(CODES)  # warm whatever a first call allocates once
    tracemalloc.start()
    try:
        face.makeSubset(CODES)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < glyf_bytes / 10


def test_a_subset_is_byte_for_byte_reportlabs_own():
    register_fonts()
    ours = pdfmetrics.getFont(GOTHIC).face.makeSubset(CODES)
    plain = TTFont("plain-ipaexg", str(fonts_dir() / FONT_FILES[GOTHIC])).face.makeSubset(CODES)
    assert ours == plain
