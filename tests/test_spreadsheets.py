"""Card lists kept in cards.csv / cards.xlsx / cards.ods: they read back as the same game as
cards.yaml, every bad cell is named by sheet, row and column, and a hostile workbook is refused
before it can cost much memory or time."""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardgen.build import build_games, make_options
from cardgen.cli import cli
from cardgen.errors import DataError
from cardgen.export import to_csv, to_xlsx
from cardgen.io import limits
from cardgen.load import bundled_games_dir, load_game

from .conftest import BUNDLED


def as_spreadsheet(game_id: str, where: Path, fmt: str) -> Path:
    """A copy of a bundled game whose cards.yaml is replaced by its export in `fmt`."""
    folder = where / game_id
    shutil.copytree(bundled_games_dir() / game_id, folder)
    game = load_game(folder)
    (folder / "cards.yaml").unlink()
    if fmt == "xlsx":
        (folder / "cards.xlsx").write_bytes(to_xlsx(game))
    else:
        (folder / "cards.csv").write_text(to_csv(game), encoding="utf-8")
    return folder


def essence(game) -> tuple:
    """What a game's outputs depend on, without the positions its values were read from."""
    cards = tuple((c.id, c.type_id, c.copy, c.name, dict(c.fields)) for c in game.cards)
    types = tuple((t.id, t.name, t.count, t.note) for t in game.card_types)
    return cards, types, game.total


@pytest.mark.parametrize("fmt", ["xlsx", "csv"])
@pytest.mark.parametrize("game_id", BUNDLED)
def test_an_exported_card_list_reads_back_as_the_same_game(game_id, fmt, tmp_path):
    folder = as_spreadsheet(game_id, tmp_path, fmt)
    assert essence(load_game(folder)) == essence(load_game(game_id))


def test_building_from_the_xlsx_export_gives_the_same_pdfs(tmp_path):
    yaml_folder = tmp_path / "yaml" / "alice"
    shutil.copytree(bundled_games_dir() / "alice", yaml_folder)
    xlsx_folder = as_spreadsheet("alice", tmp_path / "xlsx", "xlsx")
    outputs = ("sheets", "shop", "rules", "playtest", "standard", "tuckbox")
    for folder, out in ((yaml_folder, tmp_path / "out-yaml"), (xlsx_folder, tmp_path / "out-xlsx")):
        build_games([load_game(folder)], make_options(out, outputs=outputs), workers=1)
    pdfs = sorted((tmp_path / "out-yaml" / "alice").glob("*.pdf"))
    assert len(pdfs) == 7
    for pdf in pdfs:
        assert pdf.read_bytes() == (tmp_path / "out-xlsx" / "alice" / pdf.name).read_bytes(), pdf.name


def test_export_xlsx_from_the_command_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["export", "llll", "--format", "xlsx"])
    assert result.exit_code == 0, result.output
    from python_calamine import CalamineWorkbook

    rows = CalamineWorkbook.from_path(str(tmp_path / "llll-cards.xlsx")).get_sheet_by_name("Cards").to_python()
    assert rows[0][:5] == ["id", "type", "copy", "name_ja", "name_en"]
    assert rows[1][:5] == ["LL01", "princess", 1, "姫", "Princess"] and len(rows) == 33


# --- a hand-written card list -------------------------------------------------------------------

GAME_YAML = """\
id: {id}
title: {{ja: テスト, en: Test}}
players: {{min: 2, max: 4}}
card_fields:
  power: {{type: int, min: 0, max: 9}}
  colour: {{type: enum, values: [red, blue]}}
  ability: {{type: text}}
  wild: {{type: bool}}
"""


def own_game(tmp_path: Path, name: str, text: str | None = None, rows: list[list] | None = None) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir(exist_ok=True)
    (folder / "game.yaml").write_text(GAME_YAML.format(id="mine"), encoding="utf-8")
    if text is not None:
        (folder / name).write_text(text, encoding="utf-8")
    else:
        from openpyxl import Workbook

        workbook = Workbook()
        sheet = workbook.active
        sheet.title = "Cards"
        for row in rows or []:
            sheet.append(row)
        workbook.save(folder / name)
    return folder


def problems(folder: Path) -> list[str]:
    with pytest.raises(DataError) as caught:
        load_game(folder)
    return [str(p) for p in caught.value.problems]


HEADER = ["type", "name_ja", "name_en", "count", "power", "colour", "ability_ja", "ability_en", "wild"]


