"""Register the bundled fonts with ReportLab (once per process), and make every PDF cardgen
writes use binary streams."""

from __future__ import annotations

import hashlib
import io
import re
from functools import cache, lru_cache
from pathlib import Path

from reportlab import rl_config
from reportlab.pdfbase import pdfdoc, pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from .io import limits
from .io.paths import inside, package_root

GOTHIC = "IPAexGothic"
MINCHO = "IPAexMincho"
FONT_FILES = {GOTHIC: "ipaexg.ttf", MINCHO: "ipaexm.ttf"}

# The faces of the other scripts and weights, registered when first asked for (fonts/README.md):
# a real bold instead of a stroked outline, and a Latin family with Western European accents
# (IPAex sets ’ and other punctuation full-width, which gaps French and German text).
GOTHIC_BOLD = "BIZUDGothic-Bold"  # BIZ UD Gothic Bold: the Japanese bold of both faces (no free TrueType mincho bold)
LATIN_SANS, LATIN_SANS_BOLD = "LiberationSans", "LiberationSans-Bold"
LATIN_SERIF, LATIN_SERIF_BOLD = "LiberationSerif", "LiberationSerif-Bold"
EXTRA_FILES = {GOTHIC_BOLD: "BIZUDGothic-Bold.ttf", LATIN_SANS: "LiberationSans-Regular.ttf",
               LATIN_SANS_BOLD: "LiberationSans-Bold.ttf", LATIN_SERIF: "LiberationSerif-Regular.ttf",
               LATIN_SERIF_BOLD: "LiberationSerif-Bold.ttf"}
# (layout face, Japanese script?, bold) -> the bundled font that draws it
SCRIPT_FACES = {
    ("gothic", True, False): GOTHIC, ("gothic", True, True): GOTHIC_BOLD,
    ("mincho", True, False): MINCHO, ("mincho", True, True): GOTHIC_BOLD,
    ("gothic", False, False): LATIN_SANS, ("gothic", False, True): LATIN_SANS_BOLD,
    ("mincho", False, False): LATIN_SERIF, ("mincho", False, True): LATIN_SERIF_BOLD,
}

# Every module that draws a PDF imports this one, so this is where ReportLab is told, for the
# whole process, to write plain Flate streams instead of Flate + ASCII85 (its default): ASCII85
# makes every stream a quarter larger and costs its pure-Python encoder's time in every
# rulebook, standard-deck sheet and playtest kit (`sheet.binary_streams` restores this value).
rl_config.useA85 = 0


def _memoised_pdf_name(name_of):
    """ReportLab's PDFName (a pure function escaping a name character by character) remembered:
    each form XObject's name is written again in the /XObject resources of every page and form
    drawn after it, ~20,000 times for the four bundled games' home sheets and print-shop PDFs
    against ~300 distinct names, and our names show the card id (`c0003_LL04_front`), so each
    escape walks ~25 characters.  ReportLab passes only the name (a str)."""
    remember = lru_cache(maxsize=8192)(name_of)

    def pdf_name(data):
        try:
            return remember(data)
        except TypeError:  # an unhashable name: escape it as ReportLab would
            return name_of(data)

    pdf_name.original = name_of  # type: ignore[attr-defined]
    return pdf_name


if not hasattr(pdfdoc.PDFName, "original"):
    pdfdoc.PDFName = _memoised_pdf_name(pdfdoc.PDFName)

# ReportLab deflates every stream with zlib at its default level (6); zlib-ng (already a
# dependency, for the PNG faces) writes ordinary deflate at that level ~1.7x faster and as small
# (a cold build of the bundled games deflates 10.3 MB of streams: 0.21 s with zlib, 0.12 s).
try:
    from zlib_ng import zlib_ng as _zlib_ng
except ImportError:  # pragma: no cover - zlib-ng has no wheel for the platform: ReportLab's zlib
    _zlib_ng = None


def _deflate_stream(self, text):
    if isinstance(text, str):
        text = text.encode("utf8")
    return _zlib_ng.compress(text, 6)


