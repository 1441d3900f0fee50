"""One row per physical card, for spreadsheets (CSV) and scripts (JSON)."""

from __future__ import annotations

import csv
import io
import json

from .model import Game, Text


def card_rows(game: Game) -> list[dict]:
    """Each card as a dict: id, type, name {ja, en}, then every field it carries by name."""
    rows = []
    for card in game.cards:
        row: dict = {"id": card.id, "type": card.type_id, "copy": card.copy, "name": {"ja": card.name.ja, "en": card.name.en}}
        for name in game.field_specs:
            if name in card.fields:
                value = card.fields[name]
                row[name] = {"ja": value.ja, "en": value.en} if isinstance(value, Text) else value
        rows.append(row)
    return rows


def to_json(game: Game) -> str:
    return json.dumps({"game": game.id, "cards": card_rows(game)}, ensure_ascii=False, indent=2)


def to_csv(game: Game) -> str:
    """Bilingual values become two columns, `<field>_ja` and `<field>_en`."""
    rows = card_rows(game)
    columns: list[str] = ["id", "type", "copy", "name_ja", "name_en"]
    for name, spec in game.field_specs.items():
        if not any(name in row for row in rows):
            continue
        columns += [f"{name}_ja", f"{name}_en"] if spec.kind == "text" else [name]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        flat = {}
        for key, value in row.items():
            if isinstance(value, dict):
                flat[f"{key}_ja"], flat[f"{key}_en"] = value["ja"], value["en"]
            else:
                flat[key] = value
        writer.writerow(flat)
    return buffer.getvalue()
