"""Art in `kind: image` boxes: PNG, JPEG and SVG from the game folder, embedded once per PDF, SVG kept
vector, placed by fit and anchor, a placeholder and a `check` warning for a missing file or low
resolution, hostile files refused at their line. Fixture: tests/fixtures/art_game."""

from __future__ import annotations

import ctypes
import io
import os
import shutil
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from click.testing import CliRunner
from PIL import Image
from pypdf import PdfReader
from pypdf.generic import IndirectObject

from cardgen.cli import cli
from cardgen.errors import DataError
from cardgen.load import load_game
from cardgen.render.cards.card import card_size_mm, faces
from cardgen.render.print.printshop import page_labels, printshop_pdf
from cardgen.render.cards.raster import face_pngs

FIXTURE = Path(__file__).parent / "fixtures" / "art_game"
BLEED = 3.0
# the art box of the fixture's layout, in mm from the trimmed card's top-left corner
BOX = (8.0, 14.0, 47.0, 30.0)
RED, YELLOW, BLUE = (220, 0, 0), (255, 220, 0), (0, 60, 200)


@pytest.fixture
def art_game(tmp_path: Path) -> Path:
    target = tmp_path / "art_game"
    shutil.copytree(FIXTURE, target)
    return target


def shop(folder: Path, lang: str = "en") -> bytes:
    game = load_game(str(folder))
    return printshop_pdf(game, faces(game), card_size_mm(game), BLEED, lang)


def page_image(pdf: bytes, index: int, px_per_mm: float = 10.0) -> Image.Image:
    doc = pdfium.PdfDocument(pdf)
    return doc[index].render(scale=px_per_mm * 25.4 / 72).to_pil().convert("RGB")


def pixel(image: Image.Image, x_mm: float, y_mm: float, px_per_mm: float = 10.0) -> tuple[int, int, int]:
    """The colour at (x, y) mm from the trimmed card's top-left corner."""
    return image.getpixel((round((x_mm + BLEED) * px_per_mm), round((y_mm + BLEED) * px_per_mm)))


def near(a, b, tol: int = 12) -> bool:
    return all(abs(p - q) <= tol for p, q in zip(a, b))


def xobjects(pdf: bytes) -> tuple[dict, dict]:
    """Every image and form XObject reachable from any page: ({object number: image}, {object number: (name, form)})."""
    images: dict = {}
    forms: dict = {}

    def walk(resources) -> None:
        xobj = resources.get("/XObject") if resources else None
        if not xobj:
            return
        for name, ref in xobj.get_object().items():
            key = ref.idnum if isinstance(ref, IndirectObject) else id(ref)
            obj = ref.get_object()
            if obj["/Subtype"] == "/Image":
                images[key] = obj
            elif key not in forms:
                forms[key] = (str(name), obj)
                walk(obj.get("/Resources"))

    for page in PdfReader(io.BytesIO(pdf)).pages:
        walk(page.get("/Resources"))
    return images, forms


def _filter(image) -> str:
    f = image.get("/Filter")
    return str(f[-1] if isinstance(f, list) else f)


def test_each_image_is_embedded_once_at_full_resolution(art_game):
    pdf = shop(art_game)
    images, forms = xobjects(pdf)
    # halves.png is on two cards, blue.jpg on two: one image each, at the file's pixel size (the JPEG as it is)
    sizes = sorted((int(i["/Width"]), int(i["/Height"]), _filter(i)) for i in images.values())
    assert sizes == [(480, 480, "/DCTDecode"), (800, 400, "/FlateDecode")]
    art = {key: form for key, (name, form) in forms.items() if "CardgenArt" in name}
    assert len(art) == 3  # one form per file, placed by every card that uses it (green.svg: a front and the shared back)
    back = next(form for key, (name, form) in forms.items() if "CardgenBack" in name)
    assert any(ref.idnum in art for ref in back["/Resources"]["/XObject"].values())
    with_image = [form for form in art.values() if form["/Resources"].get("/XObject")]
    assert len(with_image) == 2  # the SVG's form holds no raster image


