"""Fuzz mutations of the surfaces beyond YAML and Markdown (issue #26): card lists kept as
spreadsheets (CSV, xlsx), SVG icons and art, raster art (PNG, JPEG) and a game's own fonts.

`mutate(rng, folder)` applies one of them to a copied game folder and says what it did; it is
called by tests/fuzzing.py's `make_case`, so every case stays reproducible from (game, seed).
The art fixture (tests/fixtures/art_game) has image boxes, inline icons and a name box whose
font a mutation can point at a game font; the bundled games get spreadsheets and inline icons.
"""

from __future__ import annotations

import io
import json
import random
import re
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# --- bytes ----------------------------------------------------------------------------------------


def _flip(rng: random.Random, data: bytes, count: int, within: int | None = None) -> bytes:
    if not data:
        return data
    out = bytearray(data)
    span = min(len(out), within or len(out))
    for _ in range(count):
        out[rng.randrange(span)] = rng.randrange(256)
    return bytes(out)


def _truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data))] if data else data


# --- spreadsheets ---------------------------------------------------------------------------------

def _csv_ops(rng: random.Random, text: str) -> tuple[str, str]:
    lines = text.splitlines()
    header = lines[0].split(",")
    op = rng.choice(("count-bomb", "huge-count", "formula", "quote", "wide", "tall", "control", "bytes"))
    if op == "count-bomb" and "count" in header:
        column = header.index("count")
        body = [line.split(",") for line in lines[1:2]] * rng.choice((50, 2000))
        for row in body:
            row[column] = str(rng.choice((2000, 1999, 40, 10**12)))
        return "\n".join([lines[0]] + [",".join(r) for r in body]) + "\n", f"{len(body)} rows of a large count"
    if op == "huge-count" and "count" in header:
        i = rng.randrange(1, len(lines))
        cells = lines[i].split(",")
        cells[header.index("count")] = rng.choice(("9" * 400, "-1", "1e9", "0x10", "２"))
        lines[i] = ",".join(cells)
        return "\n".join(lines) + "\n", f"line {i + 1}: count {cells[header.index('count')][:12]}"
    if op == "formula":
        i = rng.randrange(1, len(lines))
        payload = rng.choice(('=HYPERLINK("http://127.0.0.1:9/")', "=cmd|' /C calc'!A0", "+1+1", "@SUM(A1)", "\t=1"))
        lines[i] = lines[i] + "," + payload if rng.random() < 0.3 else re.sub(r",([^,]*)$", "," + payload.replace(",", " "), lines[i])
        return "\n".join(lines) + "\n", f"line {i + 1}: formula {payload!r}"
    if op == "quote":
        i = rng.randrange(len(lines))
        lines[i] = lines[i].replace(",", ',"', 1)
        return "\n".join(lines) + "\n", f"line {i + 1}: unbalanced quote"
    if op == "wide":
        return lines[0] + ",x" * rng.choice((10, 250)) + "\n" + "\n".join(lines[1:]) + "\n", "many columns"
    if op == "tall":
        return "\n".join(lines + [lines[-1]] * rng.choice((100, 10_001))) + "\n", "many rows"
    if op == "control":
        i = rng.randrange(len(lines))
        lines[i] += rng.choice(("\x00", "\x07", "\x1b[2J", "\ufffe"))
        return "\n".join(lines) + "\n", f"line {i + 1}: control character"
    return _flip(rng, text.encode("utf-8"), 4).decode("utf-8", "replace"), "bytes flipped"


