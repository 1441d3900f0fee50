"""Raster outputs, made by rasterising the print-shop PDF with PDFium (fast, and the pixels
are exactly what the shop PDF shows).

- `face_pngs`: one PNG per card face at 300 dpi including bleed (poker with 1/8 in bleed is
  825 x 1125 px), named `<card id>-front.png`; a card's own back is `<card id>-back.png` and
  the deck's common back is written once as `back.png` (online printers take one common back).
- `tts_sheets`: Tabletop Simulator deck sheets of at most 10 x 7 cards and 4096 x 4096 px,
  trimmed (no bleed), RGB PNG, plus the common back image, a back sheet per deck sheet when
  some card on it has its own back (TTS "unique backs"), and a JSON manifest with the
  numbers TTS asks for (width, height, number of cards).
"""

from __future__ import annotations

import io
import json
import math
import re
import struct
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Protocol, Sequence

from PIL import Image

from ...errors import CardgenError
from ...io import limits

try:  # optional: a faster PNG encoder (see _encode_png)
    import numpy as _np
except ImportError:  # pragma: no cover
    _np = None

# zlib-ng deflates card faces about 2.8x faster than zlib, and at level 2 into smaller files than
# zlib's level 3 (measured on ohanatsumi's faces: 1.9 ms and 92 KB a face against 5.9 ms and
# 98 KB); its output is ordinary deflate.  zlib, if zlib-ng cannot be installed on a platform.
try:
    from zlib_ng import zlib_ng as _deflate

    PNG_LEVEL = 2
except ImportError:  # pragma: no cover
    _deflate = zlib
    PNG_LEVEL = 3

PNG_DPI = 300
TTS_MAX_COLS = 10
TTS_MAX_ROWS = 7
TTS_MAX_PX = 4096
TTS_MAX_CARDS = TTS_MAX_COLS * TTS_MAX_ROWS - 1  # never the 70th slot (TTS's hidden-card image)
OWN_BACKS = "own-backs"  # the TTS deck of cards that have their own backs
PT_PER_MM = 72 / 25.4

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def safe_name(card_id: str) -> str:
    return _UNSAFE.sub("_", card_id)


def png_size(card_size: tuple[float, float], bleed: float, dpi: int = PNG_DPI) -> tuple[int, int]:
    """Pixel size of a face with bleed at `dpi`: round((mm + 2 * bleed) / 25.4 * dpi)."""
    w, h = card_size
    return round((w + 2 * bleed) / 25.4 * dpi), round((h + 2 * bleed) / 25.4 * dpi)


def check_pixels(size: tuple[int, int], what: str) -> tuple[int, int]:
    """`size` if an image of that many pixels may be drawn; CardgenError (before anything is allocated) if not."""
    w, h = size
    if w <= 0 or h <= 0:
        raise CardgenError(f"{what} would be {w} x {h} px; the card size and bleed must be positive")
    if w * h > limits.MAX_IMAGE_PIXELS:
        raise CardgenError(f"{what} would be {w:,} x {h:,} px ({w * h:,} pixels), more than the limit of "
                           f"{limits.MAX_IMAGE_PIXELS:,}; use a smaller card size or bleed")
    return size


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", _deflate.crc32(kind + data) & 0xFFFFFFFF)