def test_svg_stays_vector_with_its_text(art_game):
    pdf = shop(art_game)
    doc = pdfium.PdfDocument(pdf)
    green_front = 8  # A05, the fifth card's front
    kinds = {obj.type for obj in doc[green_front].get_objects(max_depth=4)}
    assert pdfium.raw.FPDF_PAGEOBJ_IMAGE not in kinds
    assert pdfium.raw.FPDF_PAGEOBJ_PATH in kinds
    # its text stays text, in a bundled font (green.svg names a font file outside the folder: not opened)
    textpage = doc[green_front].get_textpage()
    text = textpage.get_text_range()
    assert "絵 ART" in text
    start = text.index("絵 ART")
    assert {_font_of(textpage, i) for i in (start, start + 2, start + 4)} == {"IPAexGothic"}
    assert near(pixel(page_image(pdf, green_front), 18, 16), (16, 160, 64))  # contain: x 16.5..46.5


TEXTS_SVG = """<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100">
  <text x="5" y="20" font-family="Arial" font-size="14">Treasure</text>
  <text x="5" y="40" font-family="Times New Roman" font-size="14">Café <tspan>Noir</tspan></text>
  <text x="5" y="60" font-family="Arial" font-size="14">金貨</text>
  <text x="5" y="80" font-family="Arial" font-size="14">Gold <tspan font-family="serif">金</tspan></text>
</svg>""".encode()


@pytest.mark.parametrize("lang, faces", [
    ("ja", {"Treasure": {"IPAexGothic"}, "CaféNoir": {"IPAexMincho"}, "金貨": {"IPAexGothic"}, "Gold金": {"IPAexGothic", "IPAexMincho"}}),
    # an element whose every character the Latin face has is set in it (Sans or Serif by its family);
    # one with a character only IPAex has stays in IPAex, its serif <tspan> in IPAex Mincho, not Liberation
    ("en", {"Treasure": {"LiberationSans"}, "CaféNoir": {"LiberationSerif"}, "金貨": {"IPAexGothic"}, "Gold金": {"IPAexGothic", "IPAexMincho"}}),
])
def test_svg_text_is_set_per_element_in_the_cards_language(art_game, lang, faces):
    _use(art_game, "texts.svg", TEXTS_SVG)
    shop(art_game, "ja" if lang == "en" else "en")  # the other language first: the SVG cache must not serve it
    textpage = pdfium.PdfDocument(shop(art_game, lang))[8].get_textpage()  # A05's front
    chars = [(textpage.get_text_range(i, 1), _font_of(textpage, i)) for i in range(textpage.count_chars())]
    found = {}
    for text in faces:
        joined = "".join(ch for ch, _font in chars)
        start = joined.index(text[0] + text[1])
        run = [(ch, font) for ch, font in chars[start:] if not ch.isspace()][:len(text)]
        assert "".join(ch for ch, _font in run) == text
        found[text] = {font for _ch, font in run}
    assert found == faces


def _font_of(textpage, index: int) -> str:
    """The name of the font PDFium says character `index` is drawn with (subset prefix dropped)."""
    buffer = ctypes.create_string_buffer(256)
    length = pdfium.raw.FPDFText_GetFontInfo(textpage.raw, index, buffer, 256, None)
    return buffer.raw[:max(0, length - 1)].decode("utf-8").split("+")[-1]


def test_pixels_inside_the_art_box_have_the_art_colour(art_game):
    pdf = shop(art_game)
    halves, blue = page_image(pdf, 0), page_image(pdf, 4)
    assert near(pixel(halves, 12, 29), RED)
    assert near(pixel(halves, 50, 29), YELLOW)
    assert near(pixel(blue, 31.5, 29), BLUE)
    assert near(pixel(blue, 10, 29), (255, 255, 255))  # contain: a square image leaves the box's sides white


def test_png_output_carries_the_art(art_game):
    game = load_game(str(art_game))
    pairs = faces(game)
    pdf = printshop_pdf(game, pairs, card_size_mm(game), BLEED, "en")
    pngs = dict(face_pngs(pdf, page_labels(game, pairs), card_size_mm(game), BLEED))
    image = Image.open(io.BytesIO(pngs["A03-front.png"])).convert("RGB")
    assert near(image.getpixel((round((31.5 + BLEED) / 25.4 * 300), round((29 + BLEED) / 25.4 * 300))), BLUE)