def _xlsx_parts(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _xlsx_bytes(parts: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _xlsx_ops(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    parts = _xlsx_parts(data)
    sheet = next(n for n in parts if n.startswith("xl/worksheets/"))
    op = rng.choice(("far-cell", "move-sheet", "unclosed", "encrypted", "padding", "drop-part", "truncate", "bytes", "no-refs"))
    if op == "far-cell":
        quote = rng.choice((b'"', b"'"))
        cell = rng.choice((b"XFD1048576", b"GR1000000", b"A10001", b"GS1", b"a1", b"A0", b"1A", b"A" + b"9" * 20))
        row = re.sub(rb"[A-Za-z]", b"", cell) or b"1"
        far = b"<row r=Q" + row + b"Q><c r=Q" + cell + b"Q t=QinlineStrQ><is><t>x</t></is></c></row>"
        parts[sheet] = parts[sheet].replace(b"</sheetData>", far.replace(b"Q", quote) + b"</sheetData>")
        return _xlsx_bytes(parts), f"cell {cell.decode()} ({quote.decode()})"
    if op == "move-sheet":
        target = rng.choice(("xl/data/Other.xml", "other.xml", "xl/worksheets/../x.xml"))
        parts[target] = parts.pop(sheet)
        for rels in ("xl/_rels/workbook.xml.rels", "[Content_Types].xml"):
            parts[rels] = parts[rels].replace(sheet.removeprefix("xl/").encode(), target.removeprefix("xl/").upper().encode())
        return _xlsx_bytes(parts), f"sheet moved to {target}"
    if op == "unclosed":
        parts[sheet] = parts[sheet].replace(b"</sheetData>", b"</sheetData><extLst>" + b"<c " * rng.choice((10, 300_000)))
        return _xlsx_bytes(parts), "unclosed <c tags"
    if op == "encrypted":
        out = bytearray(_xlsx_bytes(parts))
        entry = out.index(b"PK\x01\x02")
        out[entry + 8] |= 0x1
        return bytes(out), "first part marked encrypted"
    if op == "padding":
        parts[sheet] = parts[sheet].replace(b"<sheetData>", b"<sheetData>" + b" " * rng.choice((1000, 40_000_000)))
        return _xlsx_bytes(parts), "padded sheet"
    if op == "drop-part":
        name = rng.choice(sorted(parts))
        del parts[name]
        return _xlsx_bytes(parts), f"part {name} dropped"
    if op == "no-refs":
        parts[sheet] = re.sub(rb'\sr="[A-Z]+[0-9]+"', b"", parts[sheet])
        return _xlsx_bytes(parts), "cells without references"
    if op == "truncate":
        return _truncate(rng, data), "truncated"
    name = rng.choice(sorted(parts))
    parts[name] = _flip(rng, parts[name], 3)
    return _xlsx_bytes(parts), f"bytes flipped in {name}"


def m_spreadsheet(rng: random.Random, folder: Path) -> str:
    """Replace cards.yaml by its export as CSV or xlsx, then mutate that."""
    from cardgen.errors import CardgenError
    from cardgen.export import to_csv, to_xlsx
    from cardgen.load import load_game

    try:
        game = load_game(folder)
    except CardgenError:
        return "spreadsheet: game does not load"
    (folder / "cards.yaml").unlink()
    if rng.random() < 0.5:
        text, what = _csv_ops(rng, to_csv(game))
        (folder / "cards.csv").write_text(text, encoding="utf-8", errors="surrogatepass")
        return f"cards.csv: {what}"
    data, what = _xlsx_ops(rng, to_xlsx(game))
    (folder / "cards.xlsx").write_bytes(data)
    return f"cards.xlsx: {what}"


# --- SVG ------------------------------------------------------------------------------------------

_SVG = '<svg xmlns="http://www.w3.org/2000/svg" {size}>{body}</svg>'


def _svg(rng: random.Random) -> tuple[str, str]:
    op = rng.choice(("segments", "tiny", "huge-number", "nan", "nesting", "use-chain", "doctype", "href", "css",
                     "text", "empty", "not-xml", "plain"))
    size = 'viewBox="0 0 100 100"'
    body = '<circle cx="50" cy="50" r="40"/>'
    if op == "segments":
        n = rng.choice((1000, 200_000, 300_000))
        body = '<path d="M0 0' + " l1 1 l-1 0" * (n // 2) + '"/>'
    elif op == "tiny":
        size = rng.choice(('viewBox="0 0 1e-300 1e-300"', 'width="0" height="0"', 'viewBox="0 0 -5 5"', 'width="1e300" height="1"'))
    elif op == "huge-number":
        body = rng.choice(('<circle cx="50" cy="50" r="40" stroke="#000" stroke-width="1e300"/>',
                           '<rect x="1e25" y="0" width="10" height="10"/>', '<path d="M0 0 L1e40 1e40"/>',
                           '<text x="1" y="50" font-size="1e30">A</text>', '<g transform="scale(1e200)"><rect width="1" height="1"/></g>'))
    elif op == "nan":
        body = rng.choice(('<circle cx="nan" cy="inf" r="-1"/>', '<rect width="NaN" height="5"/>', '<path d="M0 0 L"/>'))
    elif op == "nesting":
        depth = rng.choice((50, 5000))
        body = "<g>" * depth + body + "</g>" * depth
    elif op == "use-chain":
        body = '<defs><g id="a"><circle r="1"/></g><g id="b"><use href="#a"/><use href="#a"/></g></defs>' + '<use href="#b"/>' * 100
    elif op == "doctype":
        return '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "xx">]>' + _SVG.format(size=size, body=body), op
    elif op == "href":
        body = rng.choice(('<image href="/etc/passwd" width="10" height="10"/>', '<image href="data:image/png;base64,AAAA"/>',
                           '<use href="file:///etc/passwd#x"/>'))
    elif op == "css":
        body = '<style>@import url(/etc/passwd); rect { fill: url(http://127.0.0.1:9/) }</style><rect width="9" height="9"/>'
    elif op == "text":
        body = '<text x="0" y="50" font-family="../../../etc/passwd" font-size="20">' + "字" * rng.choice((5, 5000)) + "</text>"
    elif op == "empty":
        return "", op
    elif op == "not-xml":
        return "\x89PNG\r\n not an svg", op
    return _SVG.format(size=size, body=body), op


def m_svg_icon(rng: random.Random, folder: Path) -> str:
    """A game icon icons/fz.svg used `:fz:` times in a card text (or, for the art fixture, its coin)."""
    svg, what = _svg(rng)
    cards = folder / "cards.yaml"
    if (folder / "icons" / "coin.svg").exists() and rng.random() < 0.5:
        (folder / "icons" / "coin.svg").write_text(svg, encoding="utf-8")
        return f"icons/coin.svg: {what}"
    if not cards.exists():
        return "svg icon: no cards.yaml"
    text = cards.read_text(encoding="utf-8")
    uses = rng.choice((1, 3, 60))
    new = re.sub(r'^(\s+en: )(?!["\'|>])(\S.*)$', lambda m: m.group(1) + json.dumps(":fz: " * uses + m.group(2), ensure_ascii=False),
                 text, count=1, flags=re.M)
    if new == text:
        new = re.sub(r'^(\s+en: ")', lambda m: m.group(1) + ":fz: " * uses, text, count=1, flags=re.M)
    if new == text:
        return "svg icon: no English text"
    (folder / "icons").mkdir(exist_ok=True)
    (folder / "icons" / "fz.svg").write_text(svg, encoding="utf-8")
    cards.write_text(new, encoding="utf-8")
    return f"icons/fz.svg x{uses}: {what}"


def m_svg_art(rng: random.Random, folder: Path) -> str:
    art = folder / "art" / "green.svg"
    if not art.exists():
        return m_svg_icon(rng, folder)
    svg, what = _svg(rng)
    art.write_text(svg, encoding="utf-8")
    return f"art/green.svg: {what}"


# --- raster images --------------------------------------------------------------------------------

def _png_header(width: int, height: int) -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + \
        chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b"")


def m_image(rng: random.Random, folder: Path) -> str:
    images = [p for p in (folder / "art").glob("*") if p.suffix in (".png", ".jpg")] if (folder / "art").is_dir() else []
    if not images:
        return m_spreadsheet(rng, folder)
    image = rng.choice(sorted(images))
    data = image.read_bytes()
    op = rng.choice(("truncate", "empty", "flip", "flip-header", "swap-format", "bomb", "text"))
    if op == "truncate":
        data = _truncate(rng, data)
    elif op == "empty":
        data = b""
    elif op == "flip":
        data = _flip(rng, data, 8)
    elif op == "flip-header":
        data = _flip(rng, data, 2, within=64)
    elif op == "swap-format":
        other = [p for p in images if p.suffix != image.suffix]
        data = other[0].read_bytes() if other else data
    elif op == "bomb":
        data = _png_header(*rng.choice(((100_000, 100_000), (0, 10), (1, 2**31 - 1), (7000, 7000))))
    else:
        data = b"GIF89a not really"
    image.write_bytes(data)
    return f"{image.relative_to(folder)}: {op}"


# --- fonts ----------------------------------------------------------------------------------------

def m_font(rng: random.Random, folder: Path) -> str:
    """fonts/fz.ttf, a damaged copy of a bundled font, named by the art fixture's name box."""
    layout = folder / "templates" / "layout.yaml"
    if not layout.exists() or "size: 12, align: center}" not in layout.read_text(encoding="utf-8"):
        return m_svg_icon(rng, folder)
    data = (REPO / "fonts" / "ipaexg.ttf").read_bytes()
    op = rng.choice(("truncate", "flip-directory", "flip", "empty", "garbage", "intact"))
    if op == "truncate":
        data = _truncate(rng, data)
    elif op == "flip-directory":
        data = _flip(rng, data, 3, within=400)
    elif op == "flip":
        data = _flip(rng, data, 50)
    elif op == "empty":
        data = b""
    elif op == "garbage":
        data = bytes(rng.randrange(256) for _ in range(4096))
    (folder / "fonts").mkdir(exist_ok=True)
    (folder / "fonts" / "fz.ttf").write_bytes(data)
    text = layout.read_text(encoding="utf-8")
    layout.write_text(text.replace("size: 12, align: center}", "size: 12, align: center, font: fz}", 1), encoding="utf-8")
    return f"fonts/fz.ttf: {op}"


SURFACES = (m_spreadsheet, m_spreadsheet, m_svg_icon)
ART_SURFACES = (m_spreadsheet, m_svg_icon, m_svg_art, m_image, m_image, m_font, m_font)  # a folder with art/


def mutate(rng: random.Random, folder: Path) -> str:
    """Apply one surface mutation to the game folder; return what it did."""
    return rng.choice(ART_SURFACES if (folder / "art").is_dir() else SURFACES)(rng, folder)
