"""Build the print-ready deck files of a game: home-print sheets, the print-shop PDF, PNGs
and Tabletop Simulator sheets.

    output/<game>/<game>-cards-<paper>.pdf      front sheet, back sheet, ... (render/sheet.py)
    output/<game>/<game>-print-shop.pdf         one face per page with bleed (render/printshop.py)
    output/<game>/<game>-calibration-<paper>.pdf  with --calibration (render/sheet.py)
    output/<game>/png/                          300 dpi faces with bleed (render/raster.py)
    output/<game>/tts/                          Tabletop Simulator sheets (render/raster.py)
    output/<game>/<game>-rules-ja.pdf, -en.pdf  rulebooks (render/rulebook.py)
    output/<game>/<game>-standard-deck.pdf      standard-deck reference (render/standard_sheet.py)
    output/<game>/<game>-playtest.pdf           playtest kit (render/playtest.py)

Everything is rendered in memory and checked first; nothing is written when a card's text
overflows (unless allowed) or an option is impossible.  Every file is written atomically
(temporary file, then rename), so a failed or interrupted build leaves earlier outputs whole.
The same inputs give byte-identical PDFs.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from . import sizes
from .errors import CardgenError, Problem
from .files import output_lock, remove_temp_files as _remove_temp_files, write_atomic
from .handoff import FaceFiles
from .langs import code_problem, suffix as lang_suffix
from .model import Game, Location
from .render.print.printshop import SHOP_BLEED_MM, page_labels, printshop_pdf
from .render.print.sheet import (CROP_MARKS, DEFAULT_MARGIN_MM, DUPLEX, FITS, IMPOSITIONS, PAPERS, REAL_BLEED_MM, SheetLayout,
                           calibration_pdf, compute_layout, sheets_pdf)

if TYPE_CHECKING:
    from .model import CheckResult

OUTPUTS = ("sheets", "shop", "png", "tts", "rules", "standard", "playtest", "tuckbox")
MAX_BACK_OFFSET_MM = 10.0


@dataclass(frozen=True)
class BuildOptions:
    """What to build and how.  `None` means "the default" (see each field)."""

    out_dir: Path = Path("output")  # relative to the current directory
    paper: str = "a4"
    card_size: str | None = None  # None: the game's card_size
    bleed_mm: float | None = None  # None: what the paper leaves on home sheets (render/sheet.py), 1/8 in for print shop, PNG
    gutter_mm: float = 0.0
    crop_marks: str = "corners"
    duplex: str = "long"
    back_offset_mm: tuple[float, float] = (0.0, 0.0)
    lang: str | None = None  # None: the game's first language (game.yaml `languages:`)
    calibration: bool = False
    allow_overflow: bool = False
    allow_unsafe: bool = False  # build with a --preset even when boxes break its safe zone
    keep_small_colour: bool = False  # CMYK file: coloured text < 12 pt and rules < 1 pt keep their plates (colour.plate_colour)
    margin_mm: float = DEFAULT_MARGIN_MM  # the printer's unprintable margin on home sheets
    outputs: tuple[str, ...] = OUTPUTS
    corner_index: bool = False  # print each card's standard-card index (mapping.yaml) in a corner
    preset: str | None = None  # a print target from cardgen/presets.py (--preset)
    tts_url: str | None = None  # where the TTS sheets are hosted; None: file:// URIs of OUT/<game>/tts/
    card_thickness_mm: float = 0.30  # per card, for the tuck box's depth
    imposition: str = "duplex"  # home sheets: duplex, gutterfold or simplex
    fit: str = "count"  # home sheets: the most cards a sheet, or the most that keep real bleed (sheet.FITS)
    ink_saver: bool = False  # home sheets: pale fills and pictures, no full-bleed backgrounds
    corner_guides: float | None = None  # home sheets: rounded-corner cut guides of this radius (mm)
    cache: bool = True  # reuse unchanged outputs from OUT/.cache/<game>/ (cardgen/cache.py), and keep new ones there

    @property
    def sheet_bleed(self) -> float | None:
        return self.bleed_mm  # None: the automatic home bleed

    @property
    def shop_bleed(self) -> float:
        if self.bleed_mm is None and self.target is not None and self.target.bleed_mm:
            return self.target.bleed_mm
        return SHOP_BLEED_MM if self.bleed_mm is None else self.bleed_mm

    @property
    def target(self):
        """The Preset named by `preset`, or None."""
        from .presets import get_preset

        return get_preset(self.preset)

    def validate(self) -> None:
        if self.paper not in PAPERS:
            raise CardgenError(f"--paper {self.paper!r} is unknown; use {' or '.join(PAPERS)}")
        if self.crop_marks not in CROP_MARKS:
            raise CardgenError(f"--crop-marks {self.crop_marks!r} is unknown; use {', '.join(CROP_MARKS)}")
        if self.duplex not in DUPLEX:
            raise CardgenError(f"--duplex {self.duplex!r} is unknown; use {', '.join(DUPLEX)}")
        if self.imposition not in IMPOSITIONS:
            raise CardgenError(f"--imposition {self.imposition!r} is unknown; use {', '.join(IMPOSITIONS)}")
        if self.fit not in FITS:
            raise CardgenError(f"--fit {self.fit!r} is unknown; use {' or '.join(FITS)}")
        if self.fit == "bleed" and self.imposition == "gutterfold":
            raise CardgenError("--fit bleed chooses among duplex and simplex sheets (gutterfold already keeps the most bleed "
                               "its fold allows); drop --fit or use --imposition duplex")
        if self.keep_small_colour and not (self.target and self.target.cmyk):
            raise CardgenError("--keep-small-colour is about the CMYK print-shop file: use it with --preset dtc")
        if self.corner_guides is not None and not 0.5 <= self.corner_guides <= 10:
            raise CardgenError(f"--corner-guides {self.corner_guides} is out of range; use 0.5 to 10 mm (3 mm is usual)")
        if self.lang is not None and code_problem(self.lang):
            raise CardgenError(f"--lang: {code_problem(self.lang)}")
        if self.card_size is not None:
            parse_card_size(self.card_size)
        if self.bleed_mm is not None and not 0 <= self.bleed_mm <= 10:
            raise CardgenError(f"--bleed {self.bleed_mm} is out of range; use 0 to 10 mm (3 mm or 3.175 mm is usual)")
        if not 0 <= self.gutter_mm <= 50:
            raise CardgenError(f"--gutter {self.gutter_mm} is out of range; use 0 to 50 mm")
        if not 0 <= self.margin_mm <= 50:
            raise CardgenError(f"printer margin {self.margin_mm} is out of range; use 0 to 50 mm")
        ox, oy = self.back_offset_mm
        if abs(ox) > MAX_BACK_OFFSET_MM or abs(oy) > MAX_BACK_OFFSET_MM:
            raise CardgenError(
                f"--back-offset {ox},{oy} is too large: printers misregister by about 1 mm; "
                f"use values within ±{MAX_BACK_OFFSET_MM:g} mm (print --calibration to measure)"
            )
        unknown = [o for o in self.outputs if o not in OUTPUTS]
        if unknown or not self.outputs:
            raise CardgenError(f"outputs {unknown or '(none)'} unknown; choose from {', '.join(OUTPUTS)}")
        self.target  # an unknown --preset names the choices
        if not 0.05 <= self.card_thickness_mm <= 2.0:
            raise CardgenError(f"--card-thickness {self.card_thickness_mm:g} is out of range; use 0.05 to 2 mm (0.30 is a 300 gsm card)")
        if self.tts_url is not None and not re.match(r"^(https?|file)://\S+$", self.tts_url):
            raise CardgenError(f"--tts-url {self.tts_url!r} is not a URL; give where the tts/ images are hosted, e.g. https://example.org/mygame/tts")
        if self.calibration and self.duplex == "none":
            raise CardgenError("--calibration measures double-sided printing; use it with --duplex long or --duplex short")


def parse_back_offset(text: str) -> tuple[float, float]:
    """Parse "X,Y" in mm (e.g. "0.5,-1"); raise CardgenError saying the expected form."""
    parts = str(text).replace(" ", "").split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        x, y = float(parts[0]), float(parts[1])
    except ValueError:
        raise CardgenError(f"--back-offset {text!r} is not X,Y in mm; write two numbers with a comma, e.g. --back-offset 0.5,-1") from None
    if not (abs(x) < float("inf") and abs(y) < float("inf")):
        raise CardgenError(f"--back-offset {text!r} must be finite numbers, e.g. 0.5,-1")
    return x, y


def parse_card_size(text: str) -> str:
    """Accept a named size or WxH in mm; return it normalised ("63x88")."""
    try:
        return sizes.normalise(text)
    except sizes.CardSizeError as exc:
        raise CardgenError(f"--card-size {str(exc)[len('card size '):]}") from None


def make_options(
    out: str | Path = "output",
    paper: str = "a4",
    card_size: str | None = None,
    bleed: float | None = None,
    gutter: float = 0.0,
    crop_marks: str = "corners",
    duplex: str = "long",
    back_offset: str | tuple[float, float] = (0.0, 0.0),
    lang: str | None = None,
    calibration: bool = False,
    allow_overflow: bool = False,
    margin: float = DEFAULT_MARGIN_MM,
    outputs: Iterable[str] = (),
    corner_index: bool = False,
    imposition: str = "duplex",
    ink_saver: bool = False,
    corner_guides: float | None = None,
    preset: str | None = None,
    tts_url: str | None = None,
    card_thickness: float = 0.30,
    allow_unsafe: bool = False,
    fit: str = "count",
) -> BuildOptions:
    """BuildOptions from command-line style values (strings parsed, everything validated).

    A `preset` (cardgen/presets.py) fills in what was not given: card size, paper and the
    outputs (its bleed applies to the print-shop file and PNGs); explicit values win.
    """
    offset = parse_back_offset(back_offset) if isinstance(back_offset, str) else tuple(back_offset)
    options = BuildOptions(
        out_dir=Path(out),
        paper=paper.lower(),
        card_size=parse_card_size(card_size) if card_size else None,
        bleed_mm=bleed,
        gutter_mm=gutter,
        crop_marks=crop_marks,
        duplex=duplex,
        back_offset_mm=(float(offset[0]), float(offset[1])),
        lang=lang,
        calibration=calibration,
        allow_overflow=allow_overflow,
        allow_unsafe=allow_unsafe,
        fit=fit,
        margin_mm=margin,
        outputs=tuple(o for o in OUTPUTS if o in set(outputs)) or OUTPUTS,
        corner_index=corner_index,
        imposition=imposition,
        ink_saver=ink_saver,
        corner_guides=corner_guides,
    )
    options.validate()
    if preset is not None or tts_url is not None or card_thickness != 0.30:
        options = with_target(options, preset, tts_url, card_thickness, outputs_given=bool(tuple(outputs)))
    return options


def with_target(options: BuildOptions, preset: str | None, tts_url: str | None = None, card_thickness: float = 0.30,
                outputs_given: bool = True) -> BuildOptions:
    """`options` for a print target (cardgen/presets.py): its card size unless one was given, its
    paper, and its outputs unless some were chosen; plus the TTS URL and card thickness."""
    from dataclasses import replace as _replace

    from .presets import get_preset

    target = get_preset(preset)
    changes: dict = {"preset": target.id if target else None, "tts_url": tts_url, "card_thickness_mm": float(card_thickness)}
    if target is not None:
        changes["card_size"] = options.card_size or target.card_size
        if target.paper:
            changes["paper"] = target.paper
        if not outputs_given and target.outputs:
            changes["outputs"] = target.outputs
    options = _replace(options, **changes)
    options.validate()
    return options


@dataclass
class BuildResult:
    """What one game's build wrote."""

    game_id: str
    out_dir: Path
    files: list[Path] = field(default_factory=list)
    layout: SheetLayout | None = None
    sheets: int = 0
    cards: int = 0
    overflows: list = field(default_factory=list)  # reported, when --allow-overflow let them pass
    warnings: dict[str, list[str]] = field(default_factory=dict)  # card id -> what its faces reported (preview.html)
    drawn: list[str] = field(default_factory=list)  # outputs drawn afresh (the others came from the cache)
    preview: list = field(default_factory=list)  # preview.html's cards (preview.CardImages), when PNGs were written
    skipped: list[str] = field(default_factory=list)  # optional outputs not written, each with why (skipped_outputs)
    sheet_warning: str | None = None  # the home sheets' bleed is thin (thin_bleed_warning)
    k_pulled: dict[str, int] = field(default_factory=dict)  # preset id -> coloured small texts and thin rules its CMYK file prints in K only
    removed: list[str] = field(default_factory=list)  # files of an earlier build this one no longer makes (remove_unmade)
    preview_page: str = "preview.html"  # preview-<lang>.html for a game's other languages
    decks: list[BuildResult] = field(default_factory=list)  # a game's declared decks, each built on its own

    def k_only_warnings(self) -> list[str]:
        """What to say of the coloured small texts and thin rules the CMYK file prints in K only."""
        return [f"{preset}: {count} small coloured texts and rules print in K only (grey) as print services ask; "
                "--keep-small-colour keeps their colours" for preset, count in self.k_pulled.items()]

    def summary(self) -> str:
        pdfs = [f for f in self.files if f.suffix == ".pdf"]
        png_dirs = [next((d for d in f.parents if d.name.startswith("png")), None) for f in self.files if f.suffix == ".png"]
        pngs = [d for d in png_dirs if d is not None]  # one entry per face PNG: its png*/ folder (TGC's deck folders are inside)
        tts = [f for f in self.files if f.parent.name.startswith("tts")]
        lines = [f"{self.game_id}: {self.cards} cards"]
        if self.layout is not None:
            lines.append(f"  sheets: {self.sheets} x ({self.layout.describe()})")
            edges = self.layout.bleed_edges()
            lines.append("  printed bleed per cut edge: " + ", ".join(f"{k} {v:.2f} mm" for k, v in edges.items()))
            if self.sheet_warning:
                lines.append(f"  warning: {self.sheet_warning}")
        for deck in self.decks:
            lines.append(f"  deck {deck.game_id}: {deck.cards} cards" + (f", sheets: {deck.sheets} x ({deck.layout.describe()})" if deck.layout else ""))
            if deck.sheet_warning:
                lines.append(f"  warning: {deck.sheet_warning}")
        lines += [f"  {path}" for path in pdfs]
        lines += [f"  {path} (which page or file is which card, its copies and its back)"
                  for path in self.files if path.suffix == ".csv" and path.parent == self.out_dir]
        for folder in dict.fromkeys(pngs):  # one folder, or one per declared deck
            lines.append(f"  {folder}/ ({pngs.count(folder)} PNG files)")
        if tts:
            lines.append(f"  {tts[0].parent}/ ({len(tts)} files)")
        if self.preview:
            lines.append(f"  {self.out_dir / self.preview_page} (every face, with what each card reported)")
        if self.overflows:
            lines.append(f"  warning: text overflows on {len(self.overflows)} face(s), allowed by --allow-overflow")
        lines += [f"  warning: {text}" for text in self.k_only_warnings()]
        lines += [f"  note: {why}" for why in self.skipped]
        lines += [f"  note: {what}" for what in self.removed]
        return "\n".join(lines)