if _zlib_ng is not None:
    pdfdoc.PDFStreamFilterZCompress.encode = _deflate_stream


class _GlyphTable:
    """A font's glyf table read in place: ReportLab's subsetter copies the whole table (4-6 MB for
    IPAex) for every subset it writes, up to ten per rulebook, then slices one glyph at a time."""

    def __init__(self, data: bytes, start: int, length: int) -> None:
        self.data, self.start, self.length = data, start, length

    def __getitem__(self, part: slice) -> bytes:
        begin, end, _ = part.indices(self.length)
        return self.data[self.start + begin:self.start + end]


def _true_type(name: str, source) -> TTFont:
    """ReportLab's TTFont of `source` (a path or a file), whose subsets read glyphs in place."""
    font = TTFont(name, source)
    face = font.face
    table = face.get_table

    def get_table(tag: str):
        if tag == "glyf":
            return _GlyphTable(face._ttf_data, *face.get_table_pos(tag))
        return table(tag)

    face.get_table = get_table
    return font


def fonts_dir() -> Path:
    return package_root() / "fonts"


@cache
def register_fonts() -> tuple[str, str]:
    """Register IPAex Gothic and Mincho (TrueType outlines, so embedded and subset) and return their names."""
    for name, filename in FONT_FILES.items():
        pdfmetrics.registerFont(_true_type(name, str(fonts_dir() / filename)))
    return GOTHIC, MINCHO


# --- a game's own fonts ---------------------------------------------------------------------------
# A layout's `font:` names a bundled face (gothic, mincho) or a file of the game folder's fonts/
# folder, <game>/fonts/<name>.ttf (or .otf/.ttc with TrueType outlines), which is looked up first,
# so a game may also replace the bundled gothic or mincho. A font file is hostile input: bounded in
# size, read once, parsed by ReportLab inside a try, registered under a name made from its bytes'
# hash (never from the file name), and embedded as a subset like the bundled ones.

BUNDLED = {"gothic": GOTHIC, "mincho": MINCHO}
GAME_FONTS = "fonts"
FONT_SUFFIXES = (".ttf", ".otf", ".ttc")
_FONT_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")


class FontError(ValueError):
    """A game's font file that cannot be used (the caller knows the layout line that names it)."""


def game_font_file(root: Path | None, name: str) -> Path | None:
    """The game folder's fonts/<name>.ttf|.otf|.ttc, or None."""
    if root is None or not _FONT_NAME.match(name) or not (root / GAME_FONTS).is_dir():
        return None
    for suffix in FONT_SUFFIXES:
        found = inside(root, f"{GAME_FONTS}/{name}{suffix}")
        if found is not None and found.is_file():
            return found
    return None


def font_names(root: Path | None) -> list[str]:
    """Every font name a layout of this game may use, for messages."""
    own = []
    if root is not None and (root / GAME_FONTS).is_dir():
        own = [p.stem for p in sorted((root / GAME_FONTS).iterdir())[:200]
               if p.suffix.lower() in FONT_SUFFIXES and _FONT_NAME.match(p.stem)]
    return sorted(set(BUNDLED) | set(own))


@cache
def _register_extra(name: str) -> str:
    pdfmetrics.registerFont(_true_type(name, str(fonts_dir() / EXTRA_FILES[name])))
    return name


def resolve_face(root: Path | None, name: str, lang: str, bold: bool) -> tuple[str, bool]:
    """(ReportLab font, whether to embolden it by stroking) for a layout's `font:` in `lang`.

    A bundled face is chosen by the language's script and the weight (SCRIPT_FACES): a real bold,
    never a stroked outline. A game's own font is drawn as it is; its bold is the file
    fonts/<name>-bold.ttf when the folder has one, else the regular stroked (the game gave no bold).
    Raises FontError as `resolve_font` does."""
    from .langs import is_cjk

    if game_font_file(root, name) is not None:
        if bold and game_font_file(root, f"{name}-bold") is not None:
            return resolve_font(root, f"{name}-bold"), False
        return resolve_font(root, name), bold
    if name in BUNDLED:
        register_fonts()
        face = SCRIPT_FACES[(name, is_cjk(lang), bool(bold))]
        return (face if face in FONT_FILES else _register_extra(face)), False
    return resolve_font(root, name), bold