def _encode_png(image, dpi: int | None, level: int = PNG_LEVEL) -> bytes:
    """PNG bytes of an RGB image (a PIL image, or an H x W x 3 uint8 array such as a view of a
    PDFium bitmap), with its dpi recorded (pHYs) when given.

    With numpy available, every row is written with the PNG "Up" filter and deflated by
    `_deflate` at PNG_LEVEL: several times faster than Pillow's encoder (which tries five
    filters on every row and uses zlib) for the same size on card faces.  Without numpy, Pillow writes it.  Either way the bytes
    depend only on the pixels.
    """
    if _np is None or (isinstance(image, Image.Image) and image.mode != "RGB"):
        if not isinstance(image, Image.Image):  # pragma: no cover - arrays only come with numpy
            image = Image.fromarray(image, "RGB")
        out = io.BytesIO()
        extra = {"dpi": (dpi, dpi)} if dpi else {}
        image.save(out, format="PNG", compress_level=level, **extra)
        return out.getvalue()
    array = image if isinstance(image, _np.ndarray) else None
    width, height = image.size if array is None else (array.shape[1], array.shape[0])
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunks = [_png_chunk(b"IHDR", header)]
    if dpi:
        per_metre = round(dpi / 0.0254)
        chunks.append(_png_chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1)))
    # Bands of rows keep the memory small for 4096 px TTS sheets.
    compressor = _deflate.compressobj(level)
    parts = []
    above = _np.zeros((width, 3), dtype=_np.uint8)  # the row above the first counts as zeros
    for top in range(0, height, _BAND):
        bottom = min(height, top + _BAND)
        if array is None:
            pixels = _np.asarray(image.crop((0, top, width, bottom)), dtype=_np.uint8)
        else:
            pixels = array[top:bottom, :, :3]  # a view of the bitmap (rows may be padded)
        rows = _np.empty((bottom - top, width * 3 + 1), dtype=_np.uint8)
        rows[:, 0] = 2  # filter type Up
        body = rows[:, 1:].reshape(bottom - top, width, 3)
        _np.subtract(pixels[0], above, out=body[0])
        _np.subtract(pixels[1:], pixels[:-1], out=body[1:])
        above = pixels[-1].copy()
        parts.append(compressor.compress(rows))
    parts.append(compressor.flush())
    chunks.append(_png_chunk(b"IDAT", b"".join(parts)))
    chunks.append(_png_chunk(b"IEND", b""))
    return b"\x89PNG\r\n\x1a\n" + b"".join(chunks)


_BAND = 256


def _pixel_crop(page, scale: float, size: tuple[int, int], crop_pt: float) -> tuple[float, float, float, float]:
    """The crop (left, bottom, right, top, in points) for which PDFium renders `page` at `scale`
    to exactly `size` pixels, the kept area starting at the pixel nearest `crop_pt` in.

    PDFium rounds the page's pixel size and every crop up to whole pixels, so a crop of
    `crop_pt` on each side would lose a pixel on two sides (a TTS tile then came out one
    pixel short and was padded with a white line); instead the crop on the far sides is
    whatever the rounded page size leaves, each given half a pixel short of its whole pixels."""
    if not crop_pt:
        return (0.0, 0.0, 0.0, 0.0)
    width, height = page.get_size()
    left = top = round(crop_pt * scale)
    right = math.ceil(width * scale) - left - size[0]
    bottom = math.ceil(height * scale) - top - size[1]
    if min(right, bottom) < 0:  # `size` wider than the page less its crop: PDFium cannot pad
        return (crop_pt, crop_pt, crop_pt, crop_pt)
    return tuple(max(px - 0.5, 0.0) / scale for px in (left, bottom, right, top))  # type: ignore[return-value]


def _bitmap(page, scale: float, size: tuple[int, int], crop_pt: float, rgbx: bool):
    """PDFium's bitmap of `page` at `scale`, less `crop_pt` on every side, meant to be `size`:
    PDFium rounds the bitmap size up, so the scale is nudged down by a hair, and the crop is
    chosen by `_pixel_crop`.  `rgbx`: 4-byte RGBx (PDFium's fastest path), else 3-byte RGB."""
    check_pixels(size, "an image")
    scale *= 1 - 1e-6
    return page.render(scale=scale, crop=_pixel_crop(page, scale, size, crop_pt), rev_byteorder=True, prefer_bgrx=rgbx)


def _render(page, scale: float, size: tuple[int, int], crop_pt: float = 0.0) -> Image.Image:
    """Render a page (less `crop_pt` on every side) to exactly `size` pixels, as a PIL image; a
    remaining one-pixel difference is cropped or padded, never resampled."""
    # 4-byte RGBx is about a third faster to render than 3-byte RGB into a PIL image here.
    image = _bitmap(page, scale, size, crop_pt, rgbx=True).to_pil()
    if image.mode != "RGB":
        image = image.convert("RGB")
    if image.size != size:
        if abs(image.size[0] - size[0]) > 2 or abs(image.size[1] - size[1]) > 2:
            image = image.resize(size, Image.LANCZOS)
        else:
            canvas = Image.new("RGB", size, "white")
            canvas.paste(image, (0, 0))
            image = canvas
    return image