def folder_notes(game: Game) -> list[str]:
    """What the folder changes about the game: a copy under another folder name builds under that name."""
    if game.declared_id is None:
        return []
    return [f"outputs are named '{game.id}' after the folder; game.yaml's id is '{game.declared_id}' "
            f"(a copy to try a variant builds beside the original)"]


def skipped_outputs(game: Game, outputs: Iterable[str] = OUTPUTS) -> list[str]:
    """The optional outputs the game's folder gives no spec for, each with what is missing.

    `build` prints these and `check` lists them, so a missing file is never silently an absent PDF.
    """
    from .registry import game_engine
    from .io.paths import game_template
    from .mapping import has_mapping
    from .render.documents.playtest import has_playtest

    wanted = set(outputs)
    notes = []
    if "sheets" in wanted and game_template(game, "layout.yaml") is None:
        notes.append("cards use the generic layout: no templates/layout.yaml")
    if "playtest" in wanted and not has_playtest(game):
        notes.append("playtest kit skipped: no templates/playtest.yaml")
    if "standard" in wanted and not has_mapping(game):
        notes.append("standard-deck sheet skipped: no mapping.yaml")
    if game_engine(game) is None:
        notes.append("balance report, simulate and replay unavailable: game.yaml names no engine")
    elif game_template(game, "report.yaml") is None:
        notes.append("balance report (cardgen report) unavailable: no templates/report.yaml")
    return notes


def resolve_card_size(game: Game, options: BuildOptions) -> tuple[float, float]:
    from .render.cards.card import card_size_mm

    spec = options.card_size
    try:
        return tuple(card_size_mm(game, spec))  # type: ignore[return-value]
    except (KeyError, ValueError) as exc:
        raise CardgenError(f"card size {spec or game.card_size!r} is unknown ({exc}); use {sizes.GRAMMAR}") from None


def plan_layout(game: Game, options: BuildOptions) -> SheetLayout:
    w, h = resolve_card_size(game, options)
    return compute_layout(options.paper, w, h, options.sheet_bleed, options.gutter_mm, options.margin_mm, options.crop_marks,
                          options.imposition, options.fit)