def _extent(image: Image.Image, colour, *, row_mm: float | None = None, col_mm: float | None = None) -> tuple[float, float]:
    """The first and last mm (card coordinates) where `colour` shows along a row or a column."""
    if row_mm is not None:
        hits = [x for x in range(image.width) if near(image.getpixel((x, round((row_mm + BLEED) * 10))), colour, 40)]
    else:
        hits = [y for y in range(image.height) if near(image.getpixel((round((col_mm + BLEED) * 10), y)), colour, 40)]
    assert hits, f"no {colour} found"
    return hits[0] / 10 - BLEED, (hits[-1] + 1) / 10 - BLEED


# (fit, anchor) -> red's x extent along the box's middle row, red's y extent along x = 12 mm.
# halves.png is 2:1 (red left half, yellow right half); the box is 47 x 30 mm at (8, 14).
FITS = {
    ("cover", "left"): ((8, 38), (14, 44)),       # 60 x 30 mm, left edges together
    ("cover", "right"): ((8, 25), (14, 44)),      # 60 x 30 mm, right edges together: red spans -5..25
    ("contain", "top"): ((8, 31.5), (14, 37.5)),  # 47 x 23.5 mm on the top edge
    ("contain", "bottom"): ((8, 31.5), (20.5, 44)),
    ("contain", "center"): ((8, 31.5), (17.25, 40.75)),
    ("stretch", "center"): ((8, 31.5), (14, 44)),
}


@pytest.mark.parametrize("fit,anchor", list(FITS))
def test_fit_and_anchor_place_the_image(art_game, fit, anchor):
    cards = art_game / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("fit: cover\n    anchor: left", f"fit: {fit}\n    anchor: {anchor}", 1),
                     encoding="utf-8")
    image = page_image(shop(art_game), 0)
    (x0, x1), (y0, y1) = FITS[(fit, anchor)]
    got_x = _extent(image, RED, row_mm=29 if fit != "contain" else (y0 + y1) / 2)
    got_y = _extent(image, RED, col_mm=12)
    assert got_x == pytest.approx((x0, x1), abs=0.25)
    assert got_y == pytest.approx((y0, y1), abs=0.25)


def _check(folder: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["check", str(folder), "--no-simulate", *args])
    return result.exit_code, result.output


def test_missing_file_draws_a_placeholder_and_check_warns(art_game):
    cards = art_game / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("art/blue.jpg", "art/nope.png"), encoding="utf-8")
    image = page_image(shop(art_game), 4)
    assert near(pixel(image, 31.5, 20), (217, 217, 217))  # the grey placeholder, not blank paper
    code, output = _check(art_game)
    assert code == 0, output
    warning = next(line for line in output.splitlines() if "nope.png" in line)
    assert warning.startswith("  warn art: ") and "cards.yaml:" in warning and "A03 and 1 other" in warning
    code, output = _check(art_game, "--strict")
    assert code == 1 and "FAIL art:" in output


@pytest.mark.parametrize("lang, words, font", [("en", "missing: art/nope.png", "LiberationSans"),
                                               ("ja", "画像がありません：art/nope.png", "IPAexGothic")])
def test_the_placeholder_names_the_missing_file_in_the_cards_language_and_faces(art_game, lang, words, font):
    cards = art_game / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("art/blue.jpg", "art/nope.png"), encoding="utf-8")
    textpage = pdfium.PdfDocument(shop(art_game, lang))[4].get_textpage()  # A03's front
    text = textpage.get_text_range()
    assert words in text, text
    start = text.index(words)
    assert {_font_of(textpage, i) for i in range(start, start + len(words)) if not text[i].isspace()} == {font}


def test_low_resolution_art_warns(art_game):
    Image.new("RGB", (200, 100), RED).save(art_game / "art" / "halves.png")
    code, output = _check(art_game)
    assert code == 0
    line = next(line for line in output.splitlines() if "halves.png" in line)
    assert "warn art:" in line and "85 dpi" in line  # cover: 200 px over 60 mm


def test_good_art_gives_no_warning(art_game):
    code, output = _check(art_game)
    assert code == 0, output
    assert "art:" not in output


