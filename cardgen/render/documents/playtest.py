"""Playtest kit: score and record sheets, a feedback form and a token sheet, as one PDF.

What each game's sheets hold is data (`<game folder>/templates/playtest.yaml`, else the bundled
`templates/<game>/playtest.yaml`), read through the schema reader with a declared shape; texts
render in the sandbox. The feedback form is shared (`templates/common/feedback.yaml`). Numbers on the sheets (rounds, bonus tables,
ending scores) come from the game's parameters, so they follow the rules when those change.
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

import yaml
from reportlab.lib.units import mm

from ...errors import DataError, Problem
from ...fonts import draw_string
from ...io import paths, sandbox
from ...io.reader import SchemaReader, construct_scalar, display_path, where
from ...langs import LANGUAGES, SUPPORTED
from ...io.schema import Anything, Int, List, Map, Num, OneOf, Spec, Str, Text, validate
from ... import words
from ...model import Game, Location
from .pages import INK, MARGIN, RULE, PageWriter, text_of

# --- the shapes of the spec files ----------------------------------------------------------------

TEXT = OneOf((Text(), Str()))  # {ja: .., en: ..} or one string for both
LABEL = OneOf((Text(), Str(), Map({"ja": OneOf((Str(), Int())), "en": OneOf((Str(), Int()))}),
               Map({"ja": Anything(), "en": Anything()})))  # a text that may be empty ({ja: "", en: ""})
COUNT = OneOf((Int(0, 1000), Str()))  # a number, 'players' or a whole-number rule parameter
GRID = Map({
    "title": TEXT, "label_header": LABEL, "label_width": Num(0.1, 20),
    "rows": OneOf((List(TEXT, max_items=200), Map({"count": COUNT, "label": LABEL}))),
    "per_player": Map({"count": COUNT, "label": LABEL}, optional={"count"}),
    "columns": List(TEXT, min_items=1, max_items=50), "widths": List(Num(0.05, 20), max_items=50),
    "row_height_mm": Num(3, 50), "total": LABEL,
}, optional={"title", "label_header", "label_width", "per_player", "widths", "row_height_mm", "total"})
PARAM_TABLE = Map({"title": TEXT, "param": Str(), "columns": List(TEXT, min_items=1, max_items=50),
                   "keys": List(Str(), min_items=1, max_items=50)}, optional={"title"})
TOKEN = Map({"name": TEXT, "label": OneOf((Str(), Int())), "count": COUNT, "diameter_mm": Num(5, 100), "caption": TEXT,
             "rgb": List(Num(0, 1), min_items=3, max_items=3)}, optional={"diameter_mm", "caption", "rgb"})
DRAFT = Map({"back_fields": List(Str(), max_items=100)}, optional={"back_fields"})
FEEDBACK = Map({
    "title": TEXT, "intro": TEXT, "scale": Int(2, 10),
    "questions": List(Map({"kind": Str(("lines", "scale")), "lines": Int(1, 20), "text": TEXT, "low": TEXT, "high": TEXT},
                          optional={"lines", "low", "high"}), max_items=50),
}, optional={"scale"})
BLOCK_KINDS = ("text", "grid", "param_table", "repeat")
MAX_REPEAT_DEPTH = 4
MAX_ITEMS = 2_000  # rows, tokens or repeated blocks one count may ask for


class At(str):
    """A string of a spec file that remembers where it is written (for template errors)."""

    at: Location


def _located(node: yaml.Node) -> Any:
    """Plain values of a node already validated, with every string an `At` carrying its position."""
    if isinstance(node, yaml.MappingNode):
        return {str(k.value): _located(v) for k, v in node.value}
    if isinstance(node, yaml.SequenceNode):
        return [_located(item) for item in node.value]
    value = construct_scalar(node)
    if isinstance(value, str):
        located = At(value)
        located.at = where(node)
        return located
    return value


def _block(r: SchemaReader, node: yaml.Node, what: str, depth: int = 0) -> None:
    """Check one sheet block: exactly one of text, grid, param_table or repeat."""
    entries = r.mapping(node, what, set(), set(BLOCK_KINDS))
    if entries is None:
        return
    if len(entries) != 1:
        r.error(node, f"{what} must have exactly one of: {', '.join(BLOCK_KINDS)}")
        return
    kind, (_, value) = next(iter(entries.items()))
    if kind == "text":
        validate(r, value, TEXT, f"{what}.text")
    elif kind == "grid":
        validate(r, value, GRID, f"{what}.grid")
    elif kind == "param_table":
        validate(r, value, PARAM_TABLE, f"{what}.param_table")
    else:
        rep = r.mapping(value, f"{what}.repeat", {"count", "blocks"}, {"count", "blocks"})
        if rep is None:
            return
        if "count" in rep:
            validate(r, rep["count"][1], COUNT, f"{what}.repeat.count")
        if "blocks" in rep:
            if depth >= MAX_REPEAT_DEPTH:
                r.error(value, f"{what}: repeats nest more than {MAX_REPEAT_DEPTH} deep; flatten them")
                return
            for i, inner in enumerate(r.sequence(rep["blocks"][1], f"{what}.repeat.blocks", 100) or [], 1):
                _block(r, inner, f"{what}.repeat.blocks[{i}]", depth + 1)


def _check_sheets(r: SchemaReader, node: yaml.Node, what: str) -> None:
    top = r.mapping(node, what, {"sheets"}, {"sheets", "tokens", "draft"})
    if top is None:
        return
    for i, sheet in enumerate(r.sequence(top["sheets"][1], "sheets", 100) or [] if "sheets" in top else [], 1):
        entries = r.mapping(sheet, f"sheets[{i}]", {"title"}, {"title", "blocks"})
        if entries is None:
            continue
        if "title" in entries:
            validate(r, entries["title"][1], TEXT, f"sheets[{i}].title")
        if "blocks" in entries:
            for j, block in enumerate(r.sequence(entries["blocks"][1], f"sheets[{i}].blocks", 200) or [], 1):
                _block(r, block, f"sheets[{i}].blocks[{j}]")
    if "tokens" in top:
        validate(r, top["tokens"][1], List(TOKEN, max_items=50), "tokens")
    if "draft" in top:
        validate(r, top["draft"][1], DRAFT, "draft")


def read_spec(path: Path, check: Any, what: str, languages: tuple[str, ...] = LANGUAGES,
              optional: tuple[str, ...] = ()) -> dict:
    """Read a spec file through the schema reader and check its shape (a Spec, or a function
    `check(reader, node, what)`); DataError listing every problem at its file:line:column. Its
    texts are in `languages` (a game's: exactly its own), and may be in `optional` ones too."""
    r = SchemaReader(languages, optional)
    node = r.read(path)
    if node is not None:
        if isinstance(check, Spec):
            validate(r, node, check, what)
        else:
            check(r, node, what)
    r.raise_if_any()
    assert node is not None
    return _located(node)


def spec_file(game: Game, name: str) -> Path | None:
    """The game's `name` (playtest.yaml, report.yaml): `<game>/templates/<name>`, else the bundled one."""
    return paths.game_template(game, name)


def load_spec(game: Game, name: str, check: Any, what: str) -> dict:
    path = spec_file(game, name)
    if path is None:
        raise DataError([Problem(Location(display_path(game.root / paths.GAME_TEMPLATES / name), 1, 1),
                                 f"missing; create it to describe this game's {what}")])
    return read_spec(path, check, what, game.languages)


ROUND_COUNTS = ("most_rounds", "players_in_round")  # counts the game's engine answers (rounds_by_players)


def rounds_by_players(game: Game, at: Any = None) -> dict[int, int]:
    """Rounds the game lasts for each player count, from its engine (`rounds_by_players(game)`)."""
    from ...registry import game_engine

    rules_class = game_engine(game)
    answer = rules_class.rounds_by_players if rules_class is not None else None
    if answer is None:
        raise DataError([Problem(at, "counts 'most_rounds' and 'players_in_round' need an engine that knows how many "
                                     "rounds each player count plays; use a number or a rule parameter instead")])
    return answer(game)


def resolve_count(game: Game, value: Any, n: int | None = None) -> int:
    """A count in a spec: a number, 'players' (the most players), a whole-number rule parameter,
    'most_rounds' (the longest game any player count plays) or, inside a repeat over rounds,
    'players_in_round' (the most players whose game reaches round n)."""
    at = getattr(value, "at", None)
    if isinstance(value, int) and not isinstance(value, bool):
        number: Any = value
    elif value == "players":
        number = game.max_players
    elif value == "most_rounds":
        number = max(rounds_by_players(game, at).values())
    elif value == "players_in_round":
        if n is None:
            raise DataError([Problem(at, "count 'players_in_round' belongs inside a repeat over the rounds")])
        number = max([p for p, rounds in rounds_by_players(game, at).items() if rounds >= n] or [0])
    else:
        number = game.parameters.get(str(value))
        if not isinstance(number, int) or isinstance(number, bool):
            raise DataError([Problem(at, f"count '{value}' must be a number, 'players', 'most_rounds', 'players_in_round' "
                                         f"or the name of a whole-number rule parameter in game.yaml")])
    if not 0 <= number <= MAX_ITEMS:
        raise DataError([Problem(at, f"count '{value}' is {number}, outside 0..{MAX_ITEMS}; use a smaller number")])
    return number


def has_playtest(game: Game) -> bool:
    return spec_file(game, "playtest.yaml") is not None


def load_playtest(game: Game) -> tuple[dict, dict]:
    """The game's playtest spec and the feedback form, read and checked (what `check` and `build` both read)."""
    spec = load_spec(game, "playtest.yaml", _check_sheets, "playtest sheets")
    feedback_path = paths.shared_template(game, "common/feedback.yaml")
    if feedback_path is None:
        raise DataError("the feedback form templates/common/feedback.yaml is missing; reinstall cardgen")
    # the shared form is in every language cardgen ships words for (ja and en at least)
    return spec, read_spec(feedback_path, FEEDBACK, "feedback form", LANGUAGES,
                           tuple(lang for lang in SUPPORTED if lang not in LANGUAGES))


def build_playtest(game: Game, lang: str, paper: str = "a4") -> bytes:
    """Render the playtest kit of `game` in `lang` on `paper` (a4 or letter) and return the PDF bytes."""
    spec, feedback = load_playtest(game)
    buffer = io.BytesIO()
    title = words.word("playtest.title", lang, game)
    writer = PageWriter.create(buffer, game, lang, title, paper)
    first = True
    for sheet in spec.get("sheets", []):
        if not first:
            writer.new_page()
        first = False
        _draw_sheet(writer, game, lang, sheet, _row_scale(game, lang, sheet, paper))
    writer.new_page()
    _draw_feedback(writer, lang, feedback)
    if spec.get("tokens"):
        writer.new_page()
        _draw_tokens(writer, game, lang, spec["tokens"])
    _draw_draft_deck(writer, game, lang, spec.get("draft", {}))
    writer.finish()
    return buffer.getvalue()


# Rows grow up to this much so that a sheet uses its last page (taller boxes are easier to
# write in); a sheet never gains a page by it.
MAX_ROW_SCALE = 1.8


def _draw_sheet(writer: PageWriter, game: Game, lang: str, sheet: dict, scale: float = 1.0) -> None:
    writer.heading(_text(game, sheet["title"], lang))
    for block in sheet.get("blocks", []):
        _draw_block(writer, game, lang, block, scale=scale)


def _scratch(game: Game, lang: str, paper: str) -> PageWriter:
    """A writer on a throwaway canvas of the same paper, for measuring what a block takes."""
    writer = PageWriter.create(io.BytesIO(), game, lang, "", paper)
    writer.draws = False
    return writer


def _row_scale(game: Game, lang: str, sheet: dict, paper: str) -> float:
    """The largest row scale (up to MAX_ROW_SCALE) at which the sheet takes no more pages than
    at 1, found by drawing it on scratch pages (bisection; page breaks are not linear)."""
    def pages(scale: float) -> int:
        scratch = _scratch(game, lang, paper)
        _draw_sheet(scratch, game, lang, sheet, scale)
        return scratch.page

    least = pages(1.0)
    if pages(MAX_ROW_SCALE) == least:
        return MAX_ROW_SCALE
    low, high = 1.0, MAX_ROW_SCALE
    for _ in range(4):  # within 0.05 of the best scale
        middle = (low + high) / 2
        low, high = (middle, high) if pages(middle) == least else (low, middle)
    return low


def _keep_together(writer: PageWriter, game: Game, lang: str, draw: Any, keep: bool = True) -> None:
    """Draw `draw(writer, keep)` where it fits whole: measured first on a scratch page, then a new
    page is started unless the rest of this one holds it (a block taller than a page keeps at
    least its heading, its head row and a few rows together, which the grid itself ensures).
    Inside a block that fits (`keep` False) nothing needs measuring again."""
    if not keep:
        draw(writer, False)
        return
    scratch = _scratch(game, lang, writer.paper)
    top = scratch.y
    draw(scratch, False)
    fits = scratch.page == 1
    writer.ensure(top - scratch.y if fits else 40 * mm)
    if fits and not writer.draws:
        # a block that fits takes the same room wherever it starts: a measuring writer only moves on
        writer.y -= top - scratch.y
        return
    draw(writer, not fits)


def _source(value: Any, lang: str) -> str:
    """The text of a spec value in `lang`, keeping its position (an `At`) when it has one."""
    if isinstance(value, dict):
        chosen = value.get(lang, value.get("en", ""))
        return chosen if isinstance(chosen, str) else "" if chosen is None else str(chosen)
    return value if isinstance(value, str) else str(value)


def _text(game: Game, value: Any, lang: str, **values: Any) -> str:
    """A sheet text in `lang`, rendered in the sandbox like layouts and rulebooks: {{ param('rounds') }}, {{ n }}."""
    source = _source(value, lang)
    if "{" not in source:
        return str(source)
    at = getattr(source, "at", None) or Location("playtest.yaml", 1, 1)
    context = {"param": game.param, "game": game, "lang": lang, **values}
    return sandbox.render(source, context, at, "playtest text")


def _labels(game: Game, lang: str, rows: Any, n: int | None = None) -> list[str]:
    if isinstance(rows, list):
        return [_text(game, r, lang) for r in rows]
    count = resolve_count(game, rows["count"], n)
    return [_text(game, rows["label"], lang, n=row) for row in range(1, count + 1)]


def _draw_block(writer: PageWriter, game: Game, lang: str, block: dict, scale: float = 1.0, keep: bool = True,
                **values: Any) -> None:
    """One block of a sheet; a grid or table is kept on one page with its title, and so is each
    repetition of a repeat (a round's heading never sits alone at the foot of a page)."""
    if "text" in block:
        writer.paragraph(_text(game, block["text"], lang, **values))
    elif "grid" in block:
        _keep_together(writer, game, lang, lambda w, _k: _draw_grid(w, game, lang, block["grid"], scale, **values), keep)
    elif "param_table" in block:
        _keep_together(writer, game, lang, lambda w, _k: _draw_param_table(w, game, lang, block["param_table"], **values),
                       keep)
    elif "repeat" in block:
        count = resolve_count(game, block["repeat"]["count"], values.get("n"))
        inner = block["repeat"]["blocks"]
        for n in range(1, count + 1):
            _keep_together(writer, game, lang, lambda w, k, n=n: [_draw_block(w, game, lang, b, scale, k, **{**values, "n": n})
                                                                  for b in inner], keep)


def _draw_param_table(writer: PageWriter, game: Game, lang: str, table: dict, **values: Any) -> None:
    """A table of a list parameter (link bonuses, endings), for reference while scoring."""
    if table.get("title"):
        writer.heading(_text(game, table["title"], lang, **values), size=11)
    headers = [_text(game, h, lang) for h in table["columns"]]
    entries = game.parameters.get(str(table["param"]))
    if not isinstance(entries, list):
        raise DataError([Problem(getattr(table["param"], "at", None),
                                 f"param_table: '{table['param']}' must name a rule parameter in game.yaml that is a list")])
    rows = [[_cell(game, lang, entry, key) for key in table["keys"]] for entry in entries[:MAX_ITEMS]]
    writer.grid(headers, rows, row_height=6.5 * mm)


def _cell(game: Game, lang: str, entry: Any, key: str) -> str:
    value = entry.get(key, "") if isinstance(entry, dict) else entry
    if isinstance(value, dict):
        return text_of(value, lang)
    return "" if value is None else str(value)


def _draw_grid(writer: PageWriter, game: Game, lang: str, grid: dict, scale: float = 1.0, **values: Any) -> None:
    if grid.get("title"):
        writer.heading(_text(game, grid["title"], lang, **values), size=11)
    row_labels = _labels(game, lang, grid["rows"], values.get("n"))
    if grid.get("total"):
        row_labels.append(_text(game, grid["total"], lang, **values))
    columns = [_text(game, c, lang) for c in grid["columns"]]
    label_header = text_of(grid.get("label_header", ""), lang)
    groups = None
    if "per_player" in grid:
        players = resolve_count(game, grid["per_player"].get("count", "players"))
        headers = [label_header] + columns * players
        groups = [("", 1)] + [(_text(game, grid["per_player"]["label"], lang, n=n), len(columns))
                              for n in range(1, players + 1)]
        widths = [grid.get("label_width", 1.4)] + [1.0] * (len(columns) * players)
    else:
        headers = [label_header] + columns
        widths = [grid.get("label_width", 1.4)] + [float(w) for w in grid.get("widths", [1.0] * len(columns))]
    rows = [[label] + [""] * (len(headers) - 1) for label in row_labels]
    writer.grid(headers, rows, widths=widths, group_headers=groups,
                row_height=float(grid.get("row_height_mm", 7.5)) * mm * scale)


def _draw_feedback(writer: PageWriter, lang: str, feedback: dict) -> None:
    writer.heading(text_of(feedback["title"], lang))
    writer.paragraph(text_of(feedback["intro"], lang))
    scale = feedback.get("scale", 5)
    for question in feedback["questions"]:
        writer.ensure(22 * mm)
        writer.paragraph(text_of(question["text"], lang), size=10, gap=1)
        c = writer.canvas
        if question.get("kind") == "scale":
            low, high = text_of(question["low"], lang), text_of(question["high"], lang)
            c.setFont(writer.font, 8)
            c.setFillColorRGB(*INK)
            draw_string(c, MARGIN + 4 * mm, writer.y - 6 * mm, low, lang)
            x0 = MARGIN + 48 * mm
            for i in range(scale):
                x = x0 + i * 14 * mm
                c.setStrokeColorRGB(*RULE)
                c.circle(x, writer.y - 5 * mm, 2.6 * mm, stroke=1, fill=0)
                draw_string(c, x, writer.y - 10.5 * mm, str(i + 1), lang, "centre")
            draw_string(c, x0 + scale * 14 * mm - 4 * mm, writer.y - 6 * mm, high, lang)
            writer.y -= 15 * mm
        else:
            lines = int(question.get("lines", 3))
            c.setStrokeColorRGB(*RULE)
            c.setLineWidth(0.4)
            for _ in range(lines):
                writer.y -= 8 * mm
                c.line(MARGIN + 4 * mm, writer.y, writer.page_w - MARGIN, writer.y)
            writer.y -= 5 * mm


def _draw_tokens(writer: PageWriter, game: Game, lang: str, tokens: list[dict]) -> None:
    """Round tokens to cut out, packed in rows; each kind says its value and caption."""
    writer.heading(words.word("playtest.tokens", lang, game))
    writer.paragraph(words.word("playtest.tokens_intro", lang, game))
    c = writer.canvas
    for token in tokens:
        diameter = float(token.get("diameter_mm", 16)) * mm
        count = resolve_count(game, token["count"])
        caption = text_of(token.get("caption", ""), lang)
        label = str(token["label"])
        writer.heading(f"{text_of(token['name'], lang)} × {count}", size=11)
        per_row = max(1, int((writer.width + 2 * mm) // (diameter + 2 * mm)))
        for row in range(math.ceil(count / per_row)):
            writer.ensure(diameter + 2 * mm)
            for col in range(min(per_row, count - row * per_row)):
                cx = MARGIN + diameter / 2 + col * (diameter + 2 * mm)
                cy = writer.y - diameter / 2
                c.setStrokeColorRGB(*INK)
                c.setLineWidth(0.6)
                c.setFillColorRGB(*token.get("rgb", (1, 1, 1)))
                c.circle(cx, cy, diameter / 2, stroke=1, fill=1)
                c.setFillColorRGB(*INK)
                c.setFont(writer.font, diameter * 0.42)
                draw_string(c, cx, cy - diameter * 0.08, label, lang, "centre")
                c.setFont(writer.font, diameter * 0.16)
                draw_string(c, cx, cy - diameter * 0.33, caption, lang, "centre")
            writer.y -= diameter + 2 * mm
        writer.y -= 3 * mm


# Same cards, text only and grayscale, for playtests between versions; a front page is followed
# by its back page (long-edge duplex) when the game has cards with their own backs.


def _field_lines(game: Game, lang: str, card, names: list[str]) -> list[str]:
    lines = []
    for name in names:
        value = card.fields.get(name)
        if value is None or value == "":
            continue
        lines.append(words.word("common.field_value", lang, game, label=words.field_label(game, name, lang),
                                value=words.field_value(game, name, value, lang)))
    return lines


def _draw_draft_deck(writer: PageWriter, game: Game, lang: str, draft: dict) -> None:
    """Text-only grayscale cards from the data, imposed like the home sheets (fronts, then own backs)."""
    if game.decks and game.deck is None:  # each declared deck on sheets of its own card size
        for view in game.deck_views():
            _draw_draft_deck(writer, view, lang, draft)
        return
    from ...text import fit_text
    from ..cards.card import card_size_mm
    from ..print.sheet import compute_layout

    back_fields = [name for name in draft.get("back_fields", []) if name in game.field_specs]
    front_fields = [name for name in game.field_specs if name not in back_fields]
    card_w, card_h = card_size_mm(game)
    layout = compute_layout(writer.paper, card_w, card_h)
    c = writer.canvas
    cards = list(game.cards)
    for first in range(0, len(cards), layout.per_sheet):
        sheet = cards[first: first + layout.per_sheet]
        has_backs = back_fields and any(_field_lines(game, lang, card, back_fields) for card in sheet)
        for side in ("front", "back") if has_backs else ("front",):
            writer.new_page()
            c.setFont(writer.font, 7)
            side_word = words.word("playtest.draft_backs" if side == "back" else "playtest.draft_fronts", lang, game)
            draw_string(c, writer.page_w / 2, 8 * mm, f"{words.word('playtest.draft_title', lang, game)} — {side_word}", lang, "centre")  # beside the page footer
            for slot, card in enumerate(sheet):
                x, y = layout.front_position(slot) if side == "front" else layout.back_position(slot, "long")
                fields = front_fields if side == "front" else back_fields
                title = words.word("playtest.back_title", lang, game, name=card.name.get(lang)) if side == "back" else card.name.get(lang)
                c.setStrokeColorRGB(0.6, 0.6, 0.6)
                c.setLineWidth(0.4)
                c.rect(x * mm, y * mm, card_w * mm, card_h * mm, stroke=1, fill=0)
                c.setFillColorRGB(0.1, 0.1, 0.1)
                if game.numbered:  # a card number the cards print; a generated id (sun-1) is internal
                    c.setFont(writer.font, 6.5)
                    draw_string(c, (x + card_w - 3) * mm, (y + card_h - 5) * mm, card.id, lang, "right")
                c.setFont(writer.font, 10)
                draw_string(c, (x + 3) * mm, (y + card_h - 9) * mm, title, lang)
                body = "\n".join(_field_lines(game, lang, card, fields))
                fitted = fit_text(body, writer.font, (card_w - 6) * mm, (card_h - 15) * mm, 7.5, 4.5, lang)
                c.setFillColorRGB(0.25, 0.25, 0.25)
                c.setFont(writer.font, fitted.size)
                line_y = (y + card_h - 13) * mm - fitted.size
                for line in fitted.lines:
                    draw_string(c, (x + 3) * mm, line_y, line, lang)
                    line_y -= fitted.leading
