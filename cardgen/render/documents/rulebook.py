"""Rulebooks: `output/<game>/<game>-rules-<lang>.pdf` from `card_data/<game>/rules.<lang>.md`.

The rules text is Markdown (CommonMark and tables, parsed by markdown-it-py; see `.markdown`) rendered through Jinja first, so that every number
comes from game.yaml (`{{ param('rounds') }}`) and every generated part comes from the card
data: `{{ component_list() }}`, `{{ card_table() }}`, `{{ card_details() }}`,
`{{ decisions() }}`, `{{ decision('id') }}`, `{{ figure('setup') }}`,
`{{ play_area_diagram() }}`, `{{ appendix() }}`, `{{ pagebreak() }}`.

What a rulebook sets: `#` chapters and `##` sections (numbered, in the table of contents and the
PDF outline), `###` subsections, paragraphs, `- ` bullets and `1. ` numbered items (indent two
spaces to nest), `> ` notes, `| tables |` with a `|---|` line under the header, and `**bold**`.
Raw HTML is printed as typed, never interpreted.

Paragraphs are laid out line by line with `cardgen.text.break_lines`, the same Japanese line
breaking (BudouX phrases and JIS X 4051 kinsoku) as the cards. Page settings and the words the
renderer prints itself are in `templates/rulebook/style.yaml` (a game folder may override them in
`templates/style.yaml`); the setup figures are vector drawings described in the game folder's
`templates/figures.yaml`, else the bundled `templates/rulebook/figures/<game>.yaml`.

The rules text, figures and style are untrusted: read through `cardgen.io.reader`, rendered in the
strict sandbox (`cardgen.io.sandbox`), every error a DataError at its file:line.
"""

from __future__ import annotations


from __future__ import annotations

import io
import secrets
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from reportlab.lib.pagesizes import A4, letter
from reportlab.lib.units import mm
from reportlab.platypus import CondPageBreak, Flowable, PageBreak, Spacer
from reportlab.platypus.doctemplate import LayoutError as _PlatypusLayoutError, PageTemplate
from reportlab.platypus.frames import Frame

from ...errors import DataError, Problem
from ...files import write_atomic
from ...fonts import register_fonts, string_width
from ...io import paths, sandbox
from ...io.reader import display_path, read_text
from ...langs import pdf_lang
from ...model import Game, Location
from ...text import mark_icons
from ..cards.icons import inline_known
from .directives import Directives, appendix_flowables
from .markdown import Block, MarkdownLimit, parse_markdown
from .page_template import _page_decorator
from .paragraph import Heading, TextBlock, TStyle, defined_terms, game_terms
from ... import words
from .style import LANGS, load_style, templates_dir, type_sizes
from .table import callout
from .toc import Contents, _DocTemplate

__all__ = ["LANGS", "TextBlock", "appendix_flowables", "build_rulebook", "load_style", "parse_markdown",
           "rulebook_path", "templates_dir", "write_rulebooks"]


def number_marker(written: str, level: int, lang: str) -> str:
    """The number of an ordered list item as printed: 1. at the outer level, then a style of its
    own for each level inside (Japanese （1） then ①, English a. then i.), so that a reader tells
    a step's sub-steps from the steps; `written` is the marker as the rules text has it ("3.")."""
    digits = written.rstrip(".)")
    if level == 0 or not digits.isdigit():
        return written
    n = int(digits)
    if level == 1:
        if lang == "ja":
            return f"（{n}）"
        return f"{chr(ord('a') + n - 1)}." if n <= 26 else written
    if lang == "ja":
        return chr(0x2460 + n - 1) if n <= 20 else f"（{n}）"
    roman = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"]
    return f"{roman[n - 1]}." if n <= len(roman) else written


