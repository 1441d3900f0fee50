"""What a print service needs besides the images: which file is which card, how many copies of
it, and which back goes behind it, so an order is made from the output folder as it is.

- `manifest.csv` (every preset): one row per image the service gets (file, card, copies, back
  file); for the PDF presets one row per card, naming its pages (`file.pdf#page=N`).
- `cards.xml` (mpc, printerstudio): the order file the MPC Autofill desktop client reads
  (chilli-axe/mpc-autofill, desktop-tool/src/order.py and constants.py): `<order>` with
  `<details>` (`<quantity>` cards, `<bracket>` the price bracket it falls in, `<stock>` one of
  the client's card stocks, `<foil>`), `<fronts>` and `<backs>` of `<card>` (`<id>`, `<slots>`
  as comma-separated 0-based slot numbers, `<name>`), and `<cardback>`, the back of every slot
  `<backs>` leaves empty.  An `<id>` that names an existing file is used as that local file, so
  the ids here are the PNGs' names: start the client in the PNG folder.
- The Game Crafter takes one back per deck: its PNGs go to one folder per back (`presets.py`
  `deck_folders`), each with its `back.png`; cards with their own back share a folder in which
  each front has its `-back.png`, which the manifest names.

Quantities: with a preset, copies whose front images (and backs) come out byte-identical are
one image with a quantity; a layout that draws something per copy (its id, its number, its own
text) makes different images, and those stay separate.  What counts is what the face draws.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections import Counter
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Iterable, Mapping, Sequence
from xml.etree.ElementTree import Element, SubElement, indent, tostring

# MPC's price brackets: an order of n cards is billed at the first bracket >= n (the desktop
# client's PROJECT_MAX_SIZE is the last; a bigger order is split by the client)
MPC_BRACKETS = (18, 36, 55, 72, 90, 108, 126, 144, 162, 180, 198, 216, 234, 396, 504, 612)
MPC_STOCK = "(S30) Standard Smooth"  # the client's default stock (constants.Cardstocks.S30)
OWN_BACKS_DECK = "own-backs"


def mpc_bracket(quantity: int) -> int:
    return next((b for b in MPC_BRACKETS if b >= quantity), MPC_BRACKETS[-1])


def deck_folder(group: str | None) -> str:
    """The TGC deck folder of a card: its shared back's group, or the folder of cards with their own back."""
    return OWN_BACKS_DECK if group is None else group


@dataclass
class Image:
    """One front image a service gets, and the cards printed from it."""

    file: str  # relative to the folder the service gets (posix)
    back: str  # the back behind it, relative likewise
    cards: list[str] = field(default_factory=list)  # card ids, in card order


class FaceFiles:
    """Decides, as the face PNGs arrive, which to write: a front identical to an earlier card's
    (same bytes, same shared back) is not written again but counted on that card's image."""

    def __init__(self, labels: Sequence[tuple[int, str, str, str | None]], renamed: Mapping[str, str]):
        from .render.cards.raster import safe_name, shared_back_name

        self._renamed = dict(renamed)
        self._fronts: dict[str, tuple[str, str | None]] = {}  # raster front name -> (card id, shared back group)
        self._backs: dict[str, str] = {}  # card id -> raster name of its back
        for _, card_id, side, group in labels:
            if side == "front":
                continue
            self._fronts[f"{safe_name(card_id)}-front.png"] = (card_id, group)
            self._backs[card_id] = shared_back_name(group) if group is not None else f"{safe_name(card_id)}-back.png"
        self._seen: dict[tuple[str, str], Image] = {}
        self.images: list[Image] = []
        self.aliases: dict[str, str] = {}  # raster name of an unwritten copy -> the file it shares

    def name(self, raster_name: str) -> str:
        return self.aliases.get(raster_name) or self._renamed.get(raster_name, raster_name)

    def keep(self, raster_name: str, data: bytes) -> bool:
        """Whether to write this PNG (False: a copy of an earlier image, now counted there)."""
        if raster_name not in self._fronts:
            return True
        card_id, group = self._fronts[raster_name]
        back = self.name(self._backs[card_id])
        if group is not None:  # a card with its own back is always its own image
            key = (hashlib.sha256(data).hexdigest(), group)
            if key in self._seen:
                image = self._seen[key]
                image.cards.append(card_id)
                self.aliases[raster_name] = image.file
                return False
        image = Image(self.name(raster_name), back, [card_id])
        if group is not None:
            self._seen[key] = image
        self.images.append(image)
        return True


def manifest_csv(rows: Iterable[tuple[str, str, int, str]]) -> bytes:
    """manifest.csv: file, card, copies, back file (UTF-8 with a BOM, so spreadsheet programs read the Japanese)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(("file", "card", "copies", "back file"))
    writer.writerows(rows)
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


def image_rows(images: Sequence[Image]) -> list[tuple[str, str, int, str]]:
    return [(image.file, " ".join(image.cards), len(image.cards), image.back) for image in images]


def page_rows(pdf_name: str, labels: Sequence[tuple[int, str, str, str | None]]) -> list[tuple[str, str, int, str]]:
    """A one-card-a-page PDF's manifest: each card's front and back page (`name#page=N`, 1-based)."""
    pages: dict[str, dict[str, int]] = {}
    for page, card_id, side, _group in labels:
        pages.setdefault(card_id, {})[side] = page + 1
    return [(f"{pdf_name}#page={p['front']}", card_id, 1, f"{pdf_name}#page={p['back']}") for card_id, p in pages.items()]


def mpc_order(images: Sequence[Image], card_order: Sequence[str]) -> bytes:
    """cards.xml for the MPC Autofill desktop client (see the module doc): one slot per card, in card order."""
    slot = {card_id: n for n, card_id in enumerate(card_order)}
    quantity = len(card_order)
    order = Element("order")
    details = SubElement(order, "details")
    SubElement(details, "quantity").text = str(quantity)
    SubElement(details, "bracket").text = str(mpc_bracket(quantity))
    SubElement(details, "stock").text = MPC_STOCK
    SubElement(details, "foil").text = "false"
    fronts = SubElement(order, "fronts")
    for image in images:
        _card(fronts, image.file, [slot[c] for c in image.cards])
    # the commonest back is the order's cardback; every other back is listed with its slots
    counts = Counter(image.back for image in images for _ in image.cards)
    common = counts.most_common(1)[0][0] if counts else ""
    others: dict[str, list[int]] = {}
    for image in images:
        if image.back != common:
            others.setdefault(image.back, []).extend(slot[c] for c in image.cards)
    backs = SubElement(order, "backs")
    for back, slots in others.items():
        _card(backs, back, slots)
    SubElement(order, "cardback").text = common
    indent(order)
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + tostring(order, encoding="utf-8") + b"\n"


def _card(parent: Element, file: str, slots: list[int]) -> None:
    card = SubElement(parent, "card")
    SubElement(card, "id").text = file
    SubElement(card, "slots").text = ",".join(str(s) for s in sorted(slots))
    SubElement(card, "name").text = PurePosixPath(file).name