def thin_bleed_warning(game: Game, options: BuildOptions, layout: SheetLayout) -> str | None:
    """What to say when the home sheets keep less than real bleed on a cut edge, and the layout
    `--fit bleed` would give instead (None when the bleed is real, or --fit bleed gives no more)."""
    if layout.bleed >= REAL_BLEED_MM - 1e-9 or options.sheet_bleed is not None:
        return None
    edges = sorted({k for k, v in layout.bleed_edges().items() if v < REAL_BLEED_MM - 1e-9})
    text = (f"the home sheets keep only {layout.bleed:.2f} mm bleed on the {'/'.join(edges)} cut edges "
            f"(less than {REAL_BLEED_MM:g} mm shows white after a slightly-off cut)")
    if options.fit == "count":
        other = plan_layout(game, replace(options, fit="bleed"))
        if other.bleed > layout.bleed + 1e-9:
            return text + f"; --fit bleed gives {other.per_sheet} cards a sheet with {other.bleed:.2f} mm or more ({other.describe()})"
    return text


def language_problem(game: Game, lang: str | None) -> str | None:
    """Why `--lang lang` cannot build `game` (a language it is not written in), or None."""
    if lang is None or lang in game.languages:
        return None
    return (f"{game.id} is written in {', '.join(game.languages)} (languages in game.yaml), not {lang}; "
            f"use --lang {' or --lang '.join(game.languages)}")


def for_game(game: Game, options: BuildOptions) -> BuildOptions:
    """`options` with the language made the game's: its first when none was given."""
    return options if options.lang is not None else replace(options, lang=game.languages[0])


def named(name: str, game: Game, options: BuildOptions) -> str:
    """A language-dependent output's file or folder name: today's for the game's first language,
    with `-<lang>` before the extension for the others (`mygame-cards-a4-en.pdf`, `png-en`), so
    building another language never overwrites the first one's files."""
    tag = lang_suffix(options.lang or game.languages[0], game.languages)
    if not tag:
        return name
    stem, dot, ext = name.rpartition(".")
    return f"{stem}{tag}.{ext}" if dot and "/" not in ext else f"{name}{tag}"


def check_build(game: Game, options: BuildOptions) -> None:
    """Raise CardgenError now for options that cannot work for `game` (cheap; no drawing)."""
    options.validate()
    if language_problem(game, options.lang):
        raise CardgenError(language_problem(game, options.lang))
    if game.decks and game.deck is None:  # each deck at its own size
        for part, part_options in render_parts(game, options):
            if part is not game:
                check_build(part, part_options)
        return
    card_size = resolve_card_size(game, options)
    target = options.target
    if target is not None and target.png_px and "png" in options.outputs:
        from .render.cards.raster import png_size

        got = png_size(card_size, options.shop_bleed)
        if got != target.png_px:
            raise CardgenError(f"--preset {target.id}: faces would be {got[0]} x {got[1]} px, but {target.service} "
                               f"takes {target.png_px[0]} x {target.png_px[1]} px; drop --card-size and --bleed")
    if "sheets" in options.outputs or options.calibration:
        plan_layout(game, options)


def work_units(game: Game, options: BuildOptions) -> int:
    """How many progress steps `build_game` reports: one per card for each output."""
    outputs = set(options.outputs)
    # sheets; the print-shop PDF (also drawn when only PNG or TTS is wanted); PNG; TTS
    per_card = ("sheets" in outputs) + bool(outputs & {"shop", "png", "tts"}) + ("png" in outputs) + ("tts" in outputs)
    return per_card * game.total


def build_game(game: Game, options: BuildOptions, progress: Callable[[int], None] | None = None,
               lock: bool = True, prerendered: tuple[_Rendered, Any] | None = None) -> BuildResult:
    """Render and write the selected outputs of one game; return what was written.

    Raises CardgenError, before writing anything, for an impossible layout or (unless
    `allow_overflow`) text that overflows its box on any card, listing the cards. Holds a lock
    on OUT/ while writing, so two builds into one folder never interleave their files
    (`lock=False`: the caller holds it and has removed stale temporary files, see `build_games`).
    `prerendered`: what `_render` made of the game, and its cache (`_build_decks` renders every deck
    before it writes any).
    """
    step = progress or (lambda n: None)
    options = for_game(game, options)
    if game.decks and game.deck is None:
        return _build_decks(game, options, step, lock)
    if prerendered is None:
        cache = _build_cache(game, options)
        prerendered = (_render(game, options, step, cache), cache)
    rendered, cache = prerendered
    result = rendered.result
    outputs = set(options.outputs)
    base = result.out_dir
    with output_lock(options.out_dir) if lock else contextlib.nullcontext():
        if lock:
            _remove_temp_files(base)
        for path, data in rendered.pending:
            result.files.append(_write(options.out_dir, path, data))
        if rendered.shop is not None and outputs & {"png", "tts"}:
            from .render.cards import raster

            card_size = resolve_card_size(game, options)
            labels = page_labels(game, rendered.pairs, _back_first(options))
            if "png" in outputs:
                written = []
                target = options.target
                png_dir = base / named(target.png_dir if target else "png", game, options)
                renamed = _png_names(labels, target)
                path_of = lambda name: png_dir / renamed.get(name, name)  # noqa: E731
                from .cache import WrittenFiles

                # the PNG files are their own cache (one index of digests, not a copy of each file)
                files = WrittenFiles(cache.store, png_dir.name, path_of) if cache else None
                handoff = FaceFiles(labels, renamed) if target else None
                for name, data in raster.face_pngs(rendered.shop, labels, card_size, options.shop_bleed, progress=step,
                                                   cache=rendered.face_cache, written=files):
                    if handoff is None or handoff.keep(name, data):
                        written.append(_write(options.out_dir, path_of(name), data))
                if handoff is not None:
                    renamed = {**renamed, **handoff.aliases}  # the preview shows a copy's shared image
                    written += _write_handoff(options.out_dir, png_dir, handoff, target, game)
                # the preset's folder and its deck folders, also those this build no longer fills
                for folder in {png_dir, *(path for path in png_dir.iterdir() if path.is_dir())}:
                    _remove_stale(folder, [p for p in written if p.parent == folder], ".png", ".csv", ".xml")
                    if folder != png_dir and not any(folder.iterdir()):
                        folder.rmdir()  # a deck (back) the game no longer has
                result.files += written
                if files is not None:
                    files.save()
                    result.drawn.append(f"{files.drawn} PNG")
                from .preview import page_name, write_preview

                result.preview_page = page_name(options.lang, game.languages)

                result.preview = write_preview(game, result, labels, png_dir, renamed, options.lang, raster.png_size(card_size, options.shop_bleed),
                                               rounded=options.corner_guides, card_width_mm=card_size[0] + 2 * options.shop_bleed)
            if "tts" in outputs:
                written = []
                tts_dir = tts_folder(game, options)
                deck_name = game.deck.name.get(options.lang) if game.deck else None  # a declared deck is one TTS deck
                for name, data in raster.tts_sheets(game.file_stem, rendered.shop, labels, card_size, options.shop_bleed, progress=step,
                                                    names=tts_names(game, options), url=tts_url(game, options),
                                                    title=game.title.get(options.lang), cache=rendered.face_cache, one_deck=deck_name,
                                                    deck_names=tts_deck_names(game, labels, options.lang)):
                    if game.deck is not None and name == f"{game.file_stem}.json":
                        continue  # the game's one Saved Object holds every deck (_write_tts_decks)
                    written.append(_write(options.out_dir, tts_dir / name, data))
                if game.deck is None:  # the decks share the game's tts/ folder: _write_tts_decks clears it once
                    _remove_stale(tts_dir, written, ".png", ".json")
                result.files += written
                if cache:
                    result.drawn.append(f"{rendered.face_cache.made.get('TTS image', 0)} TTS image")
        if cache and lock:
            cache.store.prune()
    return result


def tts_deck_names(game: Game, labels, lang: str) -> dict[str, str]:
    """Each TTS deck (a shared back's group, or the cards with their own backs) in words: the
    label of the `deck` field its cards share, else (cards with their own backs) the word for
    them, else its card types' names (two at most), else its number. Never a back's id."""
    from . import words
    from .render.cards.raster import OWN_BACKS

    cards = {card.id: card for card in game.cards}
    groups: dict[str, list] = {}
    for _i, card_id, side, group in labels:
        if side == "back":
            groups.setdefault(OWN_BACKS if group is None else group, []).append(cards[card_id])
    out = {}
    for number, (group, members) in enumerate(groups.items(), start=1):
        decks = {card.fields.get("deck") for card in members}
        types = list(dict.fromkeys(card.type_id for card in members))
        if len(decks) == 1 and None not in decks and words.find_label("deck", next(iter(decks)), game):
            out[group] = words.label("deck", next(iter(decks)), lang, game)
        elif group == OWN_BACKS:
            out[group] = words.word("tts.own_backs", lang, game)
        elif len(types) <= 2:
            out[group] = words.word("common.separator", lang, game).join(game.card_type(t).name.get(lang) for t in types)
        else:
            out[group] = str(number)
    return out


