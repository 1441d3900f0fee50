"""One row per physical card, for spreadsheets (CSV, xlsx) and scripts (JSON).

The CSV and xlsx tables are card lists a game folder can keep instead of cards.yaml
(io/spreadsheet.py reads them back): the same game, card for card.  A text that a spreadsheet
program would take for a formula (`=HYPERLINK(...)`, `+`, `-`, `@`, tab, CR) is written with a
quote before it (`spreadsheet.neutralise`), which the reader takes away again.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from .io.spreadsheet import COPY_COLUMN, ID_COLUMN, SHEET_NAME, TYPE_COLUMN, name_columns, neutralise, note_columns
from .model import Game, Text


def card_rows(game: Game) -> list[dict]:
    """Each card as a dict: id, type, name {ja, en}, then every field it carries by name."""
    rows = []
    for card in game.cards:
        row: dict = {"id": card.id, "type": card.type_id, "copy": card.copy, "name": card.name.as_dict()}
        for name in game.field_specs:
            if name in card.fields:
                value = card.fields[name]
                row[name] = value.as_dict() if isinstance(value, Text) else value
        rows.append(row)
    return rows


def to_json(game: Game) -> str:
    return json.dumps({"game": game.id, "cards": card_rows(game)}, ensure_ascii=False, indent=2)


def card_table(game: Game) -> tuple[list[str], list[list[Any]]]:
    """The header and one row per card; a bilingual value is two columns, `<field>_ja` and `<field>_en`.

    A type's note is repeated on each of its rows (the reader checks that they agree); a cell a
    card does not fill is None; a text is neutralised (never read as a formula).
    """
    notes = {t.id: t.note for t in game.card_types}
    languages = game.languages
    columns: list[str] = [ID_COLUMN, TYPE_COLUMN, COPY_COLUMN, *name_columns(languages)]
    with_notes = any(notes.values())
    if with_notes:
        columns += note_columns(languages)
    used = [(name, spec) for name, spec in game.field_specs.items() if any(name in card.fields for card in game.cards)]
    for name, spec in used:
        columns += [f"{name}_{lang}" for lang in languages] if spec.kind == "text" else [name]
    rows = []
    for card in game.cards:
        row: list[Any] = [card.id, card.type_id, card.copy, *(card.name.get(lang) for lang in languages)]
        if with_notes:
            note = notes[card.type_id]
            row += [note.get(lang) if note else None for lang in languages]
        for name, spec in used:
            value = card.fields.get(name)
            if spec.kind == "text":
                row += [value.get(lang) if value is not None else None for lang in languages]
            else:
                row.append(value)
        rows.append([neutralise(v) if isinstance(v, str) else v for v in row])
    return columns, rows


def to_csv(game: Game) -> str:
    columns, rows = card_table(game)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if v is None else ("true" if v is True else "false" if v is False else v) for v in row])
    return buffer.getvalue()


def to_xlsx(game: Game) -> bytes:
    """A workbook with the card list on its sheet `Cards` (header bold and frozen), values typed."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    columns, rows = card_table(game)
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = SHEET_NAME
    sheet.append(columns)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in rows:
        sheet.append(row)
    sheet.freeze_panes = "A2"
    for index, name in enumerate(columns, 1):
        longest = max([len(name)] + [len(str(r[index - 1])) for r in rows if r[index - 1] is not None])
        sheet.column_dimensions[sheet.cell(1, index).column_letter].width = min(60, max(6, longest + 2))
    # fixed metadata, so the same game exports to the same bytes
    import datetime

    fixed = datetime.datetime(2000, 1, 1)
    workbook.properties.created = workbook.properties.modified = fixed
    workbook.properties.creator = "cardgen"
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()
