"""Icons inside card text (`:coin:`, `{icon:coin}`): one ideograph to the Japanese breaker (kinsoku
included), a word in English, one em wide when fitting, drawn on the baseline in the text's colour,
and an unknown name is an error at the card's line. Fixture: tests/fixtures/art_game."""

from __future__ import annotations

import ctypes
import shutil
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from click.testing import CliRunner
from reportlab.lib.units import mm

from cardgen.cli import cli
from cardgen.errors import DataError
from cardgen.fonts import register_fonts, resolve_face
from cardgen.load import load_game
from cardgen.render.cards import icons
from cardgen.render.cards.card import card_size_mm, faces
from cardgen.render.print.printshop import printshop_pdf
from cardgen.text import NO_LINE_START, Run, break_lines, fit_text, icon_char, mark_icons, runs, text_width

FIXTURE = Path(__file__).parent / "fixtures" / "art_game"
GOTHIC = register_fonts()[0]


def known(name: str) -> bool:
    return name in ("coin", "star")


@pytest.fixture
def art_game(tmp_path: Path) -> Path:
    target = tmp_path / "art_game"
    shutil.copytree(FIXTURE, target)
    return target


def test_markup_becomes_runs_and_leaves_other_colons_alone():
    assert runs("Gain 2 :coin: and {icon:star}.", known) == [
        Run("text", "Gain 2 "), Run("icon", "coin"), Run("text", " and "), Run("icon", "star"), Run("text", ".")]
    assert runs("3:coin:", known) == [Run("text", "3"), Run("icon", "coin")]
    for plain in ("at 10:30:00", "ratio a:coin:b", "行動：coin：", "Note:coin:s"):
        assert runs(plain, known) == [Run("text", plain)], plain


def test_an_icon_breaks_like_an_ideograph_and_obeys_kinsoku():
    # six ems wide: "あいうえお" and the icon would fill the line, leaving "」" to start the next one
    width = 6 * 10.0  # ideographs and kana are one em in IPAex Gothic
    lines = break_lines(mark_icons("あいうえお:coin:」かきく", known), GOTHIC, 10, width, "ja")
    assert not any(line[0] in NO_LINE_START for line in lines[1:])
    icon_line = next(line for line in lines if icon_char("coin") in line)
    assert icon_line[icon_line.index(icon_char("coin")) + 1] == "」"  # the bracket stays with the icon
    as_kanji = break_lines("あいうえお漢」かきく", GOTHIC, 10, width, "ja")
    assert [len(line) for line in lines] == [len(line) for line in as_kanji]
    free = break_lines(mark_icons("あいうえお:coin:かきくけこ", known), GOTHIC, 10, width, "ja")
    assert [len(line) for line in free] == [len(line) for line in break_lines("あいうえお漢かきくけこ", GOTHIC, 10, width, "ja")]


def test_english_wraps_an_icon_as_a_word():
    text = mark_icons("Gain :coin: now", known)
    assert text_width(text, GOTHIC, 10, "en") == pytest.approx(text_width("Gain  now", GOTHIC, 10, "en") + 10)
    width = text_width("Gain ", GOTHIC, 10, "en") + 5  # "Gain" and half an icon, as English is set
    assert break_lines(text, GOTHIC, 10, width, "en") == ["Gain", icon_char("coin"), "now"]


def test_fitting_counts_an_icon_one_em_wide():
    text = mark_icons(":star:" * 10, known)  # ten icons with no space: one word of 10 em
    assert fit_text(text, GOTHIC, 100, 12.5, 10, 10, "en").overflow is False
    assert fit_text(text, GOTHIC, 99, 12.5, 10, 10, "en").overflow is True
    shrunk = fit_text(text, GOTHIC, 90, 12.5, 10, 6, "en")
    assert not shrunk.overflow and shrunk.size == pytest.approx(9.0)


def _origin(textpage, index: int) -> tuple[float, float]:
    x, y = ctypes.c_double(), ctypes.c_double()
    assert pdfium.raw.FPDFText_GetCharOrigin(textpage.raw, index, ctypes.byref(x), ctypes.byref(y))
    return x.value, y.value