def output_dir(game: Game, out_dir: Path) -> Path:
    """Where a game's files go: OUT/<game>/, and a declared deck's sheets, print-shop PDF, PNGs
    and tuck box OUT/<game>/decks/<deck>/ (its TTS images go to the game's one tts/ folder)."""
    base = Path(out_dir) / game.id
    return base if game.deck is None else base / "decks" / game.deck.id


def tts_folder(game: Game, options: BuildOptions) -> Path:
    """The game's one tts/ folder (tts-<lang>/ for its other languages), which its decks share."""
    return Path(options.out_dir) / game.id / named("tts", game, options)


def tts_url(game: Game, options: BuildOptions) -> Callable[[str], str]:
    """The URL TTS loads a file of the tts/ folder from: under --tts-url, else its file:// URI."""
    if options.tts_url:
        return lambda name: options.tts_url.rstrip("/") + "/" + name
    folder = tts_folder(game, options)
    return lambda name: (folder / name).resolve().as_uri()


def tts_names(game: Game, options: BuildOptions) -> dict[str, str]:
    """The names TTS shows for the cards: their printed names."""
    return {card.id: card.name.get(options.lang) for card in game.cards}


# --- declared decks --------------------------------------------------------------------------------
#
# A game that declares `decks:` builds its sheets, print-shop PDF, PNGs, TTS images and tuck box
# once per deck, from the deck's view of the game (its cards at its card size: a sheet never
# mixes two sizes), into OUT/<game>/decks/<deck>/; its documents once, from the whole game.

DECK_OUTPUTS = ("sheets", "shop", "png", "tts", "tuckbox")


def deck_lines(game: Game) -> list[str]:
    """What `check` says of each declared deck: its size, cards and backs (which follow from its types)."""
    from .render.cards.card import back_group

    lines = []
    for view in game.deck_views() if game.decks else ():
        try:
            groups = [back_group(view, card) for card in view.cards]
        except CardgenError:  # a broken layout: the build check above says where
            groups = []
        shared = sorted({g for g in groups if not g.startswith("own:")})
        own = sum(1 for g in groups if g.startswith("own:"))
        backs = ", ".join(shared + ([f"{own} card(s) with their own back"] if own else [])) or "?"
        w, h = sizes.size_mm(view.card_size)
        lines.append(f"deck '{view.deck.id}': {len(view.cards)} cards of {', '.join(t.id for t in view.card_types)}, "
                     f"{view.card_size} {w:g} x {h:g} mm, back(s): {backs}")
    return lines


def deck_notes(game: Game, options: BuildOptions) -> list[str]:
    """What `build` says about the declared decks it leaves out (a --preset's service has no such size)."""
    if not game.decks or game.deck is not None or not set(options.outputs) & set(DECK_OUTPUTS):
        return []
    from .presets import size_refusal

    target = options.target
    return [why for view in game.deck_views() if target is not None and (why := size_refusal(target, view))]


def deck_parts(game: Game, options: BuildOptions) -> list[tuple[Game, BuildOptions]]:
    """The declared decks a build draws, each with the options of its outputs (at its own card size)."""
    target = options.target
    if options.card_size is not None and not (target is not None and options.card_size == target.card_size):
        sized = ", ".join(f"{deck.id}: {deck.card_size}" for deck in game.decks)
        raise CardgenError(f"--card-size {options.card_size}: {game.id} declares its decks' sizes ({sized}); "
                           f"change a deck's 'size' in game.yaml instead")
    wanted = tuple(o for o in options.outputs if o in DECK_OUTPUTS)
    if not wanted:
        if options.calibration:
            raise CardgenError(f"--calibration: {game.id} declares decks and the calibration page goes with the first deck's "
                               f"sheets; add --only sheets")
        return []
    from .presets import size_refusal

    fitting = [view for view in game.deck_views() if target is None or size_refusal(target, view) is None]
    parts = [(view, replace(options, outputs=wanted, card_size=None, calibration=options.calibration and i == 0))
             for i, view in enumerate(fitting)]
    if not parts and wanted:
        raise CardgenError(f"--preset {target.id}: no deck of {game.id} has {target.service}'s card size; "
                           + "; ".join(deck_notes(game, options)))
    return parts


def render_parts(game: Game, options: BuildOptions) -> list[tuple[Game, BuildOptions]]:
    """What a build draws: the game with `options`; for a game with declared decks, each deck
    (`deck_parts`) and then the game itself with the documents' outputs (when any is wanted)."""
    if not game.decks or game.deck is not None:
        return [(game, options)]
    doc_outputs = tuple(o for o in options.outputs if o not in DECK_OUTPUTS)
    return deck_parts(game, options) + ([(game, replace(options, outputs=doc_outputs, calibration=False))] if doc_outputs else [])


def _build_decks(game: Game, options: BuildOptions, step: Callable[[int], None], lock: bool) -> BuildResult:
    """`build_game` of a game with declared decks: every deck and document rendered (and checked)
    first, then everything written, so a failing deck writes nothing."""
    options.validate()
    head = BuildResult(game.id, options.out_dir / game.id, cards=game.total)
    rendered = []
    doc_cache, documents = None, []
    for part, part_options in render_parts(game, options):
        if part is game:  # the rulebooks, standard-deck sheet and playtest kit: once, of the whole game
            doc_cache = _build_cache(game, part_options)
            documents = _documents(game, part_options, head.out_dir, doc_cache)
        else:
            cache = _build_cache(part, part_options)
            rendered.append((part, part_options, _render(part, part_options, step, cache), cache))
    with output_lock(options.out_dir) if lock else contextlib.nullcontext():
        if lock:
            for folder in {head.out_dir, *(r.result.out_dir for _, _, r, _ in rendered)}:
                _remove_temp_files(folder)
        for path, data in documents:
            head.files.append(_write(options.out_dir, path, data))
        for view, view_options, made, cache in rendered:
            build_game(view, view_options, step, lock=False, prerendered=(made, cache))
        if "tts" in options.outputs and rendered:
            head.files += _write_tts_decks(game, options, [made.result for _, _, made, _ in rendered])
        _remove_gone_decks(game, head.out_dir / "decks")
        head.preview = _write_decks_preview(game, options, head.out_dir, [made.result for _, _, made, _ in rendered])
        if lock:
            for cache in [doc_cache, *(c for _, _, _, c in rendered)]:
                if cache:
                    cache.store.prune()
    parts_done = [made.result for _, _, made, _ in rendered]
    merged = _merge([head, *parts_done])
    merged.cards = game.total
    merged.layout, merged.sheet_warning = None, None  # one per deck: `decks`
    merged.sheets = sum(deck.sheets for deck in parts_done)
    merged.decks = parts_done
    return merged


def _remove_gone_decks(game: Game, root: Path) -> None:
    """Delete our files from OUT/<game>/decks/<deck>/ of a deck game.yaml no longer declares (renamed
    or removed), and the folder once empty: its sheets must not be printed by mistake. Other files stay."""
    if not root.is_dir() or root.is_symlink():
        return
    declared = {deck.id for deck in game.decks}
    for folder in root.iterdir():
        if folder.name in declared or not folder.is_dir() or folder.is_symlink():
            continue
        pngs = [sub for sub in folder.iterdir() if sub.is_dir() and not sub.is_symlink() and sub.name.startswith("png")]
        for sub in pngs:  # png/, a preset's png-<service>/ and its deck folders
            for inner in [p for p in sub.iterdir() if p.is_dir() and not p.is_symlink()] + [sub]:
                _remove_stale(inner, [], ".png", ".csv", ".xml")
                with contextlib.suppress(OSError):
                    inner.rmdir()  # only when empty
        _remove_stale(folder, [], ".pdf", ".csv", ".html", ".js")
        with contextlib.suppress(OSError):
            folder.rmdir()


def _write_decks_preview(game: Game, options: BuildOptions, base: Path, results: list[BuildResult]) -> list:
    """OUT/<game>/preview.html with every deck's cards (each deck also has its own), the page
    `watch` keeps current; its cards, or [] when no deck wrote PNGs."""
    import os
    from urllib.parse import quote

    from .preview import page_language, write_page

    cards = []
    for result in results:
        folder = quote(os.path.relpath(result.out_dir, base).replace(os.sep, "/")) + "/"
        cards += [replace(card, front=folder + card.front, back=folder + card.back) for card in result.preview]
    if cards:
        write_page(base, game.title.get(options.lang), cards, language=page_language(game, options.lang))
    return cards