# --- fonts by script: the one place every text asks -----------------------------------------------
# A text is set in a face of a role (IPAex Gothic for headings, tables and labels, Mincho for body
# text, BIZ UD Gothic Bold for strong Japanese). In a Japanese document that face sets everything.
# In a Latin-script language each character the Latin face of that role has is set in it
# (Liberation Sans for Gothic, Serif for Mincho, their bold for strong text): IPAex sets ’ „ “ and
# accented letters full-width or poorly. A character the Latin face lacks (a Japanese card name
# quoted in English text) is set in the Japanese face of the role, so it still prints. A card's
# text box in a Latin language is given its Latin face (`resolve_face`) and falls back the same
# way. Card faces, paragraphs, tables, headers and footers, sheets, tuck boxes, charts and the line
# breaker all ask `face_of` (or `face_runs`, `string_width`, `draw_string` built on it).

_LATIN_OF = {GOTHIC: (LATIN_SANS, LATIN_SANS_BOLD), GOTHIC_BOLD: (LATIN_SANS_BOLD, LATIN_SANS_BOLD),
             MINCHO: (LATIN_SERIF, LATIN_SERIF_BOLD)}
# The Japanese face of each Latin one's role and weight (as SCRIPT_FACES pairs them on a card).
_JAPANESE_OF = {SCRIPT_FACES[(role, False, bold)]: SCRIPT_FACES[(role, True, bold)]
                for role in ("gothic", "mincho") for bold in (False, True)}


def latin_face(font: str, lang: str, strong: bool = False) -> str | None:
    """The Latin face that sets the Latin characters of a text in `lang` whose font is the bundled
    `font` (IPAex Gothic -> Liberation Sans, its bold for strong text; IPAex Mincho -> Liberation
    Serif); None for a Japanese text or a font of another kind (a game's own, or a Latin face)."""
    if _is_cjk(lang):
        return None
    pair = _LATIN_OF.get(font)
    return None if pair is None else _register_extra(pair[1] if strong else pair[0])


@lru_cache(maxsize=64)
def _is_cjk(lang: str) -> bool:
    from .langs import is_cjk

    return is_cjk(lang)


@lru_cache(maxsize=65536)
def face_of(char: str, font: str, lang: str, strong: bool = False) -> str:
    """The font that sets `char` of a text in `lang` whose face is `font` (see above): a bundled
    Japanese face in a Latin language gives way to its Latin face, a Latin face to its Japanese one
    for a character it lacks; a Japanese text and a game's own font set everything themselves."""
    latin = latin_face(font, lang, strong)
    if latin is not None:
        return latin if has_glyph(latin, char) else font
    japanese = None if _is_cjk(lang) else _JAPANESE_OF.get(font)
    if japanese is not None and not has_glyph(font, char):
        register_fonts()
        return _register_extra(japanese) if japanese in EXTRA_FILES else japanese
    return font


def _mixes(font: str, lang: str) -> bool:
    """Whether a text in `font` and `lang` may be set in more than one face."""
    return not _is_cjk(lang) and (font in _LATIN_OF or font in _JAPANESE_OF)


def face_runs(text: str, font: str, lang: str, strong: bool = False) -> list[tuple[str, str]]:
    """`text` as (piece, font) runs, each piece set in one font (`face_of`): one run, `font`
    itself, for a Japanese text."""
    if not _mixes(font, lang):
        return [(text, font)] if text else []
    out: list[tuple[str, str]] = []
    for char in text:
        face = face_of(char, font, lang, strong)
        if out and out[-1][1] == face:
            out[-1] = (out[-1][0] + char, face)
        else:
            out.append((char, face))
    return out


def string_width(text: str, font: str, size: float, lang: str, strong: bool = False) -> float:
    """The advance of `text` in points, each character in the face that sets it."""
    return sum(pdfmetrics.stringWidth(piece, face, size) for piece, face in face_runs(text, font, lang, strong))