def test_one_row_per_type_or_per_card(tmp_path):
    folder = own_game(tmp_path, "cards.xlsx", rows=[
        HEADER,
        ["hero", "英雄", "Hero", 2, 5, "red", "引く", "Draw", True],
        [],  # a blank row is skipped
        ["imp", "小鬼", "Imp", None, 1, "blue", None, None, "no"],
        ["imp", "小鬼", "Imp", None, 2, "blue", None, None, False],
    ])
    game = load_game(folder)
    assert [(c.id, c.fields) for c in game.cards] == [
        ("hero-1", {"power": 5, "colour": "red", "ability": game.cards[0].fields["ability"], "wild": True}),
        ("hero-2", {"power": 5, "colour": "red", "ability": game.cards[0].fields["ability"], "wild": True}),
        ("imp-1", {"power": 1, "colour": "blue", "wild": False}),
        ("imp-2", {"power": 2, "colour": "blue", "wild": False}),
    ]
    assert game.cards[0].fields["ability"].en == "Draw"
    imp = game.card_types[1]
    assert imp.count == 2 and dict(imp.fields) == {"colour": "blue", "wild": False}  # what both copies share
    assert str(game.cards[3].location).endswith("mine/cards.xlsx:Cards!A5")


def test_bad_cells_are_named_by_sheet_row_and_column(tmp_path):
    folder = own_game(tmp_path, "cards.xlsx", rows=[
        HEADER,
        ["hero", "英雄", "Hero", 1, 5, "red", "引く", "Draw", True],
        ["imp", "小鬼", "Imp", 1, "many", "green", "叫ぶ", None, "maybe"],
        ["elf", "エルフ", "Elf", 1, 12, "red", None, None, None],
    ])
    found = problems(folder)
    def at(cell: str) -> str:
        return next(p for p in found if re.search(rf"cards\.xlsx:Cards!{cell}: ", p))
    assert "whole number" in at("E3") and "'many'" in at("E3")
    assert "not one of: red, blue" in at("F3")
    assert "'en' text is missing" in at("H3")  # the empty ability_en cell, not the ability_ja beside it
    assert "true or false" in at("I3")
    assert "above the maximum 9" in at("E4")


def test_a_csv_cell_is_named_by_line_and_column(tmp_path):
    folder = own_game(tmp_path, "cards.csv", text="type,name_ja,name_en,power\nhero,英雄,Hero,5\nimp,小鬼,Imp,x\n")
    (found,) = problems(folder)
    assert re.search(r"cards\.csv:3:4: card type 'imp'\.power must be a whole number, got 'x'", found), found


def test_table_mistakes_are_explained(tmp_path):
    folder = own_game(tmp_path, "cards.csv", text="type,name_ja,name_en,speed,power,power\n")
    found = problems(folder)
    assert any(re.search(r"cards\.csv:1:4: unknown column 'speed'", p) for p in found)
    assert any(re.search(r"cards\.csv:1:6: column 'power' appears twice", p) for p in found)
    folder = own_game(tmp_path, "cards.csv", text="type;name_ja;name_en\nhero;英雄;Hero\n")
    assert any(re.search(r"cards\.csv:1:1: unknown column .*separated by ';'.*comma-separated", p) for p in problems(folder))
    folder = own_game(tmp_path, "cards.csv", text="type,name_ja,name_en,ability\nhero,英雄,Hero,x\n")
    assert any("ability_ja and ability_en" in p for p in problems(folder))
    folder = own_game(tmp_path, "cards.csv", text="type,name_ja,name_en\nhero,英雄,Hero\nimp,小鬼,Imp\nhero,英雄,Hero\n")
    assert any(re.search(r"cards\.csv:4:1: type 'hero' also has rows above.*keep the rows of one type together", p) for p in problems(folder))
    folder = own_game(tmp_path, "cards.csv", text="type,name_ja,name_en\nhero,英雄,Hero\nhero,英雄,Heroine\n")
    assert any(re.search(r"cards\.csv:3:3: type 'hero': name_en differs from row 2", p) for p in problems(folder))
    folder = own_game(tmp_path, "cards.csv", text="type,name_ja,name_en,count,id\nhero,英雄,Hero,2,H1\n")
    assert any(re.search(r"cards\.csv:2:5: an id names one card", p) for p in problems(folder))