def _write_tts_decks(game: Game, options: BuildOptions, results: list[BuildResult]) -> list[Path]:
    """The game's one TTS Saved Object `<game>.json`: one DeckCustom per declared deck, side by
    side, from the manifests the decks wrote; and the tts/ folder cleared of other files."""
    import json

    from .render.cards.raster import TtsSheet, tts_saved_object

    folder = tts_folder(game, options)
    sheets = []
    for result in results:
        manifest = next(f for f in result.files if f.parent == folder and f.name == f"{result.game_id}-tts.json")
        for sheet in json.loads(manifest.read_text(encoding="utf-8"))["sheets"]:
            sheets.append(TtsSheet(sheet["deck"], sheet["face"], sheet["back"], sheet["unique_back"], sheet["width"],
                                   sheet["height"], tuple(sheet["card_px"]), tuple(sheet["cards"])))
    saved = tts_saved_object(game.id, sheets, tts_names(game, options), tts_url(game, options), game.title.get(options.lang))
    _scale_tts_decks(game, saved["ObjectStates"])
    path = _write(options.out_dir, folder / f"{game.id}.json", (json.dumps(saved, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))
    written = [f for result in results for f in result.files if f.parent == folder] + [path]
    _remove_stale(folder, written, ".png", ".json")
    return [path]


def _scale_tts_decks(game: Game, states: list[dict]) -> None:
    """Give each deck's objects its card size: TTS draws every custom card on its one card model,
    which is a poker card at scale 1 (an assumption: not measured in TTS here), so a mini deck is
    scaled to 44/63.5 of the width and 68/88.9 of the length (x and z: the table's plane)."""
    ref_w, ref_h = sizes.CARD_SIZES_MM["poker"]
    size_of = {card.id: sizes.size_mm(view.card_size) for view in game.deck_views() for card in view.cards}
    for state in states:
        cards = state.get("ContainedObjects") or [state]
        w, h = size_of[cards[0]["Description"]]
        for item in {id(o): o for o in [state, *cards]}.values():
            item["Transform"] = dict(item["Transform"], scaleX=round(w / ref_w, 4), scaleZ=round(h / ref_h, 4))


def _write_handoff(out_dir: Path, png_dir: Path, handoff, target, game: Game) -> list[Path]:
    """manifest.csv and, for MPC-style presets, cards.xml next to the PNGs (cardgen/handoff.py)."""
    from .handoff import image_rows, manifest_csv, mpc_order

    files = [_write(out_dir, png_dir / "manifest.csv", manifest_csv(image_rows(handoff.images)))]
    if target.mpc_order:
        files.append(_write(out_dir, png_dir / "cards.xml", mpc_order(handoff.images, [card.id for card in game.cards])))
    return files


def _build_cache(game: Game, options: BuildOptions):
    """The game's BuildCache when `options.cache`, else None."""
    if not options.cache:
        return None
    from .cache import BuildCache

    return BuildCache(game, options)


def _png_names(labels, target) -> dict[str, str]:
    """Face PNG names as `raster.face_pngs` writes them -> the preset's names (empty without a preset)."""
    if target is None:
        return {}
    from .presets import png_file_name
    from .render.cards.raster import safe_name, shared_back_name

    from .handoff import deck_folder

    out: dict[str, str] = {}
    numbers: dict[str, int] = {}
    groups = {card_id: group for _, card_id, side, group in labels if side == "back"}
    for _, card_id, side, group in labels:
        number = numbers.setdefault(card_id, len(numbers) + 1)
        folder = f"{deck_folder(groups[card_id])}/" if target.deck_folders else ""
        if group is not None:
            if target.deck_folders:
                out[shared_back_name(group)] = folder + target.shared_back_name
            elif group == "default":
                out[shared_back_name(group)] = target.shared_back_name
            continue
        out[f"{safe_name(card_id)}-{side}.png"] = folder + png_file_name(target, number, safe_name(card_id), side)
    return out


# --- parallel builds ------------------------------------------------------------------------------
#
# `build_games` with N workers runs tasks in this process and in N - 1 worker processes: the
# parent has the games loaded and would otherwise sit idle, and every extra process pays ~0.5 s
# of CPU for its imports and fonts.  A task is a whole game where it can be: a game's outputs
# share work inside one process (the faces' text layout, fonts' glyph widths), and splitting the
# four bundled games by output kind cost ~12 % more CPU than building each whole.  A game is
# split into tasks by output kind when it is more than its share (all games' cost / workers), one
# game alone say, and so is the cheapest game when there are more games than workers: its small
# parts, run last, fill the time the whole games leave on one worker or another.  The tasks of a
# split game: the home sheets; the print-shop PDF with the PNGs and TTS images rasterised from
# it (one task, so they come from the very PDF a serial build uses) and the calibration page; the
# rulebooks; the other documents.  Each task is `build_game` (or `_render`) of the game with
# those outputs, so the files are byte-identical to a single-process build.  A deck task checks
# the card text itself before it writes; the document tasks render in memory and the parent
# writes them only when every task of the game has passed, so an overflowing card still writes
# nothing of its game.
#
# The biggest tasks go first, each to whoever is free: a dispatcher thread hands the next task to
# a worker process as soon as one finishes, while the main thread takes the next one itself.  The
# parent holds the OUT/ lock throughout; workers ignore SIGINT (the parent stops them on Ctrl-C)
# and send their progress through a queue.
#
# `build_workers` starts the worker processes before the games load (the CLI does): each imports
# the renderers and reads the fonts while the parent reads the game folders.

# Rough CPU cost of each output in ms, per card and per file (measured on the bundled games,
# 2026-12-01); the PNG and TTS images need the print-shop PDF drawn even when it is not written.
_COST_PER_CARD_MS = {"sheets": 3.1, "shop": 2.9, "png": 14.0, "tts": 6.5, "playtest": 2.4}
_COST_FIXED_MS = {"sheets": 15.0, "shop": 25.0, "png": 100.0, "tts": 130.0, "rules": 1100.0, "standard": 50.0,
                  "playtest": 80.0, "tuckbox": 15.0}
_DECK_GROUPS = (("sheets",), ("shop", "png", "tts"))
_RULES_GROUP = ("rules",)
# What every task needs first; a worker imports it while the parent loads the games.
_WORKER_MODULES = ("cardgen.render.cards.card", "cardgen.render.cards.raster", "pypdfium2", "cardgen.cache",
                   "cardgen.preview", "cardgen.render.documents.rulebook", "cardgen.render.documents.playtest",
                   "cardgen.render.documents.standard_sheet", "cardgen.render.print.tuckbox")


def default_workers() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class _Task:
    game_index: int
    order: int  # the task's place in its game (its files come in this order)
    options: BuildOptions
    deferred: bool  # documents: rendered in the worker, written by the parent
    cost: float
    whole: bool = False  # every output of the game: its BuildResult is the game's


def estimated_cost(game: Game, outputs: Iterable[str]) -> float:
    """Rough CPU milliseconds to build these outputs of the game (for scheduling only)."""
    wanted = set(outputs)
    if wanted & {"png", "tts"}:
        wanted.add("shop")
    return sum(_COST_PER_CARD_MS.get(o, 0.0) * game.total + _COST_FIXED_MS.get(o, 50.0) for o in wanted)


def _tasks(games: list[Game], options: BuildOptions, workers: int) -> list[_Task]:
    """The tasks of a parallel build, biggest first."""
    costs = [estimated_cost(game, options.outputs) for game in games]
    share = sum(costs) / max(1, workers)
    split = {gi for gi, cost in enumerate(costs) if cost > share}
    whole = [gi for gi in range(len(games)) if gi not in split]
    if len(games) > workers and whole:
        split.add(min(whole, key=lambda gi: (costs[gi], -gi)))  # the cheapest (the last of equals) fills the gaps
    tasks = []
    for gi, game in enumerate(games):
        if gi not in split or game.decks:  # a game with declared decks builds whole (_build_decks)
            tasks.append(_Task(gi, 0, options, deferred=False, cost=costs[gi], whole=True))
            continue
        wanted = set(options.outputs)
        groups = [tuple(o for o in group if o in wanted) for group in _DECK_GROUPS]
        groups.append(tuple(o for o in _RULES_GROUP if o in wanted))
        taken = {o for group in groups for o in group}
        groups.append(tuple(o for o in options.outputs if o not in taken))
        # The calibration page goes with the print-shop task when there is one (its file comes
        # right after the print-shop PDF), else with the first task.
        calibration_at = 1 if groups[1] else next(i for i, g in enumerate(groups) if g)
        for order, group in enumerate(groups):
            if not group:
                continue
            sub = replace(options, outputs=group, calibration=options.calibration and order == calibration_at)
            tasks.append(_Task(gi, order, sub, deferred=order >= len(_DECK_GROUPS), cost=estimated_cost(game, group)))
    return sorted(tasks, key=lambda t: -t.cost)


_progress_queue = None


def _init_build_worker(queue) -> None:
    global _progress_queue
    _progress_queue = queue
    import importlib

    from .fonts import register_fonts

    for module in _WORKER_MODULES:
        importlib.import_module(module)
    register_fonts()


def _run_task(game: Game, task: _Task, step: Callable[[int], None]):
    """What a task makes: the BuildResult, and the documents its parent writes (deferred tasks)."""
    if task.deferred:
        rendered = _render(game, task.options, step, _build_cache(game, task.options))
        return rendered.result, rendered.pending
    return build_game(game, task.options, step, lock=False), []


def _run_worker_task(game: Game, task: _Task):
    """`_run_task` in a worker process, its progress sent to the parent."""
    queue = _progress_queue
    return _run_task(game, task, (lambda n: queue.put(n)) if queue is not None else (lambda n: None))


def _merge(parts: list[BuildResult]) -> BuildResult:
    """One game's result from its tasks' results (in task order), as a serial build returns it."""
    first = parts[0]
    merged = BuildResult(first.game_id, first.out_dir, cards=first.cards)
    merged.files = [f for p in parts for f in p.files if f.suffix == ".pdf"] + [f for p in parts for f in p.files if f.suffix != ".pdf"]
    merged.layout = next((p.layout for p in parts if p.layout is not None), None)
    merged.sheets = next((p.sheets for p in parts if p.sheets), 0)
    merged.sheet_warning = next((p.sheet_warning for p in parts if p.sheet_warning), None)
    for part in parts:
        for preset, count in part.k_pulled.items():
            merged.k_pulled[preset] = merged.k_pulled.get(preset, 0) + count
    merged.overflows = _unique_overflows([o for p in parts for o in p.overflows])
    merged.drawn = [d for p in parts for d in p.drawn]
    merged.preview = next((p.preview for p in parts if p.preview), [])
    merged.preview_page = next((p.preview_page for p in parts if p.preview), merged.preview_page)
    for part in parts:
        for card_id, notes in part.warnings.items():
            merged.warnings.setdefault(card_id, [])
            merged.warnings[card_id] += [n for n in notes if n not in merged.warnings[card_id]]
    return merged


@dataclass(frozen=True)
class BuildWorkers:
    """The worker processes of `build_games` (from `build_workers`), the queue of their progress,
    and how many workers build: the processes and this one."""

    pool: Any
    queue: Any
    processes: int


@contextlib.contextmanager
def build_workers(workers: int | None = None, games: int | None = None) -> Iterator[BuildWorkers | None]:
    """`workers` workers for `build_games` (default: all cores; None for one): this process and
    `workers` - 1 processes started now, so that they import the renderers and read the fonts
    while the caller loads its games; no more than `games` games can keep busy (each splits into
    at most four tasks).  On an exception in the block (Ctrl-C above all) they are stopped at once."""
    workers = default_workers() if workers is None else workers
    if games is not None:
        workers = min(workers, games * (len(_DECK_GROUPS) + 2))
    if workers <= 1:
        yield None
        return
    import multiprocessing

    from .workers import worker_pool

    queue = multiprocessing.get_context().SimpleQueue()
    with worker_pool(workers - 1, _init_build_worker, (queue,)) as pool:
        yield BuildWorkers(pool, queue, workers)


def build_games(games: Iterable[Game], options: BuildOptions, progress: Callable[[int], None] | None = None,
                workers: int | None = None, pool: BuildWorkers | None = None) -> list[BuildResult]:
    """`build_game` for every game, by `workers` workers (default: all cores, or those of `pool`;
    1: in this process alone).

    The files are byte-identical whatever the number of workers.  Raises the first failing
    game's CardgenError (in the order of `games`) after every task has finished.
    """
    games = list(games)
    step = progress or (lambda n: None)
    workers = pool.processes if pool is not None else default_workers() if workers is None else workers
    if workers <= 1:
        return _with_skipped(games, [build_game(game, options, step) for game in games], options)
    tasks = _tasks(games, options, workers)
    if pool is None:
        if len(tasks) <= 1:  # nothing to share out: not worth starting a process
            return _with_skipped(games, [build_game(game, options, step) for game in games], options)
        with build_workers(min(workers, len(tasks))) as started:
            assert started is not None
            return _build_in(started, games, tasks, options, step)
    return _build_in(pool, games, tasks, options, step)


def _build_in(workers: BuildWorkers, games: list[Game], tasks: list[_Task], options: BuildOptions,
              progress: Callable[[int], None]) -> list[BuildResult]:
    import threading

    pending = list(tasks)  # biggest first; taken from the front by the dispatcher and the main thread
    taking = threading.Lock()
    stepping = threading.Lock()  # the progress callback is called from both threads
    parts: dict[int, dict[int, tuple]] = {gi: {} for gi in range(len(games))}
    errors: dict[tuple[int, int], BaseException] = {}
    done: list[tuple[_Task, bool, Any]] = []  # finished tasks not yet taken in by the main thread
    finished_count = [0]
    all_done = threading.Event()
    stop = threading.Event()
    broken: list[BaseException] = []  # what stopped the dispatcher thread, if anything did
    queue = workers.queue

    def step(n: int) -> None:
        with stepping:
            progress(n)

    def take() -> _Task | None:
        with taking:
            return pending.pop(0) if pending else None

    def finished(task: _Task, ok: bool, value: Any) -> None:
        with taking:
            done.append((task, ok, value))
            finished_count[0] += 1
            if finished_count[0] == len(tasks):
                all_done.set()

    def dispatch() -> None:
        try:
            keep_busy()
        except BaseException as exc:  # the main thread raises it rather than wait for tasks no one collects
            broken.append(exc)
            all_done.set()

    def keep_busy() -> None:
        """Keep every worker process busy with the next pending task; pass their progress on."""
        running: list[tuple[_Task, Any]] = []
        idle = workers.processes - 1
        while not stop.is_set():
            while not queue.empty():
                step(queue.get())
            still = []
            for task, handle in running:
                if not handle.ready():
                    still.append((task, handle))
                    continue
                try:
                    finished(task, True, handle.get())
                except Exception as exc:  # reported in game order once every task is done
                    finished(task, False, exc)
                idle += 1
            running = still
            while idle:
                task = take()
                if task is None:
                    break
                running.append((task, workers.pool.apply_async(_run_worker_task, (games[task.game_index], task))))
                idle -= 1
            if running:
                running[0][1].wait(0.02)
            else:
                stop.wait(0.02)
        while not queue.empty():
            step(queue.get())

    def take_in() -> None:
        """Record the finished tasks; write and merge each game whose tasks have all passed."""
        with taking:
            newly = list(done)
            done.clear()
            for task, ok, value in newly:
                if ok:
                    parts[task.game_index][task.order] = value
                else:
                    errors[(task.game_index, task.order)] = value
        for gi in {task.game_index for task, ok, _ in newly if ok}:
            if gi not in results and len(parts[gi]) == needed[gi] and not any(k[0] == gi for k in errors):
                finish(gi)

    def finish(gi: int) -> None:
        done_parts = [parts[gi][k] for k in sorted(parts[gi])]
        if gi in whole:
            results[gi] = done_parts[0][0]
            return
        for result, pending_files in done_parts:
            for path, data in pending_files:
                result.files.append(_write(options.out_dir, path, data))
        results[gi] = _merge([result for result, _ in done_parts])

    needed = {gi: sum(1 for t in tasks if t.game_index == gi) for gi in range(len(games))}
    whole = {t.game_index for t in tasks if t.whole}
    results: dict[int, BuildResult] = {}
    with output_lock(options.out_dir):
        for game in games:
            _remove_temp_files(options.out_dir / game.id)
        dispatcher = threading.Thread(target=dispatch, name="cardgen-build-dispatch", daemon=True)
        dispatcher.start()
        try:
            while (task := take()) is not None:
                try:
                    finished(task, True, _run_task(games[task.game_index], task, step))
                except Exception as exc:
                    finished(task, False, exc)
                take_in()
            while not all_done.wait(0.05):
                take_in()
        finally:
            stop.set()
            dispatcher.join()
        if broken:
            raise broken[0]
        take_in()
        if options.cache:  # the tasks wrote without the lock's holder pruning (build_game with lock=False)
            from .cache import cache_for

            for game in games:
                for name in dict.fromkeys([game.id, *(view.file_stem for view in game.deck_views())]):  # and each deck's own
                    cache_for(options.out_dir, name).prune()
    if errors:
        raise errors[min(errors)]
    return _with_skipped(games, [results[gi] for gi in range(len(games))], options)


def _with_skipped(games: list[Game], results: list[BuildResult], options: BuildOptions) -> list[BuildResult]:
    for game, result in zip(games, results):
        result.skipped = folder_notes(game) + skipped_outputs(game, options.outputs) + tuckbox_notes(game, options) + deck_notes(game, options)
        with output_lock(options.out_dir):
            result.removed = remove_unmade(game, result, options)
    return results


# --- what a build no longer makes ---------------------------------------------------------------

MANIFEST = ".cardgen-files.json"  # OUT/<game>/: the files cardgen wrote there, so a rebuild can tell its own


def output_of(name: str) -> str:
    """Which output (OUTPUTS) a file of OUT/<game>/ belongs to, by its name."""
    for part, output in (("-rules-", "rules"), ("-standard-deck", "standard"), ("-tuckbox", "tuckbox"),
                         ("-playtest", "playtest"), ("-cards-", "sheets"), ("-calibration-", "sheets")):
        if part in name:
            return output
    return "shop" if name.endswith(".pdf") else "png"  # print-shop PDFs; preview.html and a service's lists


def remove_unmade(game: Game, result: BuildResult, options: BuildOptions) -> list[str]:
    """Delete the files of OUT/<game>/ an earlier build wrote that this one no longer makes (a
    deleted mapping.yaml's standard-deck PDF): only files of the outputs asked for, in the same
    language, paper and preset, and only when unchanged since cardgen wrote them (its SHA-256
    in the manifest: unlike a file time, the same build writes the same manifest); a changed one
    is left and said. Records what this build wrote. Returns what happened, one line a file."""
    import hashlib
    import json

    def digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    base = result.out_dir
    manifest = base / MANIFEST
    try:
        known = json.loads(manifest.read_text(encoding="utf-8")).get("files", {})
        known = known if isinstance(known, dict) else {}
    except (OSError, ValueError):
        known = {}
    key = {"lang": options.lang or game.languages[0], "paper": options.paper, "preset": options.preset}
    written = {path.name for path in result.files if path.parent == base}
    said = []
    for name, entry in sorted(known.items()):
        if name in written or not isinstance(entry, dict) or "/" in name or "\\" in name or name.startswith("."):
            continue
        path = base / name
        if not path.is_file():
            del known[name]
            continue
        if entry.get("output") not in options.outputs or any(entry.get(k) != v for k, v in key.items()):
            continue
        if digest(path) != entry.get("sha256"):
            said.append(f"{path}: left in place, changed since cardgen wrote it; this build no longer makes it")
            del known[name]
            continue
        path.unlink()
        del known[name]
        said.append(f"{path}: removed, this build no longer makes it")
    for name in sorted(written):
        known[name] = {"output": output_of(name), **key, "sha256": digest(base / name)}
    if known or manifest.exists():
        write_atomic(manifest, (json.dumps({"files": known}, indent=1, sort_keys=True) + "\n").encode())
    return said


def tuckbox_notes(game: Game, options: BuildOptions) -> list[str]:
    """A deck too deep for one tuck box on the paper is split: the build says so, not only the page."""
    if "tuckbox" not in options.outputs:
        return []
    from .render.print.tuckbox import split_note

    notes = []
    for view in game.deck_views():  # a game with declared decks has a box per deck, at its size
        sized = options if view is game else replace(options, card_size=None)
        note = split_note(resolve_card_size(view, sized), view.total, options.paper, options.card_thickness_mm)
        notes += [] if note is None else [note]
    return notes


@dataclass
class _Rendered:
    result: BuildResult
    pending: list[tuple[Path, bytes]]
    shop: bytes | None
    pairs: list
    face_cache: Any = None  # cache.FaceCache of the print-shop PDF's faces, with a cache


def _render(game: Game, options: BuildOptions, step: Callable[[int], None], cache=None) -> _Rendered:
    """Everything `build_game` writes but the PNG and TTS images, rendered in memory and checked,
    every face from one reading of the game's layout.

    With a `cache` (cardgen/cache.py), a file whose inputs are unchanged is read from it instead.
    """
    from .render.cards.layout import pinned_layouts

    with pinned_layouts():
        return _render_pinned(game, options, step, cache)


def _render_pinned(game: Game, options: BuildOptions, step: Callable[[int], None], cache=None) -> _Rendered:
    from .preview import FaceNotes
    from .render.cards.card import faces

    options = for_game(game, options)
    options.validate()
    if options.target is not None and not options.allow_unsafe:  # before drawing anything, as cheap as it is
        from .presets import unsafe_error

        unsafe = unsafe_error(game, options.target.id)
        if unsafe is not None:
            raise unsafe
    outputs = set(options.outputs)
    card_size = resolve_card_size(game, options)
    layout = plan_layout(game, options) if ("sheets" in outputs or options.calibration) else None
    pairs = faces(game)
    result = BuildResult(game.file_stem, output_dir(game, options.out_dir), cards=len(pairs), layout=layout)
    if layout is not None and "sheets" in outputs:
        result.sheet_warning = thin_bleed_warning(game, options, layout)
    overflows: list = []
    pending: list[tuple[Path, bytes]] = []
    base = result.out_dir

    notes = FaceNotes(overflows)

    def deck(name: str, draw: Callable[[], bytes]) -> bytes:
        if cache is None:
            with notes.collect():
                return draw()
        drawn = len(cache.drawn)
        data, kept = cache.deck(name, lambda: notes.collecting(draw))
        if len(cache.drawn) == drawn:  # read from the cache: what its faces reported, and their progress
            notes.restore(kept)
            step(len(pairs))
        return data

    sheets = None
    if "sheets" in outputs:
        assert layout is not None
        sheets = deck("sheets", lambda: sheets_pdf(game, pairs, layout, options.duplex, options.back_offset_mm, options.lang, overflows, step,
                      corner_index=options.corner_index, ink_saver=options.ink_saver, corner_radius=options.corner_guides))
        result.sheets = -(-len(pairs) // layout.per_sheet)
    shop = None
    face_cache = None
    if outputs & {"shop", "png", "tts"}:
        cmyk = bool(options.target and options.target.cmyk and "shop" in outputs)
        # The home sheets wait in a temporary file while the print-shop PDF is drawn: with both in
        # memory a 5,000-card build peaked ~10 MB higher (ReportLab holds a whole document).
        with tempfile.TemporaryFile() as spool:
            if sheets is not None:
                spool.write(sheets)
                sheets = None
            shop = deck("shop", lambda: printshop_pdf(game, pairs, card_size, options.shop_bleed, options.lang, overflows, step,
                                                      corner_index=options.corner_index, cmyk=cmyk,
                                                      back_first=_back_first(options), keep_small_colour=options.keep_small_colour))
            if "sheets" in outputs:
                spool.seek(0)
                sheets = spool.read()
    if sheets is not None:
        name = named(f"{game.file_stem}-cards-{options.paper}.pdf", game, options)
        pending.append((base / name, sheets))
        if options.target:  # which sheet page is which card's front and back (cardgen/handoff.py)
            from .handoff import manifest_csv
            from .render.print.sheet import card_pages

            rows = [(f"{name}#page={front}", card.id, 1, f"{name}#page={back}")
                    for card, (front, back) in zip(game.cards, card_pages(layout, len(pairs)))]
            pending.append((base / named(f"manifest-{options.target.id}.csv", game, options), manifest_csv(rows)))
    if outputs & {"shop", "png", "tts"}:
        if cache is not None and outputs & {"png", "tts"}:
            face_cache = cache.faces(page_labels(game, pairs, _back_first(options)), card_size, options.shop_bleed, options.lang, cmyk)
        if "shop" in outputs:
            name = named((options.target.shop_name if options.target else "{game}-print-shop.pdf").format(game=game.file_stem), game, options)
            pending.append((base / name, shop))
            if options.target:  # which pages are which card, and its back (cardgen/handoff.py)
                from .handoff import manifest_csv, page_rows

                rows = page_rows(name, page_labels(game, pairs, _back_first(options)))
                pending.append((base / named(f"manifest-{options.target.id}.csv", game, options), manifest_csv(rows)))
    if options.calibration:
        cal_layout = plan_layout(game, replace(options, imposition="duplex"))
        pending.append((base / named(f"{game.file_stem}-calibration-{options.paper}.pdf", game, options), calibration_pdf(cal_layout, options.duplex, options.back_offset_mm, options.lang)))

    pending += _documents(game, options, base, cache)

    overflows = _unique_overflows(overflows)
    if overflows and not options.allow_overflow:
        raise overflow_error(game, overflows)
    result.overflows = overflows
    result.warnings = notes.by_card()
    if notes.k_pulled:
        result.k_pulled = {options.target.id: notes.k_pulled}
    if cache is not None:
        result.drawn = list(cache.drawn)
    return _Rendered(result, pending, shop, pairs, face_cache)


def _back_first(options: BuildOptions) -> bool:
    """The print-shop PDF puts each card's back page before its front (the preset's page order)."""
    return bool(options.target and options.target.back_first)


def check_outputs(game: Game) -> list[CheckResult]:
    """Render, in memory, everything a default `cardgen build` of the game writes, and the card
    faces in every language; one failing result per problem, at its file:line.

    This is what makes "check passes" mean "build passes": the same code runs, nothing is written.
    The PNG and TTS images are rasterised from the print-shop PDF checked here, with sizes and
    names the loader and options have already bounded.
    """
    from .model import CheckResult

    from .render.cards.art import ART_NOTES, art_checks
    from .render.cards.card import TEXT_SIZES

    problems: list[Problem] = []
    sizes: list = []
    art_notes: list = []
    for index, lang in enumerate(game.languages):
        # the first pass renders every document; the others only the faces in their language
        outputs = OUTPUTS if index == 0 else ("sheets",)
        token = TEXT_SIZES.set(sizes)
        art_token = ART_NOTES.set(art_notes)
        try:
            for part, part_options in render_parts(game, make_options(lang=lang, outputs=outputs)):
                try:
                    part_options.validate()
                    if part is game and game.decks:  # the documents of a game with decks (as _build_decks makes them)
                        _documents(game, part_options, part_options.out_dir / game.id)
                    else:
                        _render(part, part_options, lambda n: None)
                except CardgenError as exc:  # every deck is checked, whichever fails
                    problems.extend(p for p in exc.problems if p not in problems)
        except CardgenError as exc:
            problems.extend(p for p in exc.problems if p not in problems)
        finally:
            TEXT_SIZES.reset(token)
            ART_NOTES.reset(art_token)
    problems.extend(p for p in _report_spec_problems(game) if p not in problems)
    results = [CheckResult("build", False, p.message, p.location) for p in problems]
    if not problems:
        results.append(CheckResult("build", True, f"every output lays out ({', '.join(game.languages)})"))
    results += [CheckResult("folder-name", True, why) for why in folder_notes(game)]
    results += [CheckResult("decks", True, what) for what in deck_lines(game)]
    results += [CheckResult("optional-output", True, why) for why in skipped_outputs(game)]
    return results + text_size_checks(game, sizes) + art_checks(art_notes)


def text_size_checks(game: Game, sizes: list) -> list[CheckResult]:
    """Card text printed small: a warning below READABLE_TEXT_PT, a failure below the layout's text_floor."""
    from .model import CheckResult
    from .render.cards.layout import READABLE_TEXT_PT, get_layout

    if not sizes:
        return []
    floor = get_layout(game.deck_views()[0]).text_floor
    smallest: dict[tuple, Any] = {}
    cards: dict[tuple, set[str]] = {}
    for s in sizes:  # one line per box of the layout: its smallest size, and how many cards print it small
        key = (s.side, s.box)
        if s.size < READABLE_TEXT_PT:
            cards.setdefault(key, set()).add(s.card_id)
        if key not in smallest or s.size < smallest[key].size:
            smallest[key] = s
    out = []
    for key, s in sorted(smallest.items(), key=lambda kv: (kv[1].size, kv[1].card_id)):
        others = len(cards.get(key, ())) - 1
        more = f" and {others} other card(s)" if others > 0 else ""
        where = f"card {s.card_id}{more} ({s.side}, {s.lang}): text box '{s.box}' is printed at {s.size:g} pt"
        if s.size < floor:
            out.append(CheckResult("text-size", False, f"{where}, below the layout's text_floor {floor:g} pt; "
                                                        f"shorten the text or enlarge the box", s.location))
        elif s.size < READABLE_TEXT_PT:
            out.append(CheckResult("text-size", True, f"{where}, below {READABLE_TEXT_PT:g} pt (hard to read); "
                                                       f"consider shortening the text or enlarging the box", s.location, warning=True))
    if not out:
        out.append(CheckResult("text-size", True, f"all card text at {READABLE_TEXT_PT:g} pt or larger"))
    return out


def _documents(game: Game, options: BuildOptions, base: Path, cache=None) -> list[tuple[Path, bytes]]:
    """Rulebooks (both languages), the standard-deck sheet and the playtest kit, rendered in memory
    (or read from the `cache` when their inputs are unchanged)."""
    out: list[tuple[Path, bytes]] = []

    def made(name: str, draw: Callable[[], bytes]) -> bytes:
        return draw() if cache is None else cache.document(name, draw)

    if "rules" in options.outputs:
        from .render.documents.rulebook import build_rulebook

        for lang in game.languages:
            out.append((base / f"{game.id}-rules-{lang}.pdf", made(f"rules-{lang}", lambda lang=lang: build_rulebook(game, lang, options.paper))))
    if "standard" in options.outputs:
        from .mapping import has_mapping
        from .render.documents.standard_sheet import build_standard_sheet

        if has_mapping(game):  # an invalid mapping raises DataError with its file:line problems
            out.append((base / named(f"{game.id}-standard-deck.pdf", game, options), made("standard", lambda: build_standard_sheet(game, options.lang, options.paper))))
    if "tuckbox" in options.outputs:
        from .render.print.tuckbox import tuckbox_pdf

        out.append((base / named(f"{game.file_stem}-tuckbox.pdf", game, options), made("tuckbox", lambda: tuckbox_pdf(game, resolve_card_size(game, options), options.paper,
                                                                                         options.lang, options.card_thickness_mm))))
    if "playtest" in options.outputs:
        from .render.documents.playtest import build_playtest, has_playtest

        if has_playtest(game):
            out.append((base / named(f"{game.id}-playtest.pdf", game, options), made("playtest", lambda: build_playtest(game, options.lang, options.paper))))
    return out


def _unique_overflows(overflows: list) -> list:
    seen, out = set(), []
    for o in overflows:
        key = (o.card_id, o.side, o.box)
        if key not in seen:
            seen.add(key)
            out.append(o)
    return out


def overflow_error(game: Game, overflows: list) -> CardgenError:
    """A CardgenError listing every text that does not fit, once per card type (naming its copies), at its cards.yaml line.

    Copies of a type share its texts, so one overflowing text is one fix, however many copies print it.
    """
    from .mapping import id_range

    card_by_id = {card.id: card for card in game.cards}
    groups: dict[tuple, list] = defaultdict(list)
    for o in overflows:
        card = card_by_id.get(o.card_id)
        groups[(card.type_id if card else o.card_id, o.side, o.box, o.text)].append(o)
    problems = []
    for (type_id, side, box, text), same in groups.items():
        ids = [o.card_id for o in same]
        shown = str(text).replace("\n", " ")
        shown = shown if len(shown) <= 40 else shown[:39] + "…"
        if len(ids) == 1:
            at, who = card_by_id[ids[0]].location if ids[0] in card_by_id else None, f"card {ids[0]} ({side})"
        else:
            at, who = _type_location(game, type_id, card_by_id[ids[0]].location), f"card type '{type_id}' ({side}, {len(ids)} copies: {id_range(ids)})"
        problems.append(Problem(at, f"{who}: text does not fit in box '{box}': {shown!r}"))
    cards = sorted({o.card_id for o in overflows})
    problems.append(Problem(None, f"{game.id}: text overflows on {len(cards)} card(s) ({', '.join(cards)}); shorten the text or enlarge the box in the layout, or pass --allow-overflow to build anyway"))
    return CardgenError(problems)


def _type_location(game: Game, type_id: str, fallback: Location | None) -> Location | None:
    try:
        return game.card_type(type_id).location or fallback
    except KeyError:
        return fallback


def _report_spec_problems(game: Game) -> list[Problem]:
    """What `cardgen report` would refuse in the game's report.yaml (its runs, their policies)."""
    from .registry import game_engine
    from .engine.agents import parse_policy
    from .io.paths import game_template
    from .render.documents.report import report_runs

    rules_class = game_engine(game)
    if rules_class is None or game_template(game, "report.yaml") is None:
        return []
    try:
        runs = report_runs(game)
    except CardgenError as exc:
        return list(exc.problems)
    at = game.where("game.yaml")
    out = []
    for run in runs:
        for name in run.policies:
            try:
                parse_policy(rules_class, name)
            except ValueError as exc:
                out.append(Problem(at, f"report.yaml: run '{run.title}': {exc}"))
    return out


def _write(out_dir: Path, path: Path, data: bytes) -> Path:
    """write_atomic, refusing a path outside OUT/ and turning file-system trouble into a message."""
    root = Path(out_dir).resolve()
    target = path.resolve()
    if root != target and root not in target.parents:
        raise CardgenError(f"{path}: refusing to write outside --out {out_dir}")
    try:
        if _holds(path, data):  # unchanged (e.g. from the cache): keep the file and its time
            return path
        return write_atomic(path, data)
    except OSError as exc:
        blocker = next((p for p in [path, *path.parents] if p.exists() and not p.is_dir()), None)
        if isinstance(exc, IsADirectoryError) or path.is_dir():
            hint = f"{path} is a folder; move it away so the file can be written"
        elif blocker is not None and blocker != path:
            hint = f"{blocker} is a file where a folder is needed; move it away or choose another --out"
        else:
            hint = f"cannot write {path} ({exc.strerror or exc}); check the folder's permissions and free space"
        raise CardgenError(hint) from None


def _holds(path: Path, data: bytes) -> bool:
    """Whether the regular file at `path` already has exactly these bytes."""
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size != len(data):
            return False
        return path.read_bytes() == data
    except OSError:
        return False


def _remove_stale(folder: Path, written: list[Path], *suffixes: str) -> None:
    """Delete files of ours left from an earlier build (e.g. a card since removed)."""
    keep = {p.name for p in written}
    if not folder.is_dir():
        return
    for path in folder.iterdir():
        if path.is_file() and path.suffix in suffixes and path.name not in keep and not path.name.startswith("."):
            path.unlink()