def _render_pixels(page, scale: float, size: tuple[int, int], crop_pt: float = 0.0):
    """Render a page (less `crop_pt` on every side) for an encoder or a TTS sheet: (pixels,
    bitmap to keep alive, or None).  With numpy the pixels are an H x W x 3 view of a 3-byte
    RGB PDFium bitmap, the same pixels `_render` gives, read in place: rendering RGB costs what
    RGBx does here, and it saves the RGBx -> RGB conversion and the copies into and out of a
    PIL image.  The bitmap must stay alive, and be released on the rendering thread (PDFium is
    not thread-safe), until the pixels are used.  Without numpy: `_render`'s PIL image."""
    if _np is None:
        return _render(page, scale, size, crop_pt), None
    bitmap = _bitmap(page, scale, size, crop_pt, rgbx=False)
    if (bitmap.width, bitmap.height) != size or bitmap.n_channels != 3:
        bitmap.close()  # the rare off-by-one: pad or crop as _render does
        return _np.asarray(_render(page, scale, size, crop_pt)), None
    return bitmap.to_numpy(), bitmap


class _Sheet:
    """A TTS sheet being filled tile by tile: a white H x W x 3 array with numpy (tiles are
    copied in from PDFium's bitmaps), else a PIL image."""

    def __init__(self, size: tuple[int, int], what: str) -> None:
        w, h = check_pixels(size, what)
        self.pixels = _np.full((h, w, 3), 255, dtype=_np.uint8) if _np is not None else Image.new("RGB", (w, h), "white")

    def place(self, page, scale: float, tile: tuple[int, int], crop_pt: float, at: tuple[int, int]) -> None:
        """Render `page` as a tile at `at` (top-left pixel)."""
        pixels, bitmap = _render_pixels(page, scale, tile, crop_pt)
        self.put(pixels, at)
        if bitmap is not None:
            bitmap.close()

    def put(self, pixels, at: tuple[int, int]) -> None:
        """Copy a tile's pixels (of `_render_pixels` or `tile_pixels`) in at `at`."""
        if isinstance(pixels, Image.Image):
            self.pixels.paste(pixels, at)
            return
        x, y = at
        self.pixels[y:y + pixels.shape[0], x:x + pixels.shape[1]] = pixels

    @staticmethod
    def tile_pixels(page, scale: float, tile: tuple[int, int], crop_pt: float):
        """A tile's pixels to `put` more than once (a shared back on a back sheet), owned: no
        bitmap to keep alive."""
        pixels, bitmap = _render_pixels(page, scale, tile, crop_pt)
        if bitmap is None:
            return pixels
        owned = _np.array(pixels)
        bitmap.close()
        return owned


class FaceCache(Protocol):
    """What the rasterisers need of a cache of their images (`cardgen.cache.FaceCache` is the build's):
    `store` has get/put of bytes, `made` counts images rendered afresh by kind, and the keys
    name a face's or a sheet's image drawn `how`."""

    store: Any
    made: dict

    def key(self, card_id: str, side: str, *how: Any) -> str: ...

    def image(self, cards: Sequence[tuple[str, str]], *how: Any) -> str: ...


def shared_back_name(group: str, prefix: str = "") -> str:
    """File name of a shared back: `back.png` for the default group, `back-<group>.png` else."""
    stem = "back" if group == "default" else f"back-{safe_name(group)}"
    return f"{prefix}{stem}.png"


def face_pngs(
    shop_pdf: bytes,
    labels: Sequence[tuple[int, str, str, str | None]],
    card_size: tuple[float, float],
    bleed: float,
    dpi: int = PNG_DPI,
    progress: Callable[[int], None] | None = None,
    cache: FaceCache | None = None,
    written: Any = None,
) -> Iterator[tuple[str, bytes]]:
    """Yield (file name, PNG bytes) for every face of the print-shop PDF (see module doc).

    `labels` comes from `printshop.page_labels`.  Rendering stays on this thread (PDFium is
    not thread-safe); PNG encoding, which releases the GIL, runs on two worker threads.
    With a `cache` (the faces' drawing keys) and `written` (a cache.WrittenFiles of the PNG
    files), a face whose drawing is unchanged is read back from its file instead of rendered.
    """
    import pypdfium2 as pdfium

    size = check_pixels(png_size(card_size, bleed, dpi), "a card face PNG")
    scale = dpi / 72
    pdf = pdfium.PdfDocument(shop_pdf)
    done_groups: set[str] = set()
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            pending: list = []

            def drain(keep: int):
                while len(pending) > keep:
                    name, side, future, bitmap = pending.pop(0)
                    data = future.result()
                    if bitmap is not None:
                        bitmap.close()  # here, not on an encoder thread
                    yield name, data
                    if progress and side == "front":
                        progress(1)

            for page_index, card_id, side, group in labels:
                if group is not None:
                    if group in done_groups:
                        continue
                    done_groups.add(group)
                    name = shared_back_name(group)
                else:
                    name = f"{safe_name(card_id)}-{side}.png"
                key = cache.key(card_id, side, "png", size, dpi) if cache and written is not None else None
                data = written.get(key, name) if key is not None else None
                if data is not None:
                    done: Future = Future()
                    done.set_result(data)
                    pending.append((name, side, done, None))
                    yield from drain(4)
                    continue
                page = pdf[page_index]
                pixels, bitmap = _render_pixels(page, scale, size)
                future = pool.submit(_encode_png, pixels, dpi)
                if key is not None:
                    future.add_done_callback(lambda f, key=key: f.exception() or written.made(key, f.result()))
                pending.append((name, side, future, bitmap))
                page.close()
                yield from drain(4)
            yield from drain(0)
    finally:
        pdf.close()


