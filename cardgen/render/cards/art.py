"""Art on card faces: a layout box `kind: image` draws a PNG, JPEG or SVG file of the game folder.

```yaml
- {name: art, kind: image, at: [3, 10, "W-6", 40], src: "art/{{ card.type }}.svg",
   fit: cover, anchor: top, radius: 2}
```

- `src`: a path inside the game folder (Jinja allowed; `"{{ card.art }}"` takes it from a card
  field declared in game.yaml's card_fields); an empty `src` draws nothing.
- `fit`: `contain` (whole image, letterboxed; default), `cover` (fills the box, cropped),
  `stretch` (fills the box, aspect ratio ignored).
- `anchor`: where the image sits in the box, and so what `cover` keeps: `center` (default),
  `top`, `bottom`, `left`, `right`, `top-left`, `top-right`, `bottom-left`, `bottom-right`.
- `radius`: rounded corners of the clip, in mm.
- `bleed: true`: the box's edges that lie on the trim reach out into the bleed (full-bleed art;
  with `fit: cover` the image is cut to the bleed, not the trim).

Each file is embedded once per PDF as a form XObject, placed wherever a card uses it; PNG and
JPEG keep their full resolution (a JPEG is embedded as it is), SVG stays vector. A missing file
draws a grey placeholder with a cross and the file's name, and `check` lists it; so it does for
an image printed below 300 dpi.

Game files are hostile input: a path leaving the game folder is refused; a raster image must
really be a PNG or JPEG, at most limits.MAX_ART_BYTES and limits.MAX_IMAGE_PIXELS; an SVG must
parse as XML without a DOCTYPE or entities, reference nothing outside itself (no external or
data: hrefs, no CSS url() or @import), have at most MAX_SVG_ELEMENTS elements and
limits.MAX_SVG_SEGMENTS path segments, and keep its numbers within what a PDF can write. One card
face draws at most limits.MAX_FACE_SEGMENTS segments of SVG art and icons, every use counted (a
form is stored once in a PDF, but a rasteriser redraws it at each use).
"""

from __future__ import annotations

import io
import math
import re
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple


from ...errors import DataError, Problem
from ...io import limits, paths
from ...model import Game, Location
from ..colour import SMALL_TEXT_PT, THIN_RULE_PT, is_cmyk_canvas, plate_colour
from ..forms import form_once

FITS = ("contain", "cover", "stretch")
# anchor -> (fraction of the free width to the left, fraction of the free height above)
ANCHORS: dict[str, tuple[float, float]] = {
    "center": (0.5, 0.5), "top": (0.5, 0.0), "bottom": (0.5, 1.0), "left": (0.0, 0.5), "right": (1.0, 0.5),
    "top-left": (0.0, 0.0), "top-right": (1.0, 0.0), "bottom-left": (0.0, 1.0), "bottom-right": (1.0, 1.0),
}
RASTER_SUFFIXES = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}
PRINT_DPI = 300  # below this an image looks soft in print: check warns
MAX_SVG_ELEMENTS = 20_000
MIN_SVG_SIZE = 0.01  # points: a smaller drawing scaled to a box overflows the PDF's numbers
MAX_SVG_NUMBER = 1e9  # any coordinate, width or size in a converted SVG


@dataclass(frozen=True)
class ArtNote:
    """Something `check` should tell the designer about one image on one face."""

    card_id: str
    side: str
    box: str
    src: str
    problem: str  # "missing", "low-dpi" or "svg-unsupported"
    dpi: float
    location: Location | None
    detail: str = ""  # svg-unsupported: what of the SVG is not drawn
    placed: Location | None = None  # the layout line of the image box (low-dpi: the box sets the size)
    needed_px: tuple[int, int] = (0, 0)  # low-dpi: the pixels the image needs at PRINT_DPI as placed


# `check` sets a list here while it lays the faces out; every image drawn reports what is wrong with it.
ART_NOTES: ContextVar[list[ArtNote] | None] = ContextVar("ART_NOTES", default=None)


