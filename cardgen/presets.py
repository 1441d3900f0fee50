"""Print targets as data: each service's published numbers, in one table.

`cardgen build --preset X` takes card size, bleed, PNG pixel size, safe zone, colour space and
file naming from here; `cardgen check --preset X` checks every text box and frame of every
card against the preset's safe zone.  Nothing else in cardgen knows a service's numbers.

Sources (the services' own templates and upload guides):

- MakePlayingCards and PrinterStudio (one company, one template): poker 822 x 1122 px at
  300 dpi, i.e. the 750 x 1050 px card with 36 px (3.048 mm) bleed on every side; the safe
  area is a further 36 px inside the cut line.
- The Game Crafter: poker 825 x 1125 px at 300 dpi (1/8 in bleed), safe zone 1/8 in
  (3.175 mm) inside the trim.
- DriveThruCards: one card a page, 1/8 in bleed, PDF/X-1a in CMYK with an output intent,
  safe zone 1/8 in inside the trim (OneBookShelf's "Common Card Prep Issues & Solutions":
  "Do not place any text closer than 1/8" (.125") from any finished edge", bleed 1/8 in on
  all four sides built into the PDF, "PDF must be PDF/X-1a:2003").  Page order: each card's
  back page comes before its front (`back_first`), as issue 27 reports DTC's card file guide
  (help.drivethrupartners.com, the article on setting up card files) asks.  That article's
  own text could not be found in the sources searched on 2026-12-03 (the search corpora hold
  the OneBookShelf prep-issues page above, which says nothing on page order), so the order
  is not quoted here: check it against the live guide before relying on it.
- home-a4 / home-letter: the home-print sheets on that paper (see render/sheet.py) and a
  3 mm safe zone (DESIGN.md "Print conventions").
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import CardgenError

PX_MM = 25.4 / 300  # one pixel at 300 dpi, in mm


@dataclass(frozen=True)
class Preset:
    id: str
    service: str
    card_size: str  # a size name (cardgen.sizes)
    bleed_mm: float | None  # None: the home sheets' own (automatic) bleed, render/sheet.py
    safe_mm: float  # text and frames stay this far inside the trim
    png_px: tuple[int, int] | None = None  # the face PNG size the service asks for (None: computed)
    dpi: int = 300
    cmyk: bool = False  # the print-shop PDF in CMYK, PDF/X-1a with an output intent
    paper: str | None = None  # home presets: the paper of every document (part A's --paper)
    outputs: tuple[str, ...] = ()  # the outputs `build` writes by default with this preset (() = all)
    shop_name: str = "{game}-print-shop.pdf"  # the one-card-a-page PDF
    png_dir: str = "png"  # folder of the face PNGs under OUT/<game>/
    png_name: str = "{id}-{side}.png"  # {n}: 1-based card number, {id}: card id, {side}: front/back
    shared_back_name: str = "back.png"  # the common back, written once
    back_first: bool = False  # the one-card-a-page PDF puts each card's back page before its front
    mpc_order: bool = False  # write cards.xml, the MPC Autofill desktop client's order file (handoff.py)
    deck_folders: bool = False  # one PNG folder per back, each with its back.png (a deck takes one back)
    note: str = ""


PRESETS: dict[str, Preset] = {
    p.id: p
    for p in (
        Preset("home-a4", "home printer, A4", "poker", None, 3.0, paper="a4",
               outputs=("sheets", "rules", "standard", "playtest"),
               note="home-print sheets on A4; every document on A4"),
        Preset("home-letter", "home printer, US Letter", "poker", None, 3.0, paper="letter",
               outputs=("sheets", "rules", "standard", "playtest"),
               note="home-print sheets on Letter; every document on Letter"),
        Preset("mpc", "MakePlayingCards", "poker", 36 * PX_MM, 36 * PX_MM, png_px=(822, 1122),
               outputs=("png",), png_dir="png-mpc", png_name="{n:03d}-{id}-{side}.png", shared_back_name="000-back.png", mpc_order=True,
               note="upload the PNGs in name order: fronts and their backs pair by number"),
        Preset("printerstudio", "PrinterStudio", "poker", 36 * PX_MM, 36 * PX_MM, png_px=(822, 1122),
               outputs=("png",), png_dir="png-printerstudio", png_name="{n:03d}-{id}-{side}.png",
               shared_back_name="000-back.png", mpc_order=True, note="same template as MakePlayingCards"),
        Preset("tgc", "The Game Crafter", "poker", 3.175, 3.175, png_px=(825, 1125),
               outputs=("png",), png_dir="png-tgc", png_name="{id}-{side}.png", shared_back_name="back.png",
               deck_folders=True, note="one folder per deck (per back): its fronts and its back.png"),
        Preset("dtc", "DriveThruCards", "poker", 3.175, 3.175, cmyk=True,
               outputs=("shop",), shop_name="{game}-dtc-cmyk.pdf", back_first=True,
               note="one card a page, PDF/X-1a:2003, CMYK (FOGRA39 output intent); text below 12 pt and rules "
                    "below 1 pt in K only, coloured ones as a grey as light (--keep-small-colour keeps their colours)"),
    )
}
PRESET_NAMES = tuple(PRESETS)


def get_preset(name: str | None) -> Preset | None:
    """The preset called `name` (None for None); CardgenError naming the choices otherwise."""
    if name is None:
        return None
    key = str(name).strip().lower()
    if key not in PRESETS:
        raise CardgenError(f"--preset {name!r} is unknown; use one of {', '.join(PRESET_NAMES)}")
    return PRESETS[key]


def size_refusal(preset: Preset, game) -> str | None:
    """Why `preset`'s service takes no cards of this game's (or deck view's) size; None when it does.

    Only the sizes in the table above are known; a service's other products (mini, tarot) are
    refused rather than guessed: their pixel sizes and safe zones are not in the sources quoted."""
    from .sizes import size_mm

    if preset.paper is not None or size_mm(game.card_size) == size_mm(preset.card_size):
        return None  # home sheets print any size
    w, h = size_mm(game.card_size)
    what = f"deck '{game.deck.id}'" if game.deck is not None else game.id
    return (f"{what} ({game.card_size}, {w:g} x {h:g} mm) skipped for --preset {preset.id}: cardgen knows "
            f"{preset.service}'s {preset.card_size} cards only; build it without --preset (print-shop PDF and "
            f"PNGs with 3.175 mm bleed) and check the service's own template for that size")


def png_file_name(preset: Preset | None, number: int, card_id: str, side: str) -> str:
    """The face PNG's file name under `preset`'s naming (the default: `<id>-<side>.png`)."""
    pattern = preset.png_name if preset else "{id}-{side}.png"
    return pattern.format(n=number, id=card_id, side=side)


def safe_zone_problems(game, preset: Preset) -> list[tuple[str, str, str, str]]:
    """(card id, side, box name, what is wrong) for every box of every card that breaks `preset`'s safe zone.

    Text boxes and icons (but decorative ones) must lie `safe_mm` inside the trim.  A frame
    or panel (a rect or line) must either reach the trim (a rect with `bleed: true`, so a
    miscut leaves no white edge) or keep `safe_mm` from it: one in between, like a thin frame
    1.2 mm inside the trim, shows uneven after a commercial cut (±1 mm).  Boxes are measured
    on the preset's card size, each edge against the trim edge it faces.
    """
    from .render.cards.card import _context
    from .render.cards.layout import get_layout, rotated_extent
    from .sizes import size_mm

    layout = get_layout(game)
    W, H = size_mm(preset.card_size)
    sx, sy = W / layout.width, H / layout.height
    safe = preset.safe_mm
    eps = 1e-3
    out: list[tuple[str, str, str, str]] = []
    seen: set[tuple[str, str, str]] = set()
    for card in game.cards:
        for side in ("front", "back"):
            boxes, _own = layout.boxes(card, side)
            for lang in game.languages:
                ctx = _context(game, layout, card, lang)
                for box in boxes:
                    key = (card.id, side, box.name)
                    if key in seen or box.kind not in ("text", "icon", "rect", "line") or not box.shows(ctx):
                        continue
                    x0, y0, x1, y1 = rotated_extent(box)
                    x0, x1, y0, y1 = x0 * sx, x1 * sx, y0 * sy, y1 * sy
                    gaps = {"left": x0, "top": y0, "right": W - x1, "bottom": H - y1}
                    problem = None
                    if box.kind in ("text", "icon"):
                        if box.kind == "icon" and box.value("decor", ctx, lang):
                            continue
                        if box.kind == "text" and not str(box.value("text", ctx, lang) or "").strip():
                            continue
                        near = {k: g for k, g in gaps.items() if g < safe - eps}
                        if near:
                            problem = (f"{box.kind} box is {_edges(near)} inside the trim; {preset.service} needs "
                                       f"{safe:.3g} mm (safe zone)")
                    else:
                        if box.kind == "rect" and box.value("fill", ctx, lang) in (None, "none") and box.value("stroke", ctx, lang) in (None, "none"):
                            continue
                        bleeds = box.kind == "rect" and bool(box.value("bleed", ctx, lang))
                        near = {k: g for k, g in gaps.items() if (eps < g < safe - eps) or (g <= eps and not bleeds)}
                        if near:
                            what = "frame" if box.kind == "rect" else "line"
                            problem = (f"{what} is {_edges(near)} inside the trim and will show uneven after cutting; "
                                       f"move it {safe:.3g} mm inside the trim ({preset.service}'s safe zone)"
                                       + (" or make it reach the trim with bleed: true" if box.kind == "rect" else ""))
                    if problem:
                        seen.add(key)
                        out.append((card.id, side, box.name, problem))
    return out


def _edges(near: dict[str, float]) -> str:
    return ", ".join(f"{g:.3g} mm ({k})" for k, g in near.items())


def check_preset(game, preset_name: str) -> list:
    """`cardgen check --preset X`: one failing CheckResult per card box outside X's safe zone
    (naming the card, side and box, at the box's layout line), or one passing result."""
    from .model import CheckResult
    from .render.cards.layout import get_layout

    preset = get_preset(preset_name)
    if game.decks and game.deck is None:  # each declared deck at its own size
        results = []
        for view in game.deck_views():
            why = size_refusal(preset, view)
            results += [CheckResult(f"preset:{preset.id}", True, why)] if why else check_preset(view, preset_name)
        return results
    layout = get_layout(game)
    where: dict[tuple[str, str, str], object] = {}
    for card in game.cards:
        for side in ("front", "back"):
            for box in layout.boxes(card, side)[0]:
                where.setdefault((card.id, side, box.name), box.location)
    problems = safe_zone_problems(game, preset)
    if not problems:
        return [CheckResult(f"preset:{preset.id}", True,
                            f"every text box and frame keeps {preset.safe_mm:.3g} mm inside the trim ({preset.service})")]
    return [CheckResult(f"preset:{preset.id}", False, f"card {cid} ({side}), box '{box}': {what}", where.get((cid, side, box)))
            for cid, side, box, what in problems]


def unsafe_error(game, preset_name: str):
    """The CardgenError `build --preset X` stops with when a box breaks X's safe zone (one problem
    per box, at its layout line, as an overflow is reported), or None when every box keeps it."""
    from .errors import CardgenError, Problem

    failed = [r for r in check_preset(game, preset_name) if not r.ok]
    if not failed:
        return None
    preset = get_preset(preset_name)
    problems = [Problem(r.location, r.message) for r in failed]
    problems.append(Problem(None, f"{game.id}: {len(failed)} box(es) outside {preset.service}'s safe zone; move them "
                                  f"{preset.safe_mm:.3g} mm inside the trim, or pass --allow-unsafe to build anyway"))
    return CardgenError(problems)