def test_exactly_one_card_list(tmp_path):
    folder = own_game(tmp_path, "cards.csv", text="type,name_ja,name_en\nhero,英雄,Hero\n")
    (folder / "cards.yaml").write_text("total: 1\ntypes:\n  - {id: hero, name: {ja: 英雄, en: Hero}, count: 1}\n", encoding="utf-8")
    (found,) = problems(folder)
    assert "two card lists (cards.yaml and cards.csv); keep exactly one" in found
    (folder / "cards.yaml").unlink()
    (folder / "cards.csv").unlink()
    (found,) = problems(folder)
    assert "create cards.yaml (or keep the cards in cards.csv, cards.xlsx or cards.ods)" in found


# --- hostile workbooks --------------------------------------------------------------------------

def rewrite_member(path: Path, member: str, edit) -> None:
    with zipfile.ZipFile(path) as source:
        parts = {info.filename: source.read(info) for info in source.infolist()}
    parts[member] = edit(parts[member])
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in parts.items():
            target.writestr(name, data)


def test_a_formula_gives_its_saved_value_and_is_never_evaluated(tmp_path):
    folder = own_game(tmp_path, "cards.xlsx", rows=[["type", "name_ja", "name_en", "power"], ["hero", "英雄", "placeholder", 3]])
    # what a spreadsheet program saves for a formula: the formula and its last value
    rewrite_member(folder / "cards.xlsx", "xl/worksheets/sheet1.xml", lambda xml: re.sub(
        rb'<c r="C2" t="\w+">.*?</c>', b'<c r="C2" t="str"><f>WEBSERVICE("http://127.0.0.1:9/")&amp;"x"</f><v>Hero</v></c>', xml))
    rewrite_member(folder / "cards.xlsx", "xl/worksheets/sheet1.xml", lambda xml: re.sub(
        rb'<c r="D2"( t="n")?><v>3</v></c>', b'<c r="D2"><f>1+1</f><v>7</v></c>', xml))
    game = load_game(folder)
    assert game.cards[0].name.en == "Hero"
    assert game.cards[0].fields["power"] == 7  # the saved value, not 1+1


def test_a_cell_far_away_is_refused_before_reading(tmp_path):
    folder = own_game(tmp_path, "cards.xlsx", rows=[["type", "name_ja", "name_en"], ["hero", "英雄", "Hero"]])
    rewrite_member(folder / "cards.xlsx", "xl/worksheets/sheet1.xml", lambda xml: xml.replace(
        b"</sheetData>", b'<row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t>x</t></is></c></row></sheetData>'))
    (found,) = problems(folder)
    assert "uses cells up to row 1,048,576, column 16,384" in found and f"{limits.MAX_SHEET_ROWS:,} rows" in found


def test_a_zip_bomb_is_refused_at_the_unpacked_limit(tmp_path):
    folder = own_game(tmp_path, "cards.xlsx", rows=[["type", "name_ja", "name_en"], ["hero", "英雄", "Hero"]])
    padding = b" " * (limits.MAX_UNPACKED_BYTES + 1024)
    rewrite_member(folder / "cards.xlsx", "xl/worksheets/sheet1.xml", lambda xml: xml.replace(b"<sheetData>", b"<sheetData>" + padding))
    assert (folder / "cards.xlsx").stat().st_size < limits.MAX_FILE_BYTES  # small on disk, huge unpacked
    (found,) = problems(folder)
    assert "unpacks to more than" in found


def test_a_file_over_the_size_limit_is_refused(tmp_path):
    folder = own_game(tmp_path, "cards.csv", text="type,name_ja,name_en\n" + "hero,英雄,Hero\n" * 10)
    with (folder / "cards.csv").open("a", encoding="utf-8") as handle:
        handle.write("#" * limits.MAX_FILE_BYTES)
    (found,) = problems(folder)
    assert "more than the limit of" in found


def test_too_many_rows_are_refused(tmp_path):
    folder = own_game(tmp_path, "cards.csv", text="type,name_ja,name_en\n" + "hero,英雄,Hero\n" * (limits.MAX_SHEET_ROWS + 1))
    (found,) = problems(folder)
    assert f"more than {limits.MAX_SHEET_ROWS:,} rows" in found