def test_svg_features_that_are_not_drawn_warn(art_game):
    # left half: a pattern of solid red tiles; right half: green under a blur filter
    _use(art_game, "effects.svg", b"""<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">
      <defs><pattern id="reds" width="10" height="10" patternUnits="userSpaceOnUse"><rect width="10" height="10" fill="#DC0000"/></pattern>
        <filter id="soft"><feGaussianBlur stdDeviation="4"/></filter></defs>
      <rect width="50" height="100" fill="url(#reds)"/>
      <rect x="50" width="50" height="100" fill="#10A040" style="filter: url(#soft)"/></svg>""")
    image = page_image(shop(art_game), 8)  # the green card's front; the art spans x 16.5..46.5, y 14..44 mm
    assert not near(pixel(image, 24, 29), RED)  # what the warning says: the pattern fill is not drawn...
    assert near(pixel(image, 39, 29), (16, 160, 64))  # ...and the filtered shape is drawn without its effect
    code, output = _check(art_game)
    assert code == 0, output
    line = next(line for line in output.splitlines() if "effects.svg" in line)
    assert line.startswith("  warn art: ") and "cards.yaml:" in line
    assert "filter effects" in line and "pattern fills print unfilled" in line and "mask" not in line
    code, output = _check(art_game, "--strict")
    assert code == 1 and "FAIL art:" in output
    out = art_game.parent / "out"
    result = CliRunner().invoke(cli, ["build", str(art_game), "--out", str(out), "--only", "png"])
    assert result.exit_code == 0, result.output
    assert "front: image &#x27;art/effects.svg&#x27;: filter effects" in (out / "art_game" / "preview.html").read_text(encoding="utf-8")