def draw_string(canvas, x: float, y: float, text: str, lang: str, anchor: str = "left", strong: bool = False,
                char_space: float = 0.0) -> None:
    """Draw `text` at (x, y) in the canvas's current font and size as `face_runs` sets it, its
    left end, centre or right end (`anchor`: left, centre, right) at x. A text set in the current
    font alone is drawn exactly as `canvas.drawString` (and friends) draw it."""
    font, size = canvas._fontname, canvas._fontsize
    pieces = face_runs(text, font, lang, strong)
    extra = {"charSpace": char_space} if char_space else {}
    if len(pieces) <= 1 and (not pieces or pieces[0][1] == font):
        method = {"left": canvas.drawString, "centre": canvas.drawCentredString, "right": canvas.drawRightString}[anchor]
        method(x, y, text, **extra)
        return
    widths = [pdfmetrics.stringWidth(piece, face, size) + char_space * len(piece) for piece, face in pieces]
    x -= {"left": 0.0, "centre": sum(widths) / 2, "right": sum(widths)}[anchor]
    canvas.saveState()
    for (piece, face), width in zip(pieces, widths):
        canvas.setFont(face, size)
        canvas.drawString(x, y, piece, **extra)
        x += width
    canvas.restoreState()


def face_files(font: str, lang: str) -> list[Path]:
    """The files of the faces that set a text in `lang` whose face is the bundled `font`, the
    first choice first (for a program that does its own fallback per character, as matplotlib
    does for the report charts)."""
    latin = latin_face(font, lang)
    return [fonts_dir() / name for name in ([EXTRA_FILES[latin]] if latin else []) + [FONT_FILES[font]]]


def has_glyph(font: str, char: str) -> bool:
    return ord(char) in _glyphs(font)


def missing_character(font: str, text: str) -> str | None:
    """The first character of `text` that `font` has no glyph for (spaces and line breaks aside), or None."""
    glyphs = _glyphs(font)
    for char in text:
        if ord(char) not in glyphs and not char.isspace() and char not in "\u00ad\u200b\u2060":
            return char
    return None


@cache
def _glyphs(font: str) -> frozenset[int]:
    return frozenset(pdfmetrics.getFont(font).face.charToGlyph)


def resolve_font(root: Path | None, name: str) -> str:
    """The ReportLab font name for a layout's `font:` value: the game folder's own file first, then
    the bundled face. Raises FontError for an unknown name or an unusable file."""
    path = game_font_file(root, name)
    if path is not None:
        stat = path.stat()
        return _register_file(str(path), stat.st_size, stat.st_mtime_ns)
    if name in BUNDLED:
        register_fonts()
        return BUNDLED[name]
    raise FontError(f"font '{name}' is unknown; use one of {', '.join(font_names(root))} "
                    f"or put {GAME_FONTS}/{name}.ttf in the game folder")


@cache
def _register_file(path: str, size: int, mtime_ns: int) -> str:
    """Register one font file (once per version of it) and return its ReportLab name."""
    if size > limits.MAX_FONT_BYTES:
        raise FontError(f"{Path(path).name} is {size / 1e6:.1f} MB; a font file may be at most {limits.MAX_FONT_BYTES // 2**20} MB")
    with open(path, "rb") as handle:
        data = handle.read(limits.MAX_FONT_BYTES + 1)
    if len(data) > limits.MAX_FONT_BYTES:
        raise FontError(f"{Path(path).name}: a font file may be at most {limits.MAX_FONT_BYTES // 2**20} MB")
    registered = "cardgen-font-" + hashlib.sha256(data).hexdigest()[:20]
    try:
        pdfmetrics.getFont(registered)
        return registered
    except KeyError:
        pass
    try:
        font = _true_type(registered, io.BytesIO(data))
    except Exception as exc:  # any parse failure of a hostile file (TTFError, struct.error, IndexError, ...)
        detail = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise FontError(f"{Path(path).name} is not a usable TrueType font ({detail}); "
                        f"use a .ttf, or an .otf with TrueType outlines") from None
    pdfmetrics.registerFont(font)
    return registered