# The face being drawn sets a counter here (card.draw_face): the path segments of its SVG art and
# icons, each use counted, as a rasteriser will redraw them.
FACE_SEGMENTS: ContextVar[list[int] | None] = ContextVar("FACE_SEGMENTS", default=None)


def spend_segments(segments: int, at: Location | None, what: str, uses: int = 1) -> None:
    """Count `uses` of an SVG drawing of `segments` on the face being drawn; DataError past the limit."""
    spent = FACE_SEGMENTS.get()
    if spent is None:
        return
    spent[0] += segments * uses
    if spent[0] > limits.MAX_FACE_SEGMENTS:
        raise _error(at, f"{what} has {segments:,} path segments; with its other uses this card face draws {spent[0]:,}, "
                         f"more than the limit of {limits.MAX_FACE_SEGMENTS:,} per face; simplify the SVG (fewer nodes) "
                         f"or draw it fewer times")


_NUMBER = re.compile(rb"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def svg_segments(root: Any) -> int:
    """What an SVG (a parsed tree) costs to draw: the coordinate pairs of its paths and polygons,
    one per other element; counted on the XML, before the slow conversion."""
    segments = 0
    for element in root.iter():
        segments += 1
        if not isinstance(element.tag, str):
            continue
        for key in ("d", "points"):
            value = element.get(key)
            if value:
                segments += len(_NUMBER.findall(value.encode())) // 2
    return segments


@dataclass(frozen=True)
class Art:
    """A validated image file: `width` x `height` in pixels (raster) or points (SVG)."""

    path: Path
    kind: str  # "raster" or "svg"
    width: float
    height: float
    unsupported: tuple[str, ...] = ()  # SVG features the conversion leaves out (see svg_unsupported)
    segments: int = 1  # what one use costs to draw (svg_segments)


class SvgArt(NamedTuple):
    drawing: Any  # a ReportLab Drawing
    unsupported: tuple[str, ...]
    segments: int  # what one use costs to draw (svg_segments)


def _error(at: Location | None, message: str) -> DataError:
    return DataError([Problem(at, message)])


def resolve(game: Game, src: str, at: Location | None) -> Path:
    """The file `src` names inside the game folder; DataError for a path leaving it or an unknown type."""
    path = paths.game_file(game, src, at, "image")
    if path.suffix.lower() not in RASTER_SUFFIXES and path.suffix.lower() != ".svg":
        raise _error(at, f"image '{src}': use a .png, .jpg, .jpeg or .svg file")
    return path


def load(game: Game, src: str, at: Location | None, lang: str) -> Art | None:
    """The image `src` names, validated, for a card in `lang`; None when the file does not exist
    (drawn as a placeholder)."""
    path = resolve(game, src, at)
    try:
        stat = path.stat()
    except OSError:
        return None
    if not path.is_file():
        return None
    # only an SVG depends on the language (the faces of its text); a raster image is read once for all
    return _load(path, stat.st_mtime_ns, stat.st_size, src, at, lang if path.suffix.lower() == ".svg" else None)


@lru_cache(maxsize=256)
def _load(path: Path, mtime_ns: int, size: int, src: str, at: Location | None, lang: str | None) -> Art:
    # an SVG is drawing instructions, far smaller than pixels: it gets the limit of any text file of the game
    most = limits.MAX_FILE_BYTES if path.suffix.lower() == ".svg" else limits.MAX_ART_BYTES
    if size > most:
        raise _error(at, f"image '{src}' is {size / 1e6:.1f} MB; use at most {most / 1024 / 1024:g} MB")
    if path.suffix.lower() == ".svg":
        drawing, unsupported, segments = _svg(path, mtime_ns, size, src, at, lang)
        return Art(path, "svg", float(drawing.width), float(drawing.height), unsupported, segments)
    return Art(path, "raster", *_raster_size(path.read_bytes(), RASTER_SUFFIXES[path.suffix.lower()], src, at))


@lru_cache(maxsize=64)
def _svg(path: Path, mtime_ns: int, size: int, src: str, at: Location | None, lang: str | None) -> SvgArt:
    """An SVG file's drawing and what it leaves out, converted once per version of the file and
    language of its text (drawing it does not change it)."""
    with path.open("rb") as f:
        data = f.read(limits.MAX_FILE_BYTES + 1)
    if len(data) > limits.MAX_FILE_BYTES:
        raise _error(at, f"image '{src}' is larger than {limits.MAX_FILE_BYTES / 1024 / 1024:g} MB")
    root = _parse_svg(data, src, at)
    return SvgArt(_render_svg(root, path, src, at, lang), svg_unsupported(root), svg_segments(root))


def _raster_size(data: bytes, expected: str, src: str, at: Location | None) -> tuple[int, int]:
    """Pixel size of a PNG or JPEG, read from its header and verified, before anything is decoded."""
    from PIL import Image, UnidentifiedImageError

    if not data:
        raise _error(at, f"image '{src}' is an empty file (0 bytes); save it again as PNG or JPEG")
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format != expected:
                raise _error(at, f"image '{src}' is not a {expected} file (it reads as {image.format or 'unknown'})")
            width, height = image.size
            if width * height > limits.MAX_IMAGE_PIXELS:
                raise _error(at, f"image '{src}' is {width} x {height} px; use at most {limits.MAX_IMAGE_PIXELS:,} pixels")
            image.verify()
        # verify() does not decode a JPEG; the print-shop output (CMYK) decodes every pixel, so
        # decode them here, so that check refuses a truncated file as the strictest output would
        with Image.open(io.BytesIO(data)) as image:
            image.load()
    except DataError:
        raise
    except UnidentifiedImageError:  # its message names an internal buffer object
        raise _error(at, f"image '{src}' is not a PNG or JPEG image (no image format recognised); save it again as PNG or JPEG") from None
    except Exception as exc:  # Pillow raises many types for a broken file, DecompressionBombError among them
        raise _error(at, f"image '{src}' cannot be read ({type(exc).__name__}: {exc}); save it again as PNG or JPEG") from None
    if width <= 0 or height <= 0:
        raise _error(at, f"image '{src}' has no pixels")
    return width, height


# --- SVG ------------------------------------------------------------------------------------------

_DTD = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_URL = re.compile(r"url\(\s*['\"]?\s*([^)'\"\s]*)", re.IGNORECASE)


def _css_problem(css: str) -> str | None:
    if "@import" in css.lower():
        return "a CSS @import"
    for target in _URL.findall(css):
        if not target.startswith("#"):
            return f"url({target}) outside the file"
    return None


@lru_cache(maxsize=1)
def _svg_text_classes():
    """svglib's font lookup and shape converter, made to choose the faces of each SVG <text> from
    what it says (built on first use: svglib is imported only when an SVG is drawn).

    Every family maps to the bundled fonts: svglib's own lookup would open a file named after the
    SVG's font-family or ask fontconfig, both outside the game folder, and print Japanese with
    Helvetica (no glyphs). A serif family is set in Mincho's role, any other in Gothic's; in a
    Latin-script language a text element whose every character the Latin face of its role has
    (fonts.face_of) is set in that face (Liberation Serif or Sans), any other in IPAex, which has
    Latin glyphs too: svglib sets one font per element, so a Latin face would blank its Japanese.
    svglib asks the font map for a family, weight and style, never the text, so the converter
    tells the map each element's text before svglib converts it (`convertText`, its public
    per-element method, is the one place every <text> and its <tspan>s are set)."""
    from svglib.fonts import FontMap
    from svglib.svglib import Svg2RlgShapeConverter, iter_text_node

    from ...fonts import face_of, latin_face, register_fonts

    class TextFonts(FontMap):
        def __init__(self, lang: str | None):
            super().__init__()
            self.lang = lang
            self.text = ""  # the characters of the <text> element being converted

        def find_font(self, font_name: str, weight: str = "normal", style: str = "normal") -> tuple[str, bool]:
            gothic, mincho = register_fonts()
            name = font_name.lower()
            serif = ("serif" in name and "sans" not in name) or "mincho" in name or "明朝" in name or "times" in name
            japanese = mincho if serif else gothic
            latin = latin_face(japanese, self.lang) if self.lang else None
            if latin is not None and all(face_of(ch, japanese, self.lang) == latin for ch in self.text if not ch.isspace()):
                return latin, False
            return japanese, False

    class TextConverter(Svg2RlgShapeConverter):
        def __init__(self, path: str, attr_converter, fonts: TextFonts):
            super().__init__(path, attr_converter)
            self.fonts = fonts

        def convertText(self, node):
            self.fonts.text = "".join(text for _node, text, _tail in iter_text_node(node, self.preserve_space) if text)
            try:
                return super().convertText(node)
            finally:
                self.fonts.text = ""

    return TextFonts, TextConverter


def _check_uses(root, bad) -> None:
    """<use> copies what it names: refuse a copy of a copy and more copied elements than MAX_SVG_ELEMENTS
    (nested <use> grows exponentially: ten levels of ten copies are 10^10 shapes from 100 elements)."""
    from lxml import etree

    by_id = {el.get("id"): el for el in root.iter() if isinstance(el.tag, str) and el.get("id")}
    copied = 0
    for element in root.iter():
        if not isinstance(element.tag, str) or etree.QName(element).localname != "use":
            continue
        href = next((v for k, v in element.attrib.items() if k.rsplit("}", 1)[-1] == "href"), "")
        target = by_id.get(href.strip().lstrip("#"))
        if target is None:
            continue
        if any(isinstance(el.tag, str) and etree.QName(el).localname == "use" for el in target.iter()):
            raise bad("a <use> copies something that holds another <use>")
        copied += sum(1 for _ in target.iter())
        if copied > MAX_SVG_ELEMENTS:
            raise bad(f"its <use> elements copy more than {MAX_SVG_ELEMENTS:,} elements")


def _bad_svg(src: str, at: Location | None, why: str) -> DataError:
    return _error(at, f"SVG '{src}': {why}; export a plain SVG (paths, shapes, text) without external references")


def svg_drawing(data: bytes, path: Path, src: str, at: Location | None):
    """A ReportLab Drawing of an SVG file given as bytes (svglib), refusing what could reach outside
    it. Only icons ask for it, and an icon is drawn without a language: its own text stays in IPAex,
    which has Latin glyphs too (an icon in Latin-script text is not given Liberation)."""
    return _render_svg(_parse_svg(data, src, at), path, src, at, None)


def _parse_svg(data: bytes, src: str, at: Location | None):
    """The SVG's element tree, refusing what could reach outside it or grow without bound."""
    from lxml import etree

    def bad(why: str) -> DataError:
        return _bad_svg(src, at, why)

    if _DTD.search(data):
        raise bad("it has a DOCTYPE or entity declarations")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                             remove_comments=True, remove_pis=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise bad(f"it is not well-formed XML ({exc})") from None
    if root is None or not isinstance(root.tag, str) or etree.QName(root).localname != "svg":
        raise bad("its root element is not <svg>")
    for count, element in enumerate(root.iter()):
        if count >= MAX_SVG_ELEMENTS:
            raise bad(f"it has more than {MAX_SVG_ELEMENTS:,} elements")
        if not isinstance(element.tag, str):
            continue
        for key, value in element.attrib.items():
            local = key.rsplit("}", 1)[-1]
            if local == "href" and not value.strip().startswith("#"):
                raise bad(f"<{etree.QName(element).localname}> refers to '{value[:60]}'")
            if local == "style" and (why := _css_problem(value)):
                raise bad(f"a style uses {why}")
            if local in ("fill", "stroke", "filter", "clip-path", "mask") and (why := _css_problem(value)):
                raise bad(f"{local} uses {why}")
        if etree.QName(element).localname == "style" and (why := _css_problem(element.text or "")):
            raise bad(f"a <style> uses {why}")
    _check_uses(root, bad)
    segments = svg_segments(root)
    if segments > limits.MAX_SVG_SEGMENTS:
        raise _error(at, f"SVG '{src}' has {segments:,} path segments, more than the limit of {limits.MAX_SVG_SEGMENTS:,}; "
                         f"simplify its paths (fewer nodes)")
    return root


def _render_svg(root, path: Path, src: str, at: Location | None, lang: str | None):
    """The drawing of a parsed SVG, its text set for a card in `lang` (None: IPAex for every text)."""
    from svglib.svglib import SvgRenderer

    def bad(why: str) -> DataError:
        return _bad_svg(src, at, why)

    text_fonts, text_converter = _svg_text_classes()
    fonts = text_fonts(lang)
    try:
        renderer = SvgRenderer(str(path), external_reference_root=str(path.parent), font_map=fonts)
        renderer.shape_converter = text_converter(str(path), renderer.attrConverter, fonts)
        drawing = renderer.render(root)
    except Exception as exc:  # svglib raises assorted errors for SVG it cannot convert
        raise bad(f"it cannot be converted ({type(exc).__name__}: {exc})") from None
    width, height = float(getattr(drawing, "width", 0) or 0), float(getattr(drawing, "height", 0) or 0)
    if not (math.isfinite(width) and math.isfinite(height)) or min(width, height) < MIN_SVG_SIZE or max(width, height) > 1e5:
        raise bad(f"its size {width:g} x {height:g} is not usable (give width/height or a viewBox from {MIN_SVG_SIZE:g} to 100000)")
    number = _out_of_range(drawing)
    if number is not None:
        raise bad(f"it uses the number {number:g} (a coordinate, width or size); keep every number within "
                  f"±{MAX_SVG_NUMBER:g}")
    return drawing


def _out_of_range(drawing: Any) -> float | None:
    """The first number of a converted SVG that a PDF cannot write (ReportLab refuses about 1e20 and up)."""
    stack = [drawing]
    while stack:
        node = stack.pop()
        stack.extend(getattr(node, "contents", None) or ())
        properties = node.getProperties(recur=0) if hasattr(node, "getProperties") else {}
        for value in properties.values():
            for item in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(item, (int, float)) and not isinstance(item, bool) and not abs(item) <= MAX_SVG_NUMBER:
                    return float(item)
    return None


# What svglib leaves out, and what that does to the print: each (pattern over attribute values
# and style text, sentence).  A drawing program flattens any of them to plain shapes.
_PROPERTY_URL = r"\s*:\s*url\("
_UNSUPPORTED_STYLE = (
    (re.compile(r"(?<![\w-])filter" + _PROPERTY_URL), "filter effects (blur, shadows) are left out"),
    (re.compile(r"(?<![\w-])mask" + _PROPERTY_URL), "masks are ignored (masked shapes print whole)"),
    (re.compile(r"(?<![\w-])marker(-start|-mid|-end)?" + _PROPERTY_URL), "line markers (arrowheads) are left out"),
)
_UNSUPPORTED_ELEMENTS = {
    "foreignObject": "<foreignObject> content is left out",
    "textPath": "text on a path prints on a straight line",
}
_PATTERN_FILL = "pattern fills print unfilled"


def svg_unsupported(root) -> tuple[str, ...]:
    """What of this SVG (a parsed tree) svglib does not draw, as sentences for a warning; () if all is drawn."""
    from lxml import etree

    found: list[str] = []
    patterns: set[str] = set()
    styles: list[str] = []  # "property: value" of every attribute and style text
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        name = etree.QName(element).localname
        if name in _UNSUPPORTED_ELEMENTS and _UNSUPPORTED_ELEMENTS[name] not in found:
            found.append(_UNSUPPORTED_ELEMENTS[name])
        if name == "pattern" and element.get("id"):
            patterns.add(element.get("id"))
        if name == "style":
            styles.append(element.text or "")
        for key, value in element.attrib.items():
            styles.append(value if key.rsplit("}", 1)[-1] == "style" else f"{key.rsplit('}', 1)[-1]}: {value}")
    text = "\n".join(styles)
    for pattern, sentence in _UNSUPPORTED_STYLE:
        if pattern.search(text):
            found.append(sentence)
    if patterns and any(re.search(r"(?<![\w-])(fill|stroke)" + _PROPERTY_URL + r"\s*['\"]?#" + re.escape(p) + r"['\"]?\s*\)", text)
                        for p in patterns):
        found.append(_PATTERN_FILL)
    return tuple(found)


# --- placing --------------------------------------------------------------------------------------

def placement(fit: str, anchor: str, image_w: float, image_h: float, x: float, y: float, w: float, h: float
              ) -> tuple[float, float, float, float]:
    """Where an image of `image_w` x `image_h` goes for box (x, y, w, h), y up: (x, y, w, h) of the drawn image.

    `contain` scales it to fit inside, `cover` to fill (the box's clip crops it), `stretch` is the
    box; the anchor places the image's spare or cropped part (top: the image's top on the box's top).
    """
    if fit == "stretch":
        return x, y, w, h
    scale = (max if fit == "cover" else min)(w / image_w, h / image_h)
    dw, dh = image_w * scale, image_h * scale
    fx, fy = ANCHORS.get(anchor, ANCHORS["center"])
    return x + (w - dw) * fx, y + (h - dh) * (1 - fy), dw, dh


def draw(c, game: Game, src: str, lang: str, x: float, y: float, w: float, h: float, *, fit: str = "contain",
         anchor: str = "center", radius: float = 0.0, at: Location | None = None,
         note: tuple[str, str, str] | None = None, placed_at: Location | None = None) -> None:
    """Draw image `src` of `game` into the box (x, y, w, h) in points, clipped to the box (rounded by
    `radius` points); a missing file's placeholder speaks the card's `lang`. `note` = (card id, side,
    box name) reports a missing file or low resolution to ART_NOTES while `check` collects them."""
    src = src.strip()
    if not src:
        return
    art = load(game, src, at, lang)
    notes = ART_NOTES.get()
    if art is None:
        if notes is not None and note is not None:
            notes.append(ArtNote(*note, src, "missing", 0.0, at))
        draw_placeholder(c, game, src, lang, x, y, w, h)
        return
    if art.unsupported and notes is not None and note is not None:
        notes.append(ArtNote(*note, src, "svg-unsupported", 0.0, at, "; ".join(art.unsupported)))
    spend_segments(art.segments, at, f"image '{src}'")
    dx, dy, dw, dh = placement(fit, anchor, art.width, art.height, x, y, w, h)
    if art.kind == "raster" and notes is not None and note is not None and dw > 0 and dh > 0:
        dpi = min(art.width / (dw / 72), art.height / (dh / 72))
        if dpi < PRINT_DPI - 0.5:
            needed = (math.ceil(dw / 72 * PRINT_DPI), math.ceil(dh / 72 * PRINT_DPI))
            notes.append(ArtNote(*note, src, "low-dpi", dpi, at, placed=placed_at or at, needed_px=needed))
    c.saveState()
    clip = c.beginPath()
    if radius > 0:
        clip.roundRect(x, y, w, h, min(radius, w / 2, h / 2))
    else:
        clip.rect(x, y, w, h)
    c.clipPath(clip, stroke=0, fill=0)
    c.translate(dx, dy)
    c.scale(dw / art.width, dh / art.height)
    _place(c, art, src, at, lang)
    c.restoreState()


def _place(c, art: Art, src: str, at: Location | None, lang: str) -> None:
    """Draw `art` in its own units at the origin: once per file (and language of an SVG's text) as a
    form XObject, then by reference."""
    if not (hasattr(c, "beginForm") and hasattr(c, "doForm")):
        _draw_art(c, art, src, at, lang)
        return
    stat = art.path.stat()
    key = (str(art.path), stat.st_mtime_ns, stat.st_size, lang if art.kind == "svg" else None)
    c.doForm(form_once(c, "art", key, "CardgenArt", (0, 0, art.width, art.height), lambda: _draw_art(c, art, src, at, lang)))


def draw_drawing(c, drawing) -> None:
    """Draw a converted SVG (a ReportLab Drawing) at the origin, as vectors.

    renderPDF starts every drawing by setting its default font, Helvetica, which put an unembedded
    Helvetica into every PDF holding SVG art or icons although no text used it; it starts from the
    bundled Gothic instead (SVG text itself is already set in the bundled fonts, see _svg_text_classes)."""
    from reportlab.graphics import renderPDF, shapes

    from ...fonts import register_fonts

    if is_cmyk_canvas(c):
        drawing = _small_inks_on_plates(c, drawing)
    default_font = shapes.STATE_DEFAULTS["fontName"]
    shapes.STATE_DEFAULTS["fontName"] = register_fonts()[0]
    try:
        renderPDF.draw(drawing, c, 0, 0)
    finally:
        shapes.STATE_DEFAULTS["fontName"] = default_font


def _small_inks_on_plates(c, drawing):
    """A copy of `drawing` whose text below 12 units and strokes thinner than 1 unit take the CMYK
    file's plates for small text and thin rules (colour.plate_colour), as the face's own do. A copy:
    the converted drawing is cached and also drawn on RGB canvases."""
    import copy

    from reportlab.graphics import shapes

    drawing = copy.deepcopy(drawing)
    nodes = [drawing]
    while nodes:
        node = nodes.pop()
        if isinstance(node, shapes.Group):
            nodes.extend(node.contents)
        elif isinstance(node, shapes.String):
            size = float(getattr(node, "fontSize", SMALL_TEXT_PT))
            node.fillColor = plate_colour(c, getattr(node, "fillColor", None), size)
            if getattr(node, "textRenderMode", 0) in (1, 2):
                node.strokeColor = plate_colour(c, getattr(node, "strokeColor", None), size)
        elif getattr(node, "strokeColor", None) is not None:
            width = float(getattr(node, "strokeWidth", 1) or 0)
            node.strokeColor = plate_colour(c, node.strokeColor, width, THIN_RULE_PT)
    return drawing


def _draw_art(c, art: Art, src: str, at: Location | None, lang: str) -> None:
    if art.kind == "svg":
        stat = art.path.stat()
        draw_drawing(c, _svg(art.path, stat.st_mtime_ns, stat.st_size, src, at, lang).drawing)
    elif is_cmyk_canvas(c):
        # A PDF/X-1a file (--preset dtc) holds DeviceCMYK only: the pixels go through the same profile as its colours.
        from reportlab.lib.utils import ImageReader

        c.drawImage(ImageReader(_cmyk_pixels(art.path)), 0, 0, art.width, art.height)
    else:
        # By file name: ReportLab embeds a JPEG as it is and keeps a PNG's pixels (and alpha) lossless.
        c.drawImage(str(art.path), 0, 0, art.width, art.height, mask="auto")


def _cmyk_pixels(path: Path):
    """The image as CMYK through the print-shop profile, transparency flattened onto white paper."""
    from PIL import Image, ImageCms

    from ..colour import cmyk_transform  # the one sRGB -> FOGRA39 transform, as the print-shop file's colours

    with Image.open(path) as image:
        rgba = image.convert("RGBA")
    paper = Image.new("RGB", rgba.size, (255, 255, 255))
    paper.paste(rgba, mask=rgba.getchannel("A"))
    return ImageCms.applyTransform(paper, cmyk_transform())


def draw_placeholder(c, game: Game, label: str, lang: str, x: float, y: float, w: float, h: float) -> None:
    """A grey box with a cross and the words "missing: `label`" (the missing file's name) in the
    card's language and its faces (fonts.face_of): visible on a proof, obvious in print."""
    from ... import words
    from ...fonts import GOTHIC, draw_string, register_fonts, string_width

    c.saveState()
    c.setFillColorRGB(0.85, 0.85, 0.85)
    c.setStrokeColorRGB(0.45, 0.45, 0.45)
    c.setLineWidth(0.7)
    c.rect(x, y, w, h, stroke=1, fill=1)
    c.line(x, y, x + w, y + h)
    c.line(x, y + h, x + w, y)
    register_fonts()
    size = max(4.0, min(8.0, h / 4))
    text = words.word("art.missing", lang, game, file=label)
    while len(text) > 8 and string_width(text, GOTHIC, size, lang) > w - 4:
        text = text[:-2] + "…"
    label_w = string_width(text, GOTHIC, size, lang) + 2
    c.setFillColorRGB(1, 1, 1)  # a white strip under the name, so the cross does not strike it through
    c.rect(x + (w - label_w) / 2, y + h / 2 - size * 0.6, label_w, size * 1.2, stroke=0, fill=1)
    c.setFillColorRGB(0.1, 0.1, 0.1)
    c.setFont(GOTHIC, size)
    draw_string(c, x + w / 2, y + h / 2 - size / 3, text, lang, "centre")
    c.restoreState()


# --- check ----------------------------------------------------------------------------------------

def art_checks(notes: list[ArtNote]) -> list:
    """One warning per image and problem (missing file, under PRINT_DPI, SVG features not drawn),
    naming a card and how many others."""
    from ...model import CheckResult

    low = [n for n in notes if n.problem == "low-dpi"]
    first: dict[tuple, ArtNote] = {}
    cards: dict[tuple, set[str]] = {}
    for n in notes:
        if n.problem == "low-dpi":
            continue
        key = (n.problem, n.src)
        cards.setdefault(key, set()).add(n.card_id)
        if key not in first or (n.problem == "low-dpi" and n.dpi < first[key].dpi):
            first[key] = n
    out = []
    for key, n in sorted(first.items()):
        others = len(cards[key]) - 1
        more = f" and {others} other card(s)" if others > 0 else ""
        where = f"card {n.card_id}{more} ({n.side}): image box '{n.box}'"
        if n.problem == "missing":
            message = f"{where}: file '{n.src}' does not exist in the game folder; a grey placeholder is printed instead"
        elif n.problem == "svg-unsupported":
            message = (f"{where}: SVG '{n.src}' is not printed as drawn: {n.detail}; "
                       f"convert them to plain shapes in your drawing program, or use a PNG")
        out.append(CheckResult("art", True, message, n.location, warning=True))
    return out + _low_dpi_checks(low)


def _low_dpi_checks(notes: list[ArtNote]) -> list:
    """One warning per image box (at the layout line that places the art): the box's size and the
    image's pixels make the resolution, so every image it prints too soft is listed there once."""
    from ...model import CheckResult

    boxes: dict[tuple, dict[str, list[ArtNote]]] = {}
    for n in notes:
        boxes.setdefault((str(n.placed), n.box, n.side), {}).setdefault(n.src, []).append(n)
    out = []
    for (_, box, side), images in sorted(boxes.items()):
        shown = []
        for src, same in sorted(images.items()):
            worst = min(same, key=lambda n: n.dpi)
            ids = sorted({n.card_id for n in same}, key=[n.card_id for n in same].index)
            others = f" and {len(ids) - 1} other card(s)" if len(ids) > 1 else ""
            shown.append(f"'{src}' at {worst.dpi:.0f} dpi (card {ids[0]}{others})")
        listed = ", ".join(shown[:3]) + (f" and {len(shown) - 3} more" if len(shown) > 3 else "")
        need = max((n.needed_px for same in images.values() for n in same), key=lambda px: px[0] * px[1])
        first = next(iter(images.values()))[0]
        message = (f"image box '{box}' ({side}) prints {len(images)} image(s) below {PRINT_DPI} dpi (soft in print): {listed}; "
                   f"use images of at least {need[0]}×{need[1]} px for this box")
        out.append(CheckResult("art", True, message, first.placed, warning=True))
    return out
