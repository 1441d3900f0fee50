"""Handing off to a print service (issue 27): what `build --preset X` writes is what the service
takes, with no renaming, pairing or splitting by hand. Everything runs through the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pypdfium2 as pdfium
from pypdf import PdfReader


def cardgen(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cardgen", *args], capture_output=True, text=True, timeout=600, cwd=cwd)


def page_texts(path: Path) -> list[str]:
    """Each page's text (PDFium: pypdf takes a minute over the embedded Japanese fonts)."""
    document = pdfium.PdfDocument(path)
    try:
        return [page.get_textpage().get_text_range() for page in document]
    finally:
        document.close()


def test_dtc_puts_each_cards_back_page_before_its_front(tmp_path):
    """DTC's page order (presets.py): back, front for every card; the default print-shop file keeps front, back."""
    done = cardgen("build", "ohanatsumi", "--preset", "dtc", "--out", str(tmp_path / "dtc"))
    assert done.returncode == 0, done.stderr
    plain = cardgen("build", "ohanatsumi", "--only", "shop", "--out", str(tmp_path / "plain"))
    assert plain.returncode == 0, plain.stderr
    dtc = page_texts(tmp_path / "dtc" / "ohanatsumi" / "ohanatsumi-dtc-cmyk.pdf")
    fronts_first = page_texts(tmp_path / "plain" / "ohanatsumi" / "ohanatsumi-print-shop.pdf")
    assert len(dtc) == len(fronts_first) == len(PdfReader(tmp_path / "dtc" / "ohanatsumi" / "ohanatsumi-dtc-cmyk.pdf").pages) == 260
    assert dtc[0] != dtc[1]  # a card's two faces differ, so the order below is seen
    for card in range(len(dtc) // 2):
        front, back = fronts_first[2 * card], fronts_first[2 * card + 1]
        assert (dtc[2 * card], dtc[2 * card + 1]) == (back, front), f"card {card + 1}"
    assert "裏面" in dtc[1] and "裏面" not in dtc[0]  # OH001's front names its back (裏面: ...); it is page 2
