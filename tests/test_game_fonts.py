"""A game's own fonts (issue 10): a layout's `font:` names a file of the game folder's fonts/,
looked up before the bundled faces; a bad or unknown font is a message at the layout line."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import matplotlib
import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from cardgen.cli import cli
from cardgen.load import load_game
from cardgen.render.cards.card import faces
from cardgen.render.print.printshop import printshop_pdf

FIXTURE = Path(__file__).parent / "fixtures" / "art_game"
# a TrueType font every install has: matplotlib (a dependency) ships DejaVu
DEJAVU = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSerif.ttf"


def _game_with_font(tmp_path: Path, font_line: str, font_file: bytes | None) -> Path:
    folder = tmp_path / "art_game"
    shutil.copytree(FIXTURE, folder)
    layout = folder / "templates" / "layout.yaml"
    text = layout.read_text(encoding="utf-8")
    old = 'text: "{{ name }}", size: 12, align: center}'
    assert old in text
    layout.write_text(text.replace(old, f'text: "{{{{ name }}}}", size: 12, align: center, font: {font_line}}}'), encoding="utf-8")
    if font_file is not None:
        (folder / "fonts").mkdir()
        (folder / "fonts" / "serif.ttf").write_bytes(font_file)
    return folder


def _embedded_fonts(pdf: bytes) -> dict[str, bool]:
    """BaseFont name -> whether the font program is embedded, over every page and form."""
    reader = PdfReader(io.BytesIO(pdf))
    found: dict[str, bool] = {}

    def walk(resources) -> None:
        if resources is None:
            return
        resources = resources.get_object()
        for font in (resources.get("/Font") or {}).values():
            font = font.get_object()
            descriptors = [font.get("/FontDescriptor")] + [d.get_object().get("/FontDescriptor") for d in font.get("/DescendantFonts", [])]
            embedded = any(d is not None and any(k in d.get_object() for k in ("/FontFile", "/FontFile2", "/FontFile3")) for d in descriptors)
            found[str(font["/BaseFont"])] = embedded
        for xobject in (resources.get("/XObject") or {}).values():
            walk(xobject.get_object().get("/Resources"))

    for page in reader.pages:
        walk(page.get("/Resources"))
    return found


def test_a_layout_font_from_the_game_folder_is_embedded(tmp_path):
    folder = _game_with_font(tmp_path, "serif", DEJAVU.read_bytes())
    game = load_game(str(folder))
    pdf = printshop_pdf(game, faces(game), (63.5, 88.9), 3.175, "en", [], None)
    fonts = _embedded_fonts(pdf)
    dejavu = [name for name in fonts if "DejaVuSerif" in name]
    assert dejavu, fonts
    assert all(fonts[name] for name in fonts)  # every font embedded, the game's own included


def test_the_game_folder_may_replace_a_bundled_face(tmp_path):
    """fonts/gothic.ttf in the folder is used where the layout says gothic (game folder first)."""
    folder = _game_with_font(tmp_path, "gothic", None)
    (folder / "fonts").mkdir()
    (folder / "fonts" / "gothic.ttf").write_bytes(DEJAVU.read_bytes())
    game = load_game(str(folder))
    pdf = printshop_pdf(game, faces(game), (63.5, 88.9), 3.175, "en", [], None)
    assert any("DejaVuSerif" in name for name in _embedded_fonts(pdf))


def test_an_unknown_font_is_refused_at_its_layout_line(tmp_path):
    folder = _game_with_font(tmp_path, "comic", None)
    result = CliRunner().invoke(cli, ["check", str(folder), "--no-simulate"])
    assert result.exit_code == 1
    assert "layout.yaml:12:" in result.output and "font 'comic' is unknown" in result.output
    assert "fonts/comic.ttf" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("data", [b"", b"not a font at all" * 100, DEJAVU.read_bytes()[:5000]], ids=["empty", "text", "truncated"])
def test_a_broken_font_file_is_a_message_not_a_traceback(tmp_path, data):
    folder = _game_with_font(tmp_path, "serif", data)
    result = CliRunner().invoke(cli, ["check", str(folder), "--no-simulate"])
    assert result.exit_code == 1, result.output
    assert "serif.ttf is not a usable TrueType font" in result.output
    assert "Traceback" not in result.output


def test_a_font_file_over_the_limit_is_refused(tmp_path, monkeypatch):
    from cardgen.io import limits

    monkeypatch.setattr(limits, "MAX_FONT_BYTES", 1000)
    folder = _game_with_font(tmp_path, "serif", DEJAVU.read_bytes())
    result = CliRunner().invoke(cli, ["check", str(folder), "--no-simulate"])
    assert result.exit_code == 1
    assert "a font file may be at most" in result.output


def test_english_punctuation_is_set_typographically_in_a_latin_face(tmp_path):
    """Issue 27: ' " ... and a spaced hyphen print as ’ “ ” … and – with the game's Latin font,
    read back from the card PDF (set after the template ran, so its own syntax is never touched)."""
    folder = _game_with_font(tmp_path, "serif", DEJAVU.read_bytes())
    cards = folder / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    cards.write_text(text.replace("name: {ja: 青, en: Blue}", """name: {ja: 青, en: "The King's \\"Blue\\"... - rest"}"""), encoding="utf-8")
    game = load_game(str(folder))
    pdf = printshop_pdf(game, faces(game), (63.5, 88.9), 3.175, "en", [], None)
    printed = " ".join(" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf)).pages)
    assert "The King’s “Blue”… – rest" in printed, printed
    assert "'" not in printed and '"' not in printed and "..." not in printed