class _Builder(Directives):
    """Turns one game's rules text into flowables."""

    def __init__(self, game: Game, lang: str) -> None:
        if lang not in game.languages:
            raise ValueError(f"language must be one of {', '.join(game.languages)}, not {lang!r}")
        self.game = game
        self.lang = lang
        self.style = load_style(game)
        self.labels = words.group("rulebook", lang, game)  # the one place of interface words
        self.fonts = register_fonts()
        fonts = self.style["fonts"]
        self.body_font, self.strong_font = fonts["body"], fonts["strong"]
        self.col = {k: tuple(v) for k, v in self.style["colours"].items()}
        self.types = type_sizes(self.style, lang)
        self.terms = game_terms(game, lang)
        self.directives: list[tuple[Callable[[], list[Flowable]], int]] = []  # (build, line in the rules text)
        self.nonce = secrets.token_hex(6)  # directive markers a rules text cannot forge
        self._rendering: Any = None  # the compiled rules text while it renders
        self._figures: dict | None = None
        self.decision_numbers = {d.id: n for n, d in enumerate(game.decisions, 1)}  # until the text is read
        self.inline_decisions: list[str] = []  # rulings the text prints where it calls them, in its order
        self.used_decisions_list = False
        self.counters = [0, 0, 0]
        self.keys = 0
        self.source_path = game.root / f"rules.{lang}.md"
        self.shown = display_path(self.source_path)

    # -- styles ----------------------------------------------------------------------------
    def ts(self, kind: str = "body", **kw: Any) -> TStyle:
        t = self.types[kind]
        base = TStyle(self.body_font, self.strong_font, float(t["size"]), float(t["leading"]), self.col["ink"],
                      compounds=self.terms, icons_of=self.game)
        return replace(base, **kw)

    # -- the text ---------------------------------------------------------------------------
    def render_source(self) -> str:
        """The rules text (read through the schema reader's text rules) rendered in the strict sandbox."""
        path = self.source_path
        if not path.is_file():
            raise DataError([Problem(Location(self.shown, 1, 1),
                                     f"the rules text is missing; write rules.{self.lang}.md (see cardgen/render/rulebook.py)")])
        paths.game_file(self.game, path.name, Location(self.shown, 1, 1), "rules text")  # no link out of the folder
        source = read_text(path, self.shown)
        origin = Location(self.shown, 1, 1)
        template = sandbox.compile_template(source, origin, "rules text")
        self._rendering = template
        try:
            # Each ruling is printed once and the book numbers them in reading order: those the text
            # prints where they apply first (D1, D2, ... as they come), then the list's. A first
            # rendering finds that order; the second prints it (a ref() may come before its ruling).
            sandbox.render(template, self.context(), origin, "rules text")
            called = list(self.inline_decisions)
            order = called + [d.id for d in self.game.decisions if d.id not in called]
            self.decision_numbers = {did: n for n, did in enumerate(order, 1)}
            self.directives.clear()
            self.inline_decisions.clear()
            return sandbox.render(template, self.context(), origin, "rules text")
        except (RuntimeError, LookupError) as exc:  # e.g. StopIteration turned RuntimeError in a generator
            raise DataError([sandbox.template_problem(exc, origin, "rules text")]) from None
        finally:
            self._rendering = None

    def flowables(self, frame_width: float) -> list[Flowable]:
        self.frame_width = frame_width
        text = self.render_source()
        self.terms = self.terms | defined_terms(text)  # a term the text sets in bold stays whole on a line
        try:
            blocks = parse_markdown(text, self.lang, self.nonce)
        except MarkdownLimit as exc:
            raise DataError([Problem(Location(self.shown, exc.line, 1), str(exc))]) from None
        story: list[Flowable] = self.cover()
        for i, block in enumerate(blocks):
            try:
                made = self.block(block)
                if made and _last_but_one_item(blocks, i):
                    made[-1].keepWithNext = True  # a list's last item never alone at the top of a page
                story.extend(made)
            except DataError:
                raise
            except sandbox.RUNTIME_ERRORS as exc:
                # A directive runs after the text is rendered (an undefined name passed to it fails only now);
                # its error is at the line that calls it; other blocks' lines are in the rendered text.
                line = self.directives[block.index][1] if block.kind == "directive" else block.line
                message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc) or type(exc).__name__
                raise DataError([Problem(Location(self.shown, line, 1),
                                         f"{message}; fix the rules text or the data")]) from None
        if self.game.decisions and not self.used_decisions_list:
            raise DataError([Problem(Location(self.shown, 1, 1),
                                     "the rules text never calls {{ decisions() }}: every decision in game.yaml must be printed")])
        return story

    def cover(self) -> list[Flowable]:
        g, L = self.game, self.labels
        out: list[Flowable] = [Spacer(1, 18 * mm)]
        out.append(TextBlock([(g.title.get(self.lang), True)], self.lang,
                             self.ts("title", align="center", color=self.col["accent"])))
        for other in [lang for lang in g.languages if lang != self.lang][:1]:  # the title in the game's other language, if any
            out.append(TextBlock(g.title.get(other), other, self.ts("h3", align="center", color=self.col["muted"], space_before=4)))
        facts = f"{L['players']} {self.players_text()}　／　{L['cards_total']} {L['cards_unit'].format(n=g.total)}" \
            if self.lang == "ja" else f"{L['players']}: {self.players_text()}   ·   {L['cards_total']}: {g.total}"
        out.append(TextBlock(facts, self.lang, self.ts("body", align="center", space_before=10, space_after=8)))
        if g.summary:
            out.append(TextBlock(g.summary.get(self.lang), self.lang,
                                 self.ts("body", left=14 * mm, right=14 * mm, space_after=10)))
        out.append(Spacer(1, 6 * mm))
        out.append(TextBlock([(L["contents"], True)], self.lang, self.ts("h2", color=self.col["accent"], space_after=4)))
        styles = {1: self.ts("body", space_before=3), 2: self.ts("small", left=14, space_before=1)}
        out.append(Contents(self.lang, styles))
        out.append(PageBreak())
        return out

    def block(self, block: Block) -> list[Flowable]:
        if block.kind == "directive":
            return self.directives[block.index][0]()
        block = self.with_icons(block)
        if block.kind == "heading":
            # Never leave a heading alone at the foot of a page: it needs room for a few lines.
            heading = self.heading(block.text, min(block.level, 3))
            room = heading.style.space_before + heading.style.leading * 2 + 4 * self.types["body"]["leading"]
            return [CondPageBreak(room), heading]
        if block.kind == "para":
            return [TextBlock(block.text, self.lang, self.ts("body", space_after=5))]
        if block.kind == "item":
            indent = 14.0 + 13.0 * block.level
            marker = block.marker
            if marker in ("-", "*"):
                bullet = "・" if self.lang == "ja" else "•"
                bw = self.types["body"]["size"] * (1.0 if self.lang == "ja" else 0.9)
            else:
                bullet = marker = number_marker(marker, block.level, self.lang)
                bw = string_width(marker, self.body_font, self.types["body"]["size"], self.lang) + 4
                bw = max(bw, 13.0)
                indent = max(indent, bw + 1 + 13.0 * block.level)
            return [TextBlock(block.text, self.lang, self.ts("body", left=indent, bullet_width=bw, space_after=2.5), bullet=bullet)]
        if block.kind == "note":
            inner = TextBlock(block.text, self.lang, self.ts("small"))
            t = callout([[inner]], [self.frame_width], self.strong_font, self.col["note_fill"], self.col["rule"],
                        bar_width=2, pad=(7, 6, 3.5, 3.5))
            t.spaceBefore, t.spaceAfter = 2, 6
            return [t]
        if block.kind == "table":
            rows = block.rows or [[]]
            aligns = block.marker.split(",") if block.marker else []
            aligns += ["left"] * (len(rows[0]) - len(aligns))
            t = self.table(rows, align=aligns)
            t.spaceBefore, t.spaceAfter = 2, 7
            return [t]
        raise ValueError(block.kind)

    def with_icons(self, block: Block) -> Block:
        """The block with its `:name:` inline icons marked; an unknown one fails at the block's line."""
        def mark(text: str) -> str:
            return mark_icons(text, lambda name: inline_known(self.game, name))

        rows = [[mark(cell) for cell in row] for row in block.rows] if block.rows else block.rows
        return replace(block, text=mark(block.text), rows=rows)

    def heading(self, text: str, level: int) -> Heading:
        if level == 1:
            self.counters = [self.counters[0] + 1, 0, 0]
            number = f"{self.counters[0]}."
        elif level == 2:
            self.counters[1] += 1
            number = f"{self.counters[0]}.{self.counters[1]}"
        else:
            number = ""
        if text.startswith("!"):  # "# !Appendix" : unnumbered
            text, number = text[1:].strip(), ""
            if level == 1:
                self.counters[0] -= 1
        self.keys += 1
        key = f"h{self.keys}"
        if level == 1:
            st = self.ts("h1", color=self.col["accent"], space_before=16, space_after=9)
            return Heading(text, self.lang, st, level, key, number, rule_color=self.col["accent"])
        if level == 2:
            return Heading(text, self.lang, self.ts("h2", color=self.col["accent"], space_before=10, space_after=4), level, key, number)
        return Heading(text, self.lang, self.ts("h3", space_before=6, space_after=2), level, key, number)


