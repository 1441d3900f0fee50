"""`OUT/<game>/preview.html`: every card's front and back as PNGs in a grid, with its id and
what its faces reported (text overflowing or printed small, missing or low-resolution art).

The page reloads itself when a build finishes: it loads `preview-build.js` (which names the
latest build) every second with a script tag, which works from file:// as well as over HTTP,
and reloads when the name differs from its own.  Without JavaScript a meta refresh does it.
Everything from the game's files is HTML-escaped; images are loaded lazily, so a 1,000-card
game's page stays light.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence
from urllib.parse import quote

from .render.cards.layout import READABLE_TEXT_PT

PAGE = "preview.html"
BUILD_SCRIPT = "preview-build.js"
POLL_MS = 1000


# --- what the faces reported ------------------------------------------------------------------

def _note_vars() -> list:
    """The context variables faces report into while drawn (text sizes; art notes when that module exists)."""
    from .render.cards.card import TEXT_SIZES

    found = [TEXT_SIZES]
    try:
        from .render.cards.art import ART_NOTES
    except ImportError:  # pragma: no cover - art boxes not available
        return found
    return found + [ART_NOTES]


def _describe(note: Any) -> str | None:
    """One line for the preview from a TextSize or ArtNote, or None when all is well."""
    side = getattr(note, "side", "")
    if hasattr(note, "size") and hasattr(note, "box"):
        if note.size < READABLE_TEXT_PT:
            return f"{side}: text '{note.box}' shrunk to {note.size:g} pt (under {READABLE_TEXT_PT:g} pt)"
        return None
    problem = getattr(note, "problem", None)
    if problem == "missing":
        return f"{side}: image '{note.src}' is missing"
    if problem == "low-dpi":
        return f"{side}: image '{note.src}' prints at {note.dpi:.0f} dpi (under 300)"
    if problem == "svg-unsupported":
        return f"{side}: image '{note.src}': {note.detail}"
    if problem:
        return f"{side}: image '{getattr(note, 'src', '')}': {problem}"
    return None


class _Noteworthy(list):
    """A note list that keeps only what the preview shows (`_describe` is not None): a build draws
    every text box of every face, and keeping each one's size cost ~1.4 KB a card on big decks."""

    def append(self, note: Any) -> None:
        if _describe(note) is not None:
            super().append(note)


