"""Playtest kit: score and record sheets, a feedback form and a token sheet, as one PDF.

What each game's sheets hold is data (`templates/<game>/playtest.yaml`); the feedback form
is shared (`templates/common/feedback.yaml`). Numbers on the sheets (rounds, bonus tables,
ending scores) come from the game's parameters, so they follow the rules when those change.
"""

from __future__ import annotations

import io
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import yaml
from reportlab.lib.units import mm

from ..errors import CardgenError
from ..io.paths import package_root
from ..model import Game
from .pages import INK, MARGIN, PAGE_W, RULE, PageWriter, text_of


def template_file(game: Game, name: str) -> Path:
    """templates/<game>/<name> beside the game's card_data/, else the bundled one (may not exist)."""
    from .layout import templates_dirs

    candidates = [base / game.id / name for base in templates_dirs(game)]
    return next((path for path in candidates if path.is_file()), candidates[-1])


def load_spec(path: Path) -> dict:
    try:
        with path.open(encoding="utf-8") as handle:
            spec = yaml.safe_load(handle)
    except FileNotFoundError:
        raise CardgenError(f"{path}: missing; create it to describe this game's playtest sheets") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise CardgenError(f"{where}: YAML syntax error ({getattr(exc, 'problem', exc)}); fix it") from None
    if not isinstance(spec, dict):
        raise CardgenError(f"{path}:1:1: must be a mapping with 'sheets' and optional 'tokens'")
    return spec


def resolve_count(game: Game, value: Any) -> int:
    """A count in a spec: a number, 'players' (the most players), or a rule parameter name."""
    if isinstance(value, int):
        return value
    if value == "players":
        return game.max_players
    number = game.param(value)
    if not isinstance(number, int):
        raise CardgenError(f"{game.id}: playtest count '{value}' must name a whole-number parameter")
    return number


def has_playtest(game: Game) -> bool:
    return template_file(game, "playtest.yaml").is_file()


def build_playtest(game: Game, lang: str) -> bytes:
    """Render the playtest kit of `game` in `lang` and return the PDF bytes."""
    spec = load_spec(template_file(game, "playtest.yaml"))
    feedback = load_spec(package_root() / "templates" / "common" / "feedback.yaml")
    buffer = io.BytesIO()
    title = {"ja": "プレイテスト・キット", "en": "Playtest kit"}[lang]
    writer = PageWriter.create(buffer, game, lang, title)
    first = True
    for sheet in spec.get("sheets", []):
        if not first:
            writer.new_page()
        first = False
        writer.heading(text_of(sheet["title"], lang))
        for block in sheet.get("blocks", []):
            _draw_block(writer, game, lang, block)
    writer.new_page()
    _draw_feedback(writer, lang, feedback)
    if spec.get("tokens"):
        writer.new_page()
        _draw_tokens(writer, game, lang, spec["tokens"])
    _draw_draft_deck(writer, game, lang, spec.get("draft", {}))
    writer.finish()
    return buffer.getvalue()


_JINJA = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)


@lru_cache(maxsize=512)
def _template(source: str) -> jinja2.Template:
    return _JINJA.from_string(source)


def _text(game: Game, value: Any, lang: str, **values: Any) -> str:
    """A sheet text in `lang`, rendered with Jinja like layouts and rulebooks: {{ param('rounds') }}, {{ n }}."""
    source = text_of(value, lang)
    if "{" not in source:
        return source
    try:
        return _template(source).render(param=game.param, game=game, **values)
    except (jinja2.TemplateError, KeyError) as exc:
        raise CardgenError(f"templates/{game.id}/playtest.yaml: text {source!r}: {exc}; "
                           "use {{ param('name') }} with a parameter from game.yaml, or {{ n }} in a numbered label") from None


def _labels(game: Game, lang: str, rows: Any) -> list[str]:
    if isinstance(rows, list):
        return [_text(game, r, lang) for r in rows]
    count = resolve_count(game, rows["count"])
    return [_text(game, rows["label"], lang, n=n) for n in range(1, count + 1)]


def _draw_block(writer: PageWriter, game: Game, lang: str, block: dict, **values: Any) -> None:
    if "text" in block:
        writer.paragraph(_text(game, block["text"], lang, **values))
    elif "grid" in block:
        _draw_grid(writer, game, lang, block["grid"], **values)
    elif "param_table" in block:
        table = block["param_table"]
        if table.get("title"):
            writer.heading(_text(game, table["title"], lang, **values), size=11)
        headers = [_text(game, h, lang) for h in table["columns"]]
        rows = [[_cell(game, lang, entry, key) for key in table["keys"]] for entry in game.param(table["param"])]
        writer.grid(headers, rows, row_height=6.5 * mm)
    elif "repeat" in block:
        count = resolve_count(game, block["repeat"]["count"])
        for n in range(1, count + 1):
            for inner in block["repeat"]["blocks"]:
                _draw_block(writer, game, lang, inner, n=n)
    else:
        raise CardgenError(f"{game.id}: playtest block {sorted(block)} is unknown; use text, grid, param_table or repeat")


def _cell(game: Game, lang: str, entry: Any, key: str) -> str:
    value = entry.get(key, "") if isinstance(entry, dict) else entry
    if isinstance(value, dict):
        return text_of(value, lang)
    return "" if value is None else str(value)