def ods(path: Path, rows_xml: str) -> None:
    """A minimal OpenDocument spreadsheet with one sheet `Cards`."""
    content = ('<?xml version="1.0" encoding="UTF-8"?><office:document-content '
               'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
               'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
               'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body>'
               f'<office:spreadsheet><table:table table:name="Cards">{rows_xml}</table:table></office:spreadsheet>'
               '</office:body></office:document-content>')
    manifest = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
                'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
                '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
                '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>')
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet", compress_type=zipfile.ZIP_STORED)
        archive.writestr("META-INF/manifest.xml", manifest, compress_type=zipfile.ZIP_DEFLATED)
        archive.writestr("content.xml", content, compress_type=zipfile.ZIP_DEFLATED)


def cells(*values: object) -> str:
    out = ""
    for v in values:
        if isinstance(v, int):
            out += f'<table:table-cell office:value-type="float" office:value="{v}"><text:p>{v}</text:p></table:table-cell>'
        else:
            out += f'<table:table-cell office:value-type="string"><text:p>{v}</text:p></table:table-cell>'
    return f"<table:table-row>{out}</table:table-row>"


def test_an_ods_card_list(tmp_path):
    folder = own_game(tmp_path, "cards.csv", text="")
    (folder / "cards.csv").unlink()
    empty_tail = '<table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>'
    ods(folder / "cards.ods", cells("type", "name_ja", "name_en", "count", "power") + cells("hero", "英雄", "Hero", 3, 4)
        + cells("imp", "小鬼", "Imp", 1, "x") + empty_tail)
    (found,) = problems(folder)
    assert re.search(r"cards\.ods:Cards!E3: card type 'imp'\.power must be a whole number, got 'x'", found), found
    ods(folder / "cards.ods", cells("type", "name_ja", "name_en", "count", "power") + cells("hero", "英雄", "Hero", 3, 4) + empty_tail)
    game = load_game(folder)
    assert [c.id for c in game.cards] == ["hero-1", "hero-2", "hero-3"] and game.cards[0].fields == {"power": 4}


def test_an_ods_repeat_bomb_is_refused_before_reading(tmp_path):
    folder = own_game(tmp_path, "cards.csv", text="")
    (folder / "cards.csv").unlink()
    bomb = ('<table:table-row table:number-rows-repeated="1000000"><table:table-cell table:number-columns-repeated="16000" '
            'office:value-type="string"><text:p>x</text:p></table:table-cell></table:table-row>')
    ods(folder / "cards.ods", cells("type", "name_ja", "name_en") + bomb)
    (found,) = problems(folder)
    assert "uses cells up to row 1,000,001, column 16,000" in found


def test_a_sweep_overrides_a_spreadsheet_card_list_as_it_does_cards_yaml(tmp_path):
    from cardgen.analysis.overrides import GameSource

    folder = as_spreadsheet("alice", tmp_path, "xlsx")
    override = {"cards.red_place.count": 3}
    assert essence(GameSource(folder).build(override, check=False)) == essence(GameSource("alice").build(override, check=False))
    assert GameSource(folder).build(override, check=False).total == load_game("alice").total - 1


def test_cells_without_references_count_towards_the_width(tmp_path):
    folder = own_game(tmp_path, "cards.xlsx", rows=[["type", "name_ja", "name_en"], ["hero", "英雄", "Hero"]])
    wide = b'<row r="3">' + b'<c t="inlineStr"><is><t>x</t></is></c>' * (limits.MAX_SHEET_COLUMNS + 1) + b"</row>"
    rewrite_member(folder / "cards.xlsx", "xl/worksheets/sheet1.xml", lambda xml: xml.replace(b"</sheetData>", wide + b"</sheetData>"))
    (found,) = problems(folder)
    assert f"column {limits.MAX_SHEET_COLUMNS + 1}" in found


@pytest.mark.parametrize("damage", ["truncated", "not a zip", "bad deflate"])
def test_a_damaged_workbook_is_a_message(tmp_path, damage):
    folder = own_game(tmp_path, "cards.xlsx", rows=[["type", "name_ja", "name_en"], ["hero", "英雄", "Hero"]])
    data = (folder / "cards.xlsx").read_bytes()
    if damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "not a zip":
        data = b"type,name_ja,name_en\n"
    else:  # flip bytes inside the compressed sheet, leaving the zip's directory readable
        start = data.index(b"xl/worksheets/sheet1.xml") + 60
        data = data[:start] + bytes(b ^ 0x5A for b in data[start:start + 40]) + data[start + 40:]
    (folder / "cards.xlsx").write_bytes(data)
    (found,) = problems(folder)
    assert "cards.xlsx" in found and ("workbook" in found or "damaged" in found)