@dataclass
class FaceNotes:
    """What the faces of one build reported, per card: overflows (into the build's own list) and
    the notes of `_note_vars`, kept as plain (card id, message) pairs so a cache can store them."""

    overflows: list
    notes: list[tuple[str, str]] = field(default_factory=list)
    k_pulled: int = 0  # coloured small texts and thin rules printed in K only (colour.plate_colour)

    @contextlib.contextmanager
    def collect(self) -> Iterator[list[tuple[str, str]]]:
        """Gather what is drawn inside the block (into the lists `check` has set, or our own);
        yields the list of what this block's faces reported."""
        from .render.colour import K_PULLED

        found: list[tuple[str, str]] = []
        tokens, marks = [], []
        pulled = K_PULLED.get()
        if pulled is None:
            pulled = []
            tokens.append((K_PULLED, K_PULLED.set(pulled)))
        pulled_mark = len(pulled)
        for var in _note_vars():
            current = var.get()
            if current is None:
                current = _Noteworthy()
                tokens.append((var, var.set(current)))
            marks.append((current, len(current)))
        try:
            yield found
        finally:
            for current, start in marks:
                for note in current[start:]:
                    text = _describe(note)
                    if text is not None and (note.card_id, text) not in found:
                        found.append((note.card_id, text))
            self.notes.extend(n for n in found if n not in self.notes)
            self.k_pulled += len(pulled) - pulled_mark
            for var, token in tokens:
                var.reset(token)

    def collecting(self, draw: Callable[[], bytes]) -> tuple[bytes, dict]:
        """(draw()'s bytes, what its faces reported) for a cache entry."""
        overflow_mark, pulled_mark = len(self.overflows), self.k_pulled
        with self.collect() as found:
            data = draw()
        kept = {"overflows": [[o.card_id, o.side, o.box, o.text] for o in self.overflows[overflow_mark:]],
                "notes": [list(n) for n in found], "k_pulled": self.k_pulled - pulled_mark}
        return data, kept

    def restore(self, kept: Any) -> None:
        """Add what a cached drawing reported (as `collecting` kept it); anything malformed is ignored."""
        from .render.cards.card import Overflow

        try:
            overflows = [Overflow(*map(str, o)) for o in kept["overflows"] if len(o) == 4]
            notes = [(str(c), str(t)) for c, t in kept["notes"]]
            k_pulled = max(0, int(kept.get("k_pulled", 0)))
        except (KeyError, TypeError, ValueError, AttributeError):
            return
        self.k_pulled += k_pulled
        self.overflows.extend(overflows)
        self.notes.extend(n for n in notes if n not in self.notes)

    def by_card(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for o in self.overflows:
            text = f"{o.side}: text '{o.box}' overflows its box"
            if text not in out.setdefault(o.card_id, []):
                out[o.card_id].append(text)
        for card_id, text in self.notes:
            if text not in out.setdefault(card_id, []):
                out[card_id].append(text)
        return {k: v for k, v in out.items() if v}


# --- the page ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class CardImages:
    """One card of the preview: its id, and its front and back images relative to the page."""

    card_id: str
    name: str
    front: str
    back: str
    warnings: tuple[str, ...] = ()


def card_images(game, labels: Sequence[tuple[int, str, str, str | None]], base: Path, png_dir: Path,
                renamed: Mapping[str, str], warnings: Mapping[str, list[str]], lang: str) -> list[CardImages]:
    """The preview's cards from the print-shop page labels and the PNG names the build wrote."""
    from .render.cards.raster import safe_name, shared_back_name

    def url(name: str) -> str:
        path = png_dir / renamed.get(name, name)
        try:  # a changed image gets a new URL, so a reload shows it (and the page stays deterministic)
            stamp = hashlib.sha1(path.read_bytes()).hexdigest()[:10]
        except OSError:
            stamp = "0"
        return quote(os.path.relpath(path, base).replace(os.sep, "/")) + f"?v={stamp}"

    backs = {card_id: group for _, card_id, side, group in labels if side == "back"}
    names = {card.id: card.name.get(lang) for card in game.cards}
    out = []
    for card_id, group in backs.items():
        back = shared_back_name(group) if group is not None else f"{safe_name(card_id)}-back.png"
        out.append(CardImages(card_id, names.get(card_id, ""), url(f"{safe_name(card_id)}-front.png"), url(back),
                              tuple(warnings.get(card_id, ()))))
    return out


@dataclass(frozen=True)
class PageLanguage:
    """The language of one preview page, its words, and the pages of the game's other languages."""

    lang: str = "en"
    words: Mapping[str, str] = field(default_factory=lambda: {"cards": "{n} cards", "with_warnings": ", {n} with warnings",
                                                              "languages": "Language"})
    others: tuple[tuple[str, str, str], ...] = ()  # (lang, its name in itself, its page's file name)


def page_name(lang: str, languages: Sequence[str]) -> str:
    """preview.html for the game's first language, preview-<lang>.html for the others."""
    return PAGE if not languages or lang == languages[0] else f"preview-{lang}.html"


def page_language(game, lang: str) -> PageLanguage:
    from .langs import native_name
    from .words import group

    languages = tuple(game.languages)
    others = tuple((other, native_name(other), page_name(other, languages)) for other in languages if other != lang)
    return PageLanguage(lang, group("preview", lang, game), others)


def page(title: str, cards: Sequence[CardImages], build_id: str, error: str | None = None,
         size_px: tuple[int, int] | None = None, language: PageLanguage | None = None,
         rounded_mm: float | None = None, card_width_mm: float | None = None) -> str:
    """The preview page's HTML (everything escaped), in `language` with a switch to the game's
    other languages' pages; the faces' corners rounded like the cut cards when `rounded_mm`."""
    from .words import fill

    e = html.escape
    language = language or PageLanguage()
    w, h = size_px or (250, 350)
    warned = sum(1 for c in cards if c.warnings)
    status = fill(language.words["cards"], {"n": len(cards)}) + (fill(language.words["with_warnings"], {"n": warned}) if warned else "")
    # the radius as a share of the face's width, so it holds at any size the grid gives the image
    radius = (f".faces img{{border-radius:{100 * rounded_mm / card_width_mm:.3f}% / {100 * rounded_mm / card_width_mm * w / h:.3f}%}}"
              if rounded_mm and card_width_mm else "")
    parts = [
        "<!doctype html>",
        f'<html lang="{e(language.lang)}"><head><meta charset="utf-8">',
        f"<title>{e(title)} — cardgen preview</title>",
        f'<noscript><meta http-equiv="refresh" content="{POLL_MS // 1000 + 2}"></noscript>',
        "<style>",
        "body{font:14px system-ui,sans-serif;margin:1rem;background:#f4f4f2;color:#222}",
        "header{display:flex;gap:1rem;align-items:baseline}h1{font-size:1.3rem;margin:0}",
        ".error{background:#fde8e8;border:2px solid #c00;padding:.5rem 1rem;margin:1rem 0}",
        ".error pre{white-space:pre-wrap;margin:0}",
        ".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:12px}",
        ".card{margin:0;background:#fff;padding:6px;border:2px solid transparent;border-radius:6px}",
        ".card.warn{border-color:#e08a00}",
        ".faces{display:grid;grid-template-columns:1fr 1fr;gap:4px}",
        ".faces img{width:100%;height:auto;background:#ddd}",
        "figcaption{font-family:ui-monospace,monospace;margin-top:4px;overflow-wrap:anywhere}",
        ".warnings{color:#9a4b00;margin:4px 0 0;padding-left:1.1rem;font-family:system-ui,sans-serif}",
        "nav.languages{margin-left:auto}nav.languages a{margin-left:.5rem}",
        *([radius] if radius else []),
        "</style></head>",
        f'<body data-build="{e(build_id)}">',
    ]
    switch = ""
    if language.others:
        links = "".join(f'<a href="{e(quote(name))}" hreflang="{e(lang)}" lang="{e(lang)}">{e(shown)}</a>'
                        for lang, shown, name in language.others)
        switch = f'<nav class="languages" aria-label="{e(language.words["languages"])}">{links}</nav>'
    parts.append(f'<header><h1>{e(title)}</h1><span class="status">{e(status)}</span>{switch}</header>')
    if error is not None:
        parts.append(f'<section class="error" role="alert"><h2>Build failed</h2><pre>{e(error)}</pre>'
                     f"<p>The cards below are from the last build that passed.</p></section>")
    parts.append('<main class="grid">')
    for card in cards:
        label = e(card.card_id)
        warn = " warn" if card.warnings else ""
        parts.append(f'<figure class="card{warn}" data-card="{label}" data-warnings="{len(card.warnings)}">'
                     f'<div class="faces">'
                     f'<img class="face front" loading="lazy" decoding="async" width="{w}" height="{h}" src="{e(card.front)}" alt="{label} front">'
                     f'<img class="face back" loading="lazy" decoding="async" width="{w}" height="{h}" src="{e(card.back)}" alt="{label} back">'
                     f"</div><figcaption>{label} <span class=\"name\">{e(card.name)}</span>")
        if card.warnings:
            parts.append('<ul class="warnings">' + "".join(f"<li>{e(text)}</li>" for text in card.warnings) + "</ul>")
        parts.append("</figcaption></figure>")
    parts.append("</main>")
    build_script = script_name(own_page(language))
    parts.append(
        "<script>(function(){var mine=document.body.dataset.build;"
        "window.cardgenBuilt=function(latest){if(latest!==mine){location.reload();}};"
        "setInterval(function(){var s=document.createElement('script');"
        f"s.src='{build_script}?t='+Date.now();s.onload=s.onerror=function(){{s.remove();}};"
        f"document.head.appendChild(s);}},{POLL_MS});}})();</script>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def own_page(language: PageLanguage) -> str:
    """The file name of the page in `language` (the first language's is preview.html): known from
    the other pages' names, since a switch lists every language but its own."""
    first_is_other = any(name == PAGE for _, _, name in language.others)
    return f"preview-{language.lang}.html" if first_is_other else PAGE


def script_name(page_file: str) -> str:
    """Each page's own build script (preview-build.js, preview-build-en.js): a page reloads only when
    a build of its own language is newer, never on a build of another."""
    return BUILD_SCRIPT if page_file == PAGE else BUILD_SCRIPT.replace(".js", page_file[len("preview"):-len(".html")] + ".js")


def write_page(base: Path, title: str, cards: Sequence[CardImages], error: str | None = None,
               size_px: tuple[int, int] | None = None, language: PageLanguage | None = None,
               rounded_mm: float | None = None, card_width_mm: float | None = None) -> Path:
    """Write the page (preview.html, or preview-<lang>.html for a game's other languages), then its
    build script naming it, so an open page reloads once the page is whole."""
    import json

    from .files import write_atomic

    name = own_page(language) if language is not None else PAGE
    look = dict(size_px=size_px, language=language, rounded_mm=rounded_mm, card_width_mm=card_width_mm)
    # The page's own digest names the build: the same cards and messages give the same files
    # (builds stay byte-identical), and anything new makes an open page reload.
    build_id = hashlib.sha1(page(title, cards, "", error, **look).encode("utf-8")).hexdigest()[:16]
    path = write_atomic(Path(base) / name, page(title, cards, build_id, error, **look).encode("utf-8"))
    write_atomic(Path(base) / script_name(name), f"cardgenBuilt({json.dumps(build_id)});\n".encode("utf-8"))
    return path


def write_preview(game, result, labels, png_dir: Path, renamed: Mapping[str, str], lang: str = "ja",
                  size_px: tuple[int, int] | None = None, rounded: float | None = None,
                  card_width_mm: float | None = None) -> list[CardImages]:
    """Write the preview of a build that wrote PNG faces into `png_dir`; return its cards (for an error page later)."""
    cards = card_images(game, labels, result.out_dir, png_dir, renamed, result.warnings, lang)
    write_page(result.out_dir, game.title.get(lang), cards, size_px=size_px, language=page_language(game, lang),
               rounded_mm=rounded, card_width_mm=card_width_mm)
    return cards