def _draw_grid(writer: PageWriter, game: Game, lang: str, grid: dict, **values: Any) -> None:
    if grid.get("title"):
        writer.heading(_text(game, grid["title"], lang, **values), size=11)
    row_labels = _labels(game, lang, grid["rows"])
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
                row_height=float(grid.get("row_height_mm", 7.5)) * mm)


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
            c.drawString(MARGIN + 4 * mm, writer.y - 6 * mm, low)
            x0 = MARGIN + 48 * mm
            for i in range(scale):
                x = x0 + i * 14 * mm
                c.setStrokeColorRGB(*RULE)
                c.circle(x, writer.y - 5 * mm, 2.6 * mm, stroke=1, fill=0)
                c.drawCentredString(x, writer.y - 10.5 * mm, str(i + 1))
            c.drawString(x0 + scale * 14 * mm - 4 * mm, writer.y - 6 * mm, high)
            writer.y -= 15 * mm
        else:
            lines = int(question.get("lines", 3))
            c.setStrokeColorRGB(*RULE)
            c.setLineWidth(0.4)
            for _ in range(lines):
                writer.y -= 8 * mm
                c.line(MARGIN + 4 * mm, writer.y, PAGE_W - MARGIN, writer.y)
            writer.y -= 5 * mm


def _draw_tokens(writer: PageWriter, game: Game, lang: str, tokens: list[dict]) -> None:
    """Round tokens to cut out, packed in rows; each kind says its value and caption."""
    writer.heading({"ja": "チップ・トークンシート", "en": "Chips and tokens"}[lang])
    writer.paragraph({"ja": "厚紙に印刷して切り抜いてください。",
                      "en": "Print on card stock and cut out."}[lang])
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
                c.drawCentredString(cx, cy - diameter * 0.08, label)
                c.setFont(writer.font, diameter * 0.16)
                c.drawCentredString(cx, cy - diameter * 0.33, caption)
            writer.y -= diameter + 2 * mm
        writer.y -= 3 * mm


# Same cards, text only and grayscale, for playtests between versions; a front page is followed
# by its back page (long-edge duplex) when the game has cards with their own backs.
DRAFT_WORDS = {
    "title": {"ja": "ドラフト版デッキ（低インク）", "en": "Draft deck (low ink)"},
    "front": {"ja": "表", "en": "fronts"},
    "back": {"ja": "裏", "en": "backs"},
}


def _field_lines(game: Game, lang: str, card, names: list[str]) -> list[str]:
    lines = []
    for name in names:
        value = card.fields.get(name)
        if value is None or value == "":
            continue
        spec = game.field_specs[name]
        label = spec.label.get(lang) if spec.label else name
        shown = text_of(value, lang) if spec.kind == "text" else str(value)
        lines.append(f"{label}: {shown}")
    return lines


def _draw_draft_deck(writer: PageWriter, game: Game, lang: str, draft: dict) -> None:
    """Text-only grayscale cards from the data, imposed like the home sheets (fronts, then own backs)."""
    from ..text import fit_text
    from .card import card_size_mm
    from .sheet import compute_layout

    back_fields = [name for name in draft.get("back_fields", []) if name in game.field_specs]
    front_fields = [name for name in game.field_specs if name not in back_fields]
    card_w, card_h = card_size_mm(game)
    layout = compute_layout("a4", card_w, card_h)
    c = writer.canvas
    cards = list(game.cards)
    for first in range(0, len(cards), layout.per_sheet):
        sheet = cards[first: first + layout.per_sheet]
        has_backs = back_fields and any(_field_lines(game, lang, card, back_fields) for card in sheet)
        for side in ("front", "back") if has_backs else ("front",):
            writer.new_page()
            c.setFont(writer.font, 7)
            side_word = DRAFT_WORDS["back"][lang] if side == "back" else DRAFT_WORDS["front"][lang]
            c.drawCentredString(105 * mm, 8 * mm, f"{DRAFT_WORDS['title'][lang]} — {side_word}")  # beside the page footer
            for slot, card in enumerate(sheet):
                x, y = layout.front_position(slot) if side == "front" else layout.back_position(slot, "long")
                fields = front_fields if side == "front" else back_fields
                title = card.name.get(lang) + ({"ja": "（裏）", "en": " (back)"}[lang] if side == "back" else "")
                c.setStrokeColorRGB(0.6, 0.6, 0.6)
                c.setLineWidth(0.4)
                c.rect(x * mm, y * mm, card_w * mm, card_h * mm, stroke=1, fill=0)
                c.setFillColorRGB(0.1, 0.1, 0.1)
                c.setFont(writer.font, 6.5)
                c.drawRightString((x + card_w - 3) * mm, (y + card_h - 5) * mm, card.id)
                c.setFont(writer.font, 10)
                c.drawString((x + 3) * mm, (y + card_h - 9) * mm, title)
                body = "\n".join(_field_lines(game, lang, card, fields))
                fitted = fit_text(body, writer.font, (card_w - 6) * mm, (card_h - 15) * mm, 7.5, 4.5, lang)
                c.setFillColorRGB(0.25, 0.25, 0.25)
                c.setFont(writer.font, fitted.size)
                line_y = (y + card_h - 13) * mm - fitted.size
                for line in fitted.lines:
                    c.drawString((x + 3) * mm, line_y, line)
                    line_y -= fitted.leading