@dataclass(frozen=True)
class TtsSheet:
    """One TTS deck sheet: its deck, file, back (a single image or a sheet) and grid."""

    deck: str  # the shared back group, or OWN_BACKS
    face: str
    back: str
    unique_back: bool
    cols: int
    rows: int
    card_px: tuple[int, int]
    cards: tuple[str, ...]


def tts_grid(n_cards: int, card_size: tuple[float, float], max_card_w: int) -> tuple[int, int, int, int]:
    """(cols, rows, card_w_px, card_h_px) for a sheet of n_cards within 10 x 7 and 4096 px.

    The card's pixel size is the same for every sheet (that of a full 10 x 7 sheet, at most
    `max_card_w` wide), so all decks and back images of a game match.
    """
    cols = min(TTS_MAX_COLS, n_cards)
    rows = min(TTS_MAX_ROWS, math.ceil(n_cards / cols))
    w_mm, h_mm = card_size
    card_w = min(max_card_w, TTS_MAX_PX // TTS_MAX_COLS, math.floor(TTS_MAX_PX / TTS_MAX_ROWS * w_mm / h_mm))
    card_h = round(card_w * h_mm / w_mm)
    while TTS_MAX_ROWS * card_h > TTS_MAX_PX or TTS_MAX_COLS * card_w > TTS_MAX_PX:
        card_w -= 1
        card_h = round(card_w * h_mm / w_mm)
    return cols, rows, card_w, card_h


def tts_sheets(
    game_id: str,
    shop_pdf: bytes,
    labels: Sequence[tuple[int, str, str, str | None]],
    card_size: tuple[float, float],
    bleed: float,
    progress: Callable[[int], None] | None = None,
    names: Mapping[str, str] | None = None,
    url: Callable[[str], str] | None = None,
    title: str | None = None,
    cache: FaceCache | None = None,
    deck_names: Mapping[str, str] | None = None,
    one_deck: str | None = None,
) -> Iterator[tuple[str, bytes]]:
    """Yield (file name, bytes) of the TTS sheets, back images, `<game>-tts.json` and the
    Saved Object `<game>.json` (see `tts_saved_object`; `names` maps card ids to the names
    shown in TTS, `url` turns a file name into the URL TTS loads it from).

    A sheet holds at most 69 cards (`TTS_MAX_CARDS`): TTS shows the 70th slot of a 10 x 7
    sheet as the hidden-card image, so a full sheet would rely on "Back is Hidden".

    Each physical deck (cards sharing one back; cards with their own backs) becomes its own
    TTS deck: `<game>-<n>.png` for a game with one deck, `<game>-<deck>-<n>.png` otherwise.
    A sheet whose cards show one shared back points at that back's image
    (`<game>-back.png`, `<game>-back-<group>.png`); a sheet of cards with their own backs
    gets a back sheet, `...-<n>-backs.png`, with every back in its card's slot (TTS
    "unique backs").  A `one_deck` name makes every card one TTS deck of that name (a deck the game
    declares is one pile in play, whatever its backs: a back sheet when they differ).  With a
    `cache`, an image whose faces are all unchanged is read from it.
    """
    import pypdfium2 as pdfium

    backs = {cid: (i, group) for i, cid, side, group in labels if side == "back"}
    # One TTS deck per physical deck: the cards sharing a back, and the cards with their own.
    decks: dict[str, list[tuple[int, str]]] = {}
    for i, cid, side, _ in labels:
        if side == "front":
            group = backs[cid][1]
            decks.setdefault(one_deck if one_deck is not None else OWN_BACKS if group is None else group, []).append((i, cid))
    per_sheet = TTS_MAX_CARDS
    max_card_w = round(card_size[0] / 25.4 * PNG_DPI)  # never above 300 dpi
    crop = bleed * PT_PER_MM
    sheets: list[TtsSheet] = []
    group_pages: dict[str, int] = {}
    group_cards: dict[str, str] = {}
    for cid, (i, group) in backs.items():
        if group is not None:
            group_pages.setdefault(group, i)
            group_cards.setdefault(group, cid)

    def cached(cards: Sequence[tuple[str, str]], *how: Any) -> tuple[str | None, bytes | None]:
        if cache is None:
            return None, None
        key = cache.image(cards, *how)
        return key, cache.store.get(key)

    def keep(key: str | None, data: bytes) -> bytes:
        if key is not None:
            cache.store.put(key, data)
            cache.made["TTS image"] = cache.made.get("TTS image", 0) + 1
        return data

    pdf = pdfium.PdfDocument(shop_pdf)
    try:
        card_px = tts_grid(1, card_size, max_card_w)[2:]
        chunks = [(deck, number, cards[start:start + per_sheet])
                  for deck, cards in decks.items()
                  for number, start in enumerate(range(0, len(cards), per_sheet), start=1)]
        for deck, number, chunk in chunks:
            stem = f"{game_id}-{number}" if len(decks) == 1 else f"{game_id}-{safe_name(deck)}-{number}"
            cols, rows, cw, ch = tts_grid(len(chunk), card_size, max_card_w)
            scale = cw / (card_size[0] * PT_PER_MM)
            groups = {backs[cid][1] for _, cid in chunk}
            unique = None in groups or len(groups) > 1
            face_name = f"{stem}.png"
            how = (cols, rows, cw, ch, crop)
            key, data = cached([(cid, "front") for _, cid in chunk], "tts", *how)
            if data is None:
                # One sheet image at a time keeps the peak memory to one 4096 px sheet. Cards are not
                # cached one by one: a tile renders in ~2.4 ms and decodes from a cache entry in ~1.6,
                # and keeping entries cost ~1.5 ms a tile on every cold build (a watch rebuild after
                # one ohanatsumi card measured 0.39 x cold with them, 0.40 without); whole sheets are.
                sheet = _Sheet((cols * cw, rows * ch), "a TTS deck sheet")
                for slot, (page_index, cid) in enumerate(chunk):
                    r, c = divmod(slot, cols)
                    sheet.place(pdf[page_index], scale, (cw, ch), crop, (c * cw, r * ch))
                    if progress:
                        progress(1)
                data = keep(key, _encode_png(sheet.pixels, None))
                del sheet
            elif progress:
                progress(len(chunk))
            yield face_name, data
            back_key, back_data = cached([(cid, "back") for _, cid in chunk], "tts-backs", *how) if unique else (None, None)
            if back_data is not None:
                yield f"{stem}-backs.png", back_data
            elif unique:
                sheet = _Sheet((cols * cw, rows * ch), "a TTS back sheet")
                shared_tiles: dict[str, Any] = {}
                for slot, (_, cid) in enumerate(chunk):
                    r, c = divmod(slot, cols)
                    back_page, group = backs[cid]
                    if group is None:
                        sheet.place(pdf[back_page], scale, (cw, ch), crop, (c * cw, r * ch))
                        continue
                    if group not in shared_tiles:
                        shared_tiles[group] = _Sheet.tile_pixels(pdf[back_page], scale, (cw, ch), crop)
                    sheet.put(shared_tiles[group], (c * cw, r * ch))
                back_name = f"{stem}-backs.png"
                data = keep(back_key, _encode_png(sheet.pixels, None))
                del sheet
                yield back_name, data
            if unique:
                back_name = f"{stem}-backs.png"
            else:
                back_name = shared_back_name(next(iter(groups)), f"{game_id}-")
            sheets.append(TtsSheet(deck, face_name, back_name, unique, cols, rows, (cw, ch), tuple(cid for _, cid in chunk)))
        for group, page_index in group_pages.items():
            cw, ch = card_px
            scale = cw / (card_size[0] * PT_PER_MM)
            key, data = cached([(group_cards[group], "back")], "tts-back", cw, ch, crop)
            if data is None:
                data = keep(key, _encode_png(_render(pdf[page_index], scale, (cw, ch), crop), None))
            yield shared_back_name(group, f"{game_id}-"), data
    finally:
        pdf.close()
    manifest = {
        "game": game_id,
        "how": "Tabletop Simulator: Objects > Components > Custom > Deck. Face = face, Back = back, "
               "Unique backs = unique_back, Width = width, Height = height, Number = number, Back is hidden: on.",
        "sheets": [
            {
                "deck": s.deck,
                "face": s.face,
                "back": s.back,
                "unique_back": s.unique_back,
                "width": s.cols,
                "height": s.rows,
                "number": len(s.cards),
                "card_px": list(s.card_px),
                "cards": list(s.cards),
            }
            for s in sheets
        ],
    }
    yield f"{game_id}-tts.json", (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    saved = tts_saved_object(game_id, sheets, names or {}, url or (lambda name: name), title or game_id, deck_names or {})
    yield f"{game_id}.json", (json.dumps(saved, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _tts_transform(x: float = 0.0) -> dict:
    return {"posX": x, "posY": 1.0, "posZ": 0.0, "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0,
            "scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0}


def tts_saved_object(game_id: str, sheets: Sequence[TtsSheet], names: Mapping[str, str], url: Callable[[str], str],
                     title: str, deck_names: Mapping[str, str] | None = None) -> dict:
    """A Tabletop Simulator Saved Object: one `DeckCustom` per physical deck (a lone card is a
    `CardCustom`), face down side by side, with one `ContainedObjects` entry per physical card.

    Sheet k (1-based over the file) is `CustomDeck` key k; the card in its slot i has CardID
    k * 100 + i (TTS's rule), listed in `DeckIDs`.  Every card entry carries its own
    `CustomDeck` entry, as TTS writes them, so a card taken out of the deck keeps its images.
    Import: copy the file into TTS's "Saves/Saved Objects" folder, then Objects > Saved Objects.
    """
    custom: dict[str, dict] = {}
    decks: dict[str, list[tuple[int, str]]] = {}
    for key, sheet in enumerate(sheets, start=1):
        custom[str(key)] = {
            "FaceURL": url(sheet.face),
            "BackURL": url(sheet.back),
            "NumWidth": sheet.cols,
            "NumHeight": sheet.rows,
            "BackIsHidden": True,
            "UniqueBack": sheet.unique_back,
            "Type": 0,
        }
        for slot, card_id in enumerate(sheet.cards):
            decks.setdefault(sheet.deck, []).append((key * 100 + slot, card_id))
    states = []
    for position, (deck, cards) in enumerate(decks.items()):
        contained = []
        for card_id_num, card_id in cards:
            key = str(card_id_num // 100)
            contained.append({
                "Name": "CardCustom",
                "Transform": _tts_transform(),
                "Nickname": names.get(card_id, card_id),
                "Description": card_id,
                "CardID": card_id_num,
                "CustomDeck": {key: custom[key]},
                "SidewaysCard": False,
                "HideWhenFaceDown": True,
            })
        keys = sorted({str(n // 100) for n, _ in cards}, key=int)
        # a deck is named in words (`deck_names`: "Quest cards"), never by its back's id
        label = title if len(decks) == 1 else f"{title} ({(deck_names or {}).get(deck, deck)})"
        if len(contained) == 1:  # TTS has no deck of one card
            state = dict(contained[0], Transform=_tts_transform(position * 3.0))
        else:
            state = {
                "Name": "DeckCustom",
                "Transform": _tts_transform(position * 3.0),
                "Nickname": label,
                "Description": f"{len(cards)} cards",
                "HideWhenFaceDown": True,
                "SidewaysCard": False,
                "DeckIDs": [n for n, _ in cards],
                "CustomDeck": {k: custom[k] for k in keys},
                "ContainedObjects": contained,
            }
        states.append(state)
    return {"SaveName": "", "GameMode": "", "Date": "", "Table": "", "Sky": "", "Note": "", "Rules": "",
            "XmlUI": "", "LuaScript": "", "LuaScriptState": "", "ObjectStates": states, "TabStates": {},
            "VersionNumber": ""}