def _last_but_one_item(blocks: list[Block], i: int) -> bool:
    """blocks[i] is the last item but one of a list (of a run of items at any level)."""
    def item(j: int) -> bool:
        return j < len(blocks) and blocks[j].kind == "item"
    return item(i) and item(i + 1) and not item(i + 2)


# ============================================================================ public API

def build_rulebook(game: Game, lang: str, paper: str | None = None) -> bytes:
    """Render the rulebook of `game` in `lang` ("ja" or "en") as PDF bytes (byte-identical across runs).

    `paper` ("a4" or "letter", from `cardgen build --paper`) overrides the style's page size."""
    builder = _Builder(game, lang)
    style = builder.style
    page = style["page"]
    pagesize = {"A4": A4, "LETTER": letter}[str(paper or page.get("size", "A4")).upper()]
    buf = io.BytesIO()
    title = words.word("rulebook.document_title", lang, game, title=game.title.get(lang))
    doc = _DocTemplate(
        buf, pagesize=pagesize, invariant=1, pageCompression=1,
        leftMargin=page["margin_inner"] * mm, rightMargin=page["margin_outer"] * mm,
        topMargin=page["margin_top"] * mm, bottomMargin=page["margin_bottom"] * mm,
        title=title, author="cardgen", creator="cardgen", subject=game.title.get("en"),
        lang=pdf_lang(lang),
    )
    frame = Frame(doc.leftMargin, doc.bottomMargin, doc.width, doc.height, id="body",
                  leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0)
    decorate = _page_decorator(game.title.get(lang), builder.labels["page_of"], style, builder.fonts, lang)
    doc.addPageTemplates([PageTemplate(id="page", frames=[frame], onPage=decorate)])
    story = builder.flowables(doc.width)
    try:
        doc.build(story)
    except _PlatypusLayoutError as exc:
        raise DataError([Problem(Location(builder.shown, 1, 1),
                                 f"a block of the rules text does not fit on a page ({str(exc)[:200]}); "
                                 f"shorten the table or paragraph, or split it")]) from None
    return buf.getvalue()


def rulebook_path(game: Game, out_dir: str | Path, lang: str) -> Path:
    return Path(out_dir) / f"{game.id}-rules-{lang}.pdf"


def write_rulebooks(game: Game, out_dir: str | Path) -> list[Path]:
    """Write `<game>-rules-<lang>.pdf` for each of the game's languages into `out_dir` (output/<game>/)."""
    return [write_atomic(rulebook_path(game, out_dir, lang), build_rulebook(game, lang)) for lang in game.languages]