def test_the_icon_is_drawn_on_the_baseline_in_the_text_colour():
    game = load_game(str(FIXTURE))
    pdf = printshop_pdf(game, faces(game), card_size_mm(game), 3.0, "en")
    page = pdfium.PdfDocument(pdf)[0]  # A01: "Gain 2 :coin: and a {icon:star}." in #B00020
    textpage = page.get_textpage()
    text = textpage.get_text_range()
    two = text.index("2")
    baseline = _origin(textpage, two)[1]
    size = pdfium.raw.FPDFText_GetFontSize(textpage.raw, two)
    latin = resolve_face(None, "gothic", "en", False)[0]  # English text is set in the Latin face of the gothic
    left = _origin(textpage, two)[0] + text_width("2 ", latin, size, "en")  # the icon's em starts after "Gain 2 "
    right = left + size
    # the text after the icon starts one em later: its " " then "and"
    assert _origin(textpage, text.index("and"))[0] == pytest.approx(right + text_width(" ", latin, size, "en"), abs=0.05)
    scale = 20 / mm  # render at 20 px per mm
    image = page.render(scale=scale).to_pil().convert("RGB")
    height_pt = page.get_height()
    column = round((left + right) / 2 * scale)
    inked = [y for y in range(image.height) if _is_ink(image.getpixel((column, y)))]
    assert inked, "no icon drawn between '2 ' and ' and'"
    bottom_pt = height_pt - (inked[-1] + 1) / scale
    top_pt = height_pt - inked[0] / scale
    assert bottom_pt == pytest.approx(baseline, abs=0.1 * mm)  # coin.svg is a full square: it stands on the baseline
    assert top_pt - bottom_pt == pytest.approx(icons.INLINE_SIDE * size, abs=0.1 * mm)
    row = round((height_pt - baseline - size / 2) * scale)
    across = [x for x in range(round(left * scale) - 20, round(right * scale) + 1) if _is_ink(image.getpixel((x, row)))]
    assert across[0] / scale == pytest.approx(left + (1 - icons.INLINE_SIDE) / 2 * size, abs=0.1 * mm)
    assert (across[-1] + 1) / scale == pytest.approx(right - (1 - icons.INLINE_SIDE) / 2 * size, abs=0.1 * mm)


def _is_ink(rgb) -> bool:
    return abs(rgb[0] - 0xB0) < 40 and rgb[1] < 60 and rgb[2] < 80


def test_unknown_icon_is_an_error_at_the_card_line(art_game):
    cards = art_game / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("{icon:star}", ":stra:"), encoding="utf-8")
    game = load_game(str(art_game))
    with pytest.raises(DataError) as raised:
        printshop_pdf(game, faces(game), card_size_mm(game), 3.0, "en")
    problem = raised.value.problems[0]
    assert problem.location.path.endswith("cards.yaml") and problem.location.line == 3
    assert "':stra:'" in problem.message and "icons/stra.svg" in problem.message
    result = CliRunner().invoke(cli, ["check", str(art_game), "--no-simulate"])
    assert result.exit_code == 1
    assert "cards.yaml:3:" in result.output and ":stra:" in result.output and "Traceback" not in result.output


def test_draw_inline_uses_the_game_icons_folder_first(art_game):
    game = load_game(str(art_game))
    assert icons.inline_known(game, "coin") and icons.inline_known(game, "star")
    assert not icons.inline_known(game, "stra") and not icons.inline_known(None, "coin")
    (art_game / "icons" / "coin.svg").unlink()
    assert not icons.inline_known(load_game(str(art_game)), "coin")


def test_unknown_icon_written_in_the_layout_is_an_error_at_the_layout_line(art_game):
    layout = art_game / "templates" / "layout.yaml"
    layout.write_text(layout.read_text(encoding="utf-8").replace('text: "{{ name }}"', 'text: "Name :nosuch:"'), encoding="utf-8")
    game = load_game(str(art_game))
    with pytest.raises(DataError) as raised:
        printshop_pdf(game, faces(game), card_size_mm(game), 3.0, "en")
    problem = raised.value.problems[0]
    assert problem.location.path.endswith("layout.yaml") and problem.location.line == 12
    assert "':nosuch:'" in problem.message


def test_icon_boxes_draw_the_game_icons_too(art_game):
    layout = art_game / "templates" / "layout.yaml"
    text = layout.read_text(encoding="utf-8")
    badge = '      - {name: badge, kind: icon, icon: coin, at: [50, 4, 8, 8], colour: "#0000FF"}\n'
    layout.write_text(text.replace("      - {name: rules,", badge + "      - {name: rules,"), encoding="utf-8")
    game = load_game(str(art_game))
    pdf = printshop_pdf(game, faces(game), card_size_mm(game), 3.0, "en")
    image = pdfium.PdfDocument(pdf)[0].render(scale=10 / mm).to_pil().convert("RGB")
    r, g, b = image.getpixel((round((54 + 3) * 10), round((8 + 3) * 10)))  # the box's centre, 10 px per mm
    assert b > 200 and r < 40 and g < 40  # coin.svg in the box's colour
    layout.write_text(text.replace("      - {name: rules,", badge.replace("icon: coin", "icon: nosuch") + "      - {name: rules,"),
                      encoding="utf-8")
    game = load_game(str(art_game))
    with pytest.raises(DataError, match="icon 'nosuch' is unknown") as raised:
        faces(game)  # the layout is read: the unknown name is refused there
    assert raised.value.problems[0].location.line == 14  # the badge's line


def test_an_overflow_message_shows_the_icon_as_written():
    """Messages a person reads (overflow errors, preview warnings) spell an icon as its markup, not as
    the private-use character the breaker works with."""
    from cardgen.text import mark_icons, unmark_icons

    marked = mark_icons("Gain 2 :coin: and {icon:star}.")
    assert marked != "Gain 2 :coin: and {icon:star}."
    assert unmark_icons(marked) == "Gain 2 :coin: and :star:."
    assert unmark_icons("no icons here") == "no icons here"