def test_a_plain_svg_has_nothing_left_out():
    from cardgen.render.cards.art import _parse_svg, svg_unsupported

    plain = (FIXTURE / "art" / "green.svg").read_bytes()
    assert svg_unsupported(_parse_svg(plain, "green.svg", None)) == ()
    # a pattern defined but unused, or a property merely named like one, is no reason to warn
    unused = (b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><defs><pattern id="p" width="1" height="1"/></defs>'
              b'<rect width="10" height="10" fill="red" class="no-filter" data-mask="url(#x)"/></svg>')
    assert svg_unsupported(_parse_svg(unused, "u.svg", None)) == ()
    marked = (b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><style>line { marker-end: url(#m) }</style>'
              b'<foreignObject width="5" height="5"/><line x2="9" stroke="black" mask="url(#k)"/></svg>')
    assert svg_unsupported(_parse_svg(marked, "m.svg", None)) == (
        "<foreignObject> content is left out", "masks are ignored (masked shapes print whole)",
        "line markers (arrowheads) are left out")


# --- hostile files --------------------------------------------------------------------------------

def _use(folder: Path, name: str, data: bytes | None = None) -> None:
    """Point the green card's art at `name` (written with `data` when given)."""
    if data is not None:
        (folder / "art" / name).write_bytes(data)
    cards = folder / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("art/green.svg", f"art/{name}"), encoding="utf-8")


@pytest.mark.parametrize("name,data,why", [
    ("xxe.svg", b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&x;</text></svg>', "DOCTYPE"),
    ("ext.svg", b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">'
                b'<image xlink:href="../../secret.png" width="10" height="10"/></svg>', "refers to"),
    ("css.svg", b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><style>@import url(http://x/a.css);</style></svg>', "@import"),
    ("broken.svg", b"<svg xmlns='http://www.w3.org/2000/svg'><rect", "well-formed"),
    ("laughs.svg", b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><g id="a"><rect width="1" height="1"/></g>'
                   + b"".join(b'<g id="%s"><use href="#%s"/><use href="#%s"/></g>' % (bytes([98 + i]), bytes([97 + i]), bytes([97 + i]))
                              for i in range(20)) + b"</svg>", "another <use>"),
    ("fake.png", b"\xff\xd8\xff\xe0 not really anything", "cannot be read"),
])
def test_hostile_images_are_refused_at_the_card_line(art_game, name, data, why):
    _use(art_game, name, data)
    code, output = _check(art_game)
    assert code == 1
    line = next(line for line in output.splitlines() if "FAIL build" in line)
    assert "cards.yaml:" in line and why in line and "Traceback" not in output


def test_a_picture_too_many_pixels_is_refused(art_game):
    buffer = io.BytesIO()
    Image.new("1", (7000, 7000)).save(buffer, format="PNG")
    _use(art_game, "huge.png", buffer.getvalue())
    with pytest.raises(DataError, match="at most 40,000,000 pixels"):
        shop(art_game)


def test_paths_leaving_the_game_folder_are_refused(art_game, tmp_path):
    (tmp_path / "outside.png").write_bytes((art_game / "art" / "halves.png").read_bytes())
    os.symlink(tmp_path / "outside.png", art_game / "art" / "link.png")
    _use(art_game, "link.png")
    with pytest.raises(DataError, match="outside the game folder"):
        shop(art_game)
    cards = art_game / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("art/link.png", "../outside.png"), encoding="utf-8")
    with pytest.raises(DataError, match="outside the game folder"):
        shop(art_game)


def test_layout_refuses_an_absolute_src_at_its_line(art_game):
    layout = art_game / "templates" / "layout.yaml"
    layout.write_text(layout.read_text(encoding="utf-8").replace('src: "{{ card.art }}"', "src: /etc/passwd"), encoding="utf-8")
    code, output = _check(art_game)
    assert code == 1 and "layout.yaml:13:60: box 'art': src '/etc/passwd' must be a relative path" in output
    assert "needs 'src" not in output


def test_cmyk_print_file_holds_cmyk_art(art_game):
    game = load_game(str(art_game))
    pdf = printshop_pdf(game, faces(game), card_size_mm(game), BLEED, "en", cmyk=True)
    images, _ = xobjects(pdf)
    assert sorted((int(i["/Width"]), str(i["/ColorSpace"])) for i in images.values()) == [
        (480, "/DeviceCMYK"), (800, "/DeviceCMYK")]  # PDF/X-1a allows no RGB; full resolution kept
    r, g, b = pixel(page_image(pdf, 0), 12, 29)
    assert r > 180 and g < 80 and b < 80  # through the profile, still red


def test_full_bleed_art_reaches_into_the_bleed(art_game):
    layout = art_game / "templates" / "layout.yaml"
    layout.write_text(layout.read_text(encoding="utf-8").replace(
        "src: art/green.svg}", "src: art/green.svg}\n    - {name: back_full, kind: image, at: full, src: art/blue.jpg, fit: cover, bleed: true}"),
        encoding="utf-8")
    image = page_image(shop(art_game), 1)  # the shared back
    assert near(pixel(image, -2.5, -2.5), BLUE)  # inside the 3 mm bleed, outside the trim
    assert near(pixel(image, 65.5, 90.5), BLUE)
    layout.write_text(layout.read_text(encoding="utf-8").replace("bleed: true}", "bleed: false}"), encoding="utf-8")
    assert near(pixel(page_image(shop(art_game), 1), -2.5, -2.5), (255, 255, 255))  # without bleed: the white field


def test_ink_saver_sheets_pale_raster_art_as_they_pale_fills(art_game):
    """--ink-saver: a PNG or JPEG picture keeps 40 % of its colour (INK_ART_KEEP), like a fill;
    the full-colour print-shop file is untouched."""
    from cardgen.render.print.sheet import INK_ART_KEEP, compute_layout, sheets_pdf

    game = load_game(str(art_game))
    pairs = faces(game)
    layout = compute_layout("a4", *card_size_mm(game), None)
    card_h = card_size_mm(game)[1]

    def art_pixel(pdf: bytes, slot: int, dx_mm: float) -> tuple[int, int, int]:
        x, y = layout.front_position(slot)          # the trimmed card's lower-left corner, page mm
        image = pdfium.PdfDocument(pdf)[0].render(scale=10 * 25.4 / 72).to_pil().convert("RGB")
        top = image.height / 10 - (y + card_h)        # the card's top edge, mm from the page top
        return image.getpixel((round((x + BOX[0] + dx_mm) * 10), round((top + BOX[1] + BOX[3] / 2) * 10)))

    def pale(rgb):
        return tuple(round(255 - INK_ART_KEEP * (255 - v)) for v in rgb)

    normal = sheets_pdf(game, pairs, layout, lang="en")
    saver = sheets_pdf(game, pairs, layout, lang="en", ink_saver=True)
    # card 1: halves.png, red on its left (cover, anchored left); card 3: blue.jpg, centred
    assert near(art_pixel(normal, 0, 5), RED) and near(art_pixel(normal, 2, BOX[2] / 2), BLUE)
    assert near(art_pixel(saver, 0, 5), pale(RED)) and near(art_pixel(saver, 2, BOX[2] / 2), pale(BLUE))
    assert near(pixel(page_image(shop(art_game), 0), BOX[0] + 5, BOX[1] + BOX[3] / 2), RED)
