"""Card lists kept in a spreadsheet: `cards.csv`, `cards.xlsx` or `cards.ods` instead of `cards.yaml`.

The first non-empty row names the columns, as `cardgen export` writes them: `type`, `name_ja`,
`name_en`, then one column per card field (`<field>_ja`/`<field>_en` for a `text` field), and
optionally `count` (copies of the row; empty means 1), `id` (a card's own id), `note_ja`/`note_en`
and `copy` (written by export, ignored when read: copies are numbered in row order). Each later
row is one card, or `count` cards; the rows of one type stand together and share its name.

The table becomes the same YAML node tree a `cards.yaml` would give, each value marked with its
cell, so the loader checks it with the same code and every problem names its cell:
`cards.xlsx:Cards!C7: ...` (`cards.csv:7:3` for CSV: line and column). xlsx and ods are read with
python-calamine, which returns the values a spreadsheet program last saved for formulas and never
evaluates one; the file's size, its unpacked size and the extent of its cells are bounded before
calamine sees it (`limits.py`).
"""

from __future__ import annotations

import csv
import io
import re
import zlib
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any, Iterable

import yaml

from ..errors import DataError, Problem
from ..langs import LANGUAGES
from ..model import FieldSpec, Location
from . import limits
from .paths import folder_file
from .reader import display_path, read_text

CARD_LISTS = ("cards.yaml", "cards.csv", "cards.xlsx", "cards.ods")
SHEET_NAME = "Cards"  # the sheet export writes and the reader prefers; otherwise the first sheet

# Columns that are not card fields.
TYPE_COLUMN, COUNT_COLUMN, ID_COLUMN, COPY_COLUMN = "type", "count", "id", "copy"
NAME_COLUMNS = tuple(f"name_{lang}" for lang in LANGUAGES)  # of a game in the default languages
NOTE_COLUMNS = tuple(f"note_{lang}" for lang in LANGUAGES)


def name_columns(languages: Iterable[str]) -> tuple[str, ...]:
    return tuple(f"name_{lang}" for lang in languages)


def note_columns(languages: Iterable[str]) -> tuple[str, ...]:
    return tuple(f"note_{lang}" for lang in languages)

# What a damaged or hostile zip can raise while it is opened or unpacked (with zipfile's own two:
# zipfile and ElementTree are imported where a workbook is read, as most games hold cards.yaml).
_ZIP_ERRORS = (zlib.error, OSError, EOFError, RuntimeError, ValueError, NotImplementedError, KeyError)

_STR, _INT, _BOOL, _MAP, _SEQ = ("tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:bool",
                                 "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq")
_WHOLE = re.compile(r"^[+-]?[0-9]+$")
# A text cell a spreadsheet program could run as a formula starts with one of these (OWASP's
# CSV-injection guidance); `cardgen export` writes such a cell with a quote before it, and the reader
# takes exactly that quote away again.  A text that already starts with quotes and then one of these
# gets one more quote, so a text the writer never touched is read back unchanged.
_FORMULA_STARTS = "=+-@\t\r"
_NEUTRALISED = re.compile("^'+[" + re.escape(_FORMULA_STARTS) + "]")
_TRUE, _FALSE = {"true", "yes"}, {"false", "no"}


def card_list_path(root: Path) -> Path:
    """The game's one card list: cards.yaml, .csv, .xlsx or .ods; DataError for none or several."""
    found = [root / name for name in CARD_LISTS if (root / name).exists() or (root / name).is_symlink()]
    if not found:
        raise DataError([Problem(Location(display_path(root / "cards.yaml"), 1, 1),
                                 "file is missing; create cards.yaml (or keep the cards in cards.csv, cards.xlsx or cards.ods)")])
    if len(found) > 1:
        names = " and ".join(p.name for p in found)
        raise DataError([Problem(Location(display_path(found[1]), 1, 1),
                                 f"the game has two card lists ({names}); keep exactly one and delete or rename the other")])
    return folder_file(root, found[0].name)


# --- where a cell is ------------------------------------------------------------------------------

def column_letters(column: int) -> str:
    """1 -> A, 27 -> AA: a column as spreadsheets name it."""
    letters = ""
    while column > 0:
        column, rest = divmod(column - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


@dataclass(frozen=True)
class CellLocation(Location):
    """A cell of a workbook sheet, shown as spreadsheets name it: `cards.xlsx:Cards!C7`."""

    sheet: str = ""

    def __str__(self) -> str:
        return f"{self.path}:{self.sheet}!{column_letters(self.column)}{self.line}"


class _CellMark(yaml.Mark):
    """A YAML mark that carries its cell, so `reader.where` reports the cell, not a line."""

    def __init__(self, location: Location):
        super().__init__(location.path, -1, location.line - 1, location.column - 1, None, None)
        self.location = location


# --- reading the table ----------------------------------------------------------------------------

@dataclass
class _Table:
    rows: list[tuple[int, list[Any]]]  # (1-based row number, cell values)
    at: Any  # (row, column) -> Location

    def where(self, row: int, column: int) -> Location:
        return self.at(row, column)


def _read_csv(path: Path, shown: str) -> _Table:
    text = read_text(path, shown)
    rows: list[tuple[int, list[Any]]] = []
    reader = csv.reader(text.splitlines(keepends=True), strict=True)
    start = 1
    try:
        for record in reader:
            _bound_rows(len(rows) + 1, Location(shown, start, 1))
            if len(record) > limits.MAX_SHEET_COLUMNS:
                raise DataError([Problem(Location(shown, start, limits.MAX_SHEET_COLUMNS + 1),
                                         f"row has {len(record)} columns, more than the limit of {limits.MAX_SHEET_COLUMNS}; delete the extra ones")])
            rows.append((start, record))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise DataError([Problem(Location(shown, reader.line_num, 1), f"not readable as CSV ({exc}); check the quotes on this line")]) from None
    return _Table(rows, lambda row, column: Location(shown, row, column))


def _bound_rows(count: int, at: Location) -> None:
    if count > limits.MAX_SHEET_ROWS:
        raise DataError([Problem(at, f"the sheet has more than {limits.MAX_SHEET_ROWS:,} rows, the limit; one row per card type or card is enough")])


def _check_workbook_extent(path: Path, shown: str) -> None:
    """Refuse, before calamine unpacks it, a workbook that unpacks too large or spreads its cells too far.

    calamine holds a sheet as a dense grid from its first to its last used cell, so one value at
    row 1,000,000 would cost a million rows of memory. calamine finds a sheet through the
    workbook's relationships, matching part names loosely (any case, either slash), so rather
    than guess which part it will read, every part that holds sheet data is scanned, with an XML
    parser (attributes quoted either way, as XML allows), in one linear pass that stops at the
    first cell beyond the limits; at most MAX_UNPACKED_BYTES are unpacked in all.
    """
    import zipfile

    zip_errors = (zipfile.BadZipFile, zipfile.LargeZipFile, *_ZIP_ERRORS)
    at = Location(shown, 1, 1)
    try:
        archive = zipfile.ZipFile(path)
    except zip_errors as exc:
        raise DataError([Problem(at, f"not a readable {path.suffix} workbook ({exc}); save it again from the spreadsheet program")]) from None
    with archive:
        members = archive.infolist()
        if len(members) > 1_000:
            raise DataError([Problem(at, f"the workbook holds {len(members):,} parts; save it again from the spreadsheet program")])
        budget = limits.MAX_UNPACKED_BYTES
        too_big = DataError([Problem(at, f"the workbook unpacks to more than {limits.MAX_UNPACKED_BYTES:,} bytes, the limit; "
                                         f"keep only the card list in it")])
        for member in members:
            if member.flag_bits & 0x1:  # zipfile would say "File <ZipInfo ...> is encrypted"
                raise DataError([Problem(at, "the workbook is protected with a password; save it again without one")])
            if member.file_size > budget:
                raise too_big
            try:  # every part is unpacked here, bounded, as a part's declared size may lie
                with archive.open(member) as stream:
                    data = stream.read(budget + 1)
            except zip_errors as exc:
                raise DataError([Problem(at, f"the workbook is damaged ({exc}); save it again from the spreadsheet program")]) from None
            if len(data) > budget:
                raise too_big
            budget -= len(data)
            if _holds(data, b"sheetData"):
                rows, columns = _xlsx_extent(data, at)
            elif _holds(data, b"table-row"):
                rows, columns = _ods_extent(data, at)
            else:
                continue
            if rows > limits.MAX_SHEET_ROWS or columns > limits.MAX_SHEET_COLUMNS:
                raise DataError([Problem(at, f"a sheet uses cells up to row {rows:,}, column {columns:,}; the limit is "
                                             f"{limits.MAX_SHEET_ROWS:,} rows and {limits.MAX_SHEET_COLUMNS} columns: "
                                             f"delete what lies beyond the card list")])


def _holds(data: bytes, word: bytes) -> bool:
    """Whether an XML part names `word`, in UTF-8 or UTF-16 (either byte order)."""
    return word in data or word.decode().encode("utf-16-le") in data


_CELL_REF = re.compile(r"^\$?([A-Za-z]{1,7})\$?([0-9]{1,12})$")
_ROW_REF = re.compile(r"^[0-9]{1,12}$")


def _local(name: str) -> str:
    return name.rsplit("}", 1)[-1]


def _xlsx_extent(data: bytes, at: Location) -> tuple[int, int]:
    """The last row and column a sheet part's cells reach, as calamine counts them: a cell's `r`
    (`C7`), else one past the previous cell of its row, in the row of its `<row r=>` (else one
    past the previous row). Stops at the first cell beyond the limits."""
    from xml.etree import ElementTree

    rows = columns = 0
    row = column = 0
    depth_in_data = 0  # >0 inside a <sheetData>
    try:
        for event, element in ElementTree.iterparse(io.BytesIO(data), events=("start", "end")):
            name = _local(element.tag)
            if event == "end":
                if name == "sheetData":
                    depth_in_data -= 1
                if name in ("row", "sheetData"):
                    element.clear()  # keep memory flat however many rows
                continue
            if name == "sheetData":
                depth_in_data += 1
                row = 0
            elif not depth_in_data:
                continue
            elif name == "row":
                ref = element.get("r")
                if ref is None:
                    row += 1
                elif _ROW_REF.match(ref):
                    row = int(ref)
                else:
                    raise _bad_reference(at, "row", ref)
                column = 0
            elif name == "c":
                ref = element.get("r")
                if ref is None:
                    column += 1
                else:
                    match = _CELL_REF.match(ref)
                    if match is None:
                        raise _bad_reference(at, "cell", ref)
                    column = 0
                    for letter in match.group(1).upper():
                        column = column * 26 + ord(letter) - ord("A") + 1
                    row = max(row, int(match.group(2)))
                rows, columns = max(rows, row), max(columns, column)
                if rows > limits.MAX_SHEET_ROWS or columns > limits.MAX_SHEET_COLUMNS:
                    break
    except ElementTree.ParseError as exc:
        raise DataError([Problem(at, f"the workbook is damaged ({exc}); save it again from the spreadsheet program")]) from None
    return rows, columns


def _bad_reference(at: Location, what: str, ref: str) -> DataError:
    return DataError([Problem(at, f"the workbook is damaged (a {what} is named {ref[:20]!r}, not a {what} reference); "
                                  f"save it again from the spreadsheet program")])


_ODS_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_ODS_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"


def _ods_extent(data: bytes, at: Location) -> tuple[int, int]:
    """The last row and column holding a value, with `number-*-repeated` counted as ods means it."""
    from xml.etree import ElementTree

    rows = columns = 0
    row = 0
    try:
        for event, element in ElementTree.iterparse(io.BytesIO(data), events=("start", "end")):
            tag = element.tag
            if event == "start" and tag == f"{_ODS_TABLE}table":
                row = 0
            elif event == "end" and tag == f"{_ODS_TABLE}table-row":
                repeat = _repeat(element, "number-rows-repeated")
                column = 0
                last = 0
                for cell in element:
                    span = _repeat(cell, "number-columns-repeated")
                    column += span
                    if cell.get(f"{_ODS_OFFICE}value-type") is not None or len(cell):
                        last = column
                if last:
                    rows = max(rows, row + repeat)
                    columns = max(columns, last)
                row += repeat
                element.clear()
    except ElementTree.ParseError as exc:
        raise DataError([Problem(at, f"the workbook is damaged ({exc}); save it again from the spreadsheet program")]) from None
    return rows, columns


def _repeat(element: Any, name: str) -> int:
    value = element.get(f"{_ODS_TABLE}{name}", "1")
    return int(value) if value.isdigit() and len(value) < 10 else 10**9


def _read_workbook(path: Path, shown: str) -> _Table:
    from python_calamine import CalamineError, CalamineWorkbook

    at = Location(shown, 1, 1)
    read_size_checked(path, shown)
    _check_workbook_extent(path, shown)
    try:
        workbook = CalamineWorkbook.from_path(str(path))
        names = list(workbook.sheet_names)
        if not names:
            raise DataError([Problem(at, "the workbook has no sheet; put the card list on a sheet named Cards")])
        name = SHEET_NAME if SHEET_NAME in names else names[0]
        sheet = workbook.get_sheet_by_name(name)
        values = sheet.to_python(skip_empty_area=False, nrows=limits.MAX_SHEET_ROWS + 1)
    except CalamineError as exc:
        raise DataError([Problem(at, f"not a readable {path.suffix} workbook ({exc}); save it again from the spreadsheet program")]) from None
    except (OSError, ValueError, TypeError) as exc:
        raise DataError([Problem(at, f"not a readable {path.suffix} workbook ({exc}); save it again from the spreadsheet program")]) from None
    except BaseException as exc:  # a panic inside calamine reaches Python as pyo3's PanicException (a BaseException)
        if type(exc).__name__ != "PanicException":
            raise
        raise DataError([Problem(at, f"not a readable {path.suffix} workbook ({exc}); save it again from the spreadsheet program")]) from None
    _bound_rows(len(values), at)
    return _Table([(index, list(row)) for index, row in enumerate(values, 1)],
                  lambda row, column: CellLocation(shown, row, column, name))


def read_size_checked(path: Path, shown: str) -> None:
    at = Location(shown, 1, 1)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise DataError([Problem(at, f"cannot read the file ({exc.strerror or exc}); check that it exists and is readable")]) from None
    if not path.is_file():
        raise DataError([Problem(at, "file is missing or not a regular file")])
    if size > limits.MAX_FILE_BYTES:
        raise DataError([Problem(at, f"file is {size:,} bytes, more than the limit of {limits.MAX_FILE_BYTES:,}; split or shorten it")])


# --- cells to YAML nodes --------------------------------------------------------------------------

def neutralise(text: str) -> str:
    """`text` as export writes it into a cell: with a quote before it when a spreadsheet program
    could take it for a formula (see `_FORMULA_STARTS`); `restore` undoes exactly this."""
    if text.lstrip("'")[:1] in tuple(_FORMULA_STARTS):
        return "'" + text
    return text


def restore(text: str) -> str:
    """The text `neutralise` was given: one leading quote taken away when quotes lead to a formula character."""
    return text[1:] if _NEUTRALISED.match(text) else text


def _text_of(value: Any) -> str:
    """A cell as the text a person sees: 3.0 -> '3', True -> 'true', '' for an empty cell."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, timedelta):
        return str(value)
    return restore(value) if isinstance(value, str) else str(value)


def _scalar(value: Any, kind: str, at: Location) -> yaml.ScalarNode:
    """The node a YAML file would hold for this cell in a column of `kind` (int, bool, or text)."""
    text = _text_of(value)
    tag = _STR
    if kind == "int" and _WHOLE.match(text.strip()):
        text, tag = text.strip(), _INT
    elif kind == "bool" and (isinstance(value, bool) or text.strip().lower() in _TRUE | _FALSE):
        text, tag = ("true" if (value is True or text.strip().lower() in _TRUE) else "false"), _BOOL
    return yaml.ScalarNode(tag, text, _CellMark(at), _CellMark(at))


def _mapping(pairs: Iterable[tuple[str, yaml.Node]], at: Location) -> yaml.MappingNode:
    mark = _CellMark(at)
    return yaml.MappingNode(_MAP, [(yaml.ScalarNode(_STR, key, mark, mark), value) for key, value in pairs], mark, mark)


@dataclass
class _Column:
    index: int  # 0-based position in the row
    name: str


def read_cards(path: Path, specs: dict[str, FieldSpec], id_format: str | None = None,
               languages: tuple[str, ...] = LANGUAGES) -> yaml.MappingNode:
    """The card list in `path` as the node tree of an equivalent cards.yaml; DataError for a table problem.

    An `id` cell that holds the id the card would get anyway (`id_format`, else `<type>-<copy>`; as
    export writes it) is not made the card's own, so inserting a row renumbers the cards after it
    as it would in cards.yaml.
    """
    name_cols, note_cols = name_columns(languages), note_columns(languages)  # the game's languages
    shown = display_path(path)
    table = _read_csv(path, shown) if path.suffix == ".csv" else _read_workbook(path, shown)
    rows = [(number, cells) for number, cells in table.rows if any(_text_of(c).strip() for c in cells)]
    if not rows:
        raise DataError([Problem(table.where(1, 1), f"the card list is empty; write a header row ({TYPE_COLUMN}, "
                                                    f"{', '.join(name_cols)}, {COUNT_COLUMN}, fields ...) and one row per card type")])
    header_row, header = rows[0]
    columns, problems = _columns(table, header_row, header, specs, languages)
    if problems:
        raise DataError(problems)
    by_name = {c.name: c for c in columns}

    def cell(cells: list[Any], name: str) -> Any:
        column = by_name.get(name)
        return cells[column.index] if column is not None and column.index < len(cells) else None

    def at(row: int, name: str) -> Location:
        return table.where(row, by_name[name].index + 1)

    # group the rows by type, in order; the rows of one type must stand together
    groups: list[tuple[str, list[tuple[int, list[Any]]]]] = []
    seen: dict[str, int] = {}
    for number, cells in rows[1:]:
        type_id = _text_of(cell(cells, TYPE_COLUMN)).strip()
        if not type_id:
            problems.append(Problem(at(number, TYPE_COLUMN), "the type is empty; name the card type of this row"))
            continue
        if groups and groups[-1][0] == type_id:
            groups[-1][1].append((number, cells))
            continue
        if type_id in seen:
            problems.append(Problem(at(number, TYPE_COLUMN), f"type '{type_id}' also has rows above, ending at row {seen[type_id]}; "
                                                             f"keep the rows of one type together"))
            continue
        groups.append((type_id, [(number, cells)]))
        seen[type_id] = number
    for type_id, members in groups:
        seen[type_id] = members[-1][0]
    if problems:
        raise DataError(problems)

    field_columns = [(spec, [c for c in columns if _field_of(c.name, specs, languages) == spec.name]) for spec in specs.values()]

    def field_node(cells: list[Any], number: int, spec: FieldSpec, cols: list[_Column]) -> yaml.Node | None:
        if spec.kind == "text":
            present = [(c.name.rsplit("_", 1)[1], cells[c.index] if c.index < len(cells) else None, c) for c in cols]
            empty = [c for lang, v, c in present if not _text_of(v).strip()]
            present = [(lang, v, c) for lang, v, c in present if _text_of(v).strip()]
            if not present:
                return None
            # a missing language is reported at the text, so the text sits at the empty cell that lacks it
            return _mapping(((lang, _scalar(v, "str", table.where(number, c.index + 1))) for lang, v, c in present),
                            table.where(number, (empty or [present[0][2]])[0].index + 1))
        value = cells[cols[0].index] if cols[0].index < len(cells) else None
        if not _text_of(value).strip():
            return None
        return _scalar(value, spec.kind, table.where(number, cols[0].index + 1))

    type_nodes = []
    total = 0
    position = 0  # cards so far, as cards.yaml numbers them for id_format
    physical = 0  # the sum of the counts so far: bounded before any row is expanded into its copies
    for type_id, members in groups:
        first, first_cells = members[0]
        empty_names = [col for col in name_cols if col in by_name and not _text_of(cell(first_cells, col)).strip()]
        name_node = _mapping(((col.rsplit("_", 1)[1], _scalar(cell(first_cells, col), "str", at(first, col))) for col in name_cols
                              if _text_of(cell(first_cells, col)).strip()), at(first, (empty_names or list(name_cols))[0]))
        for number, cells in members[1:]:
            for col in name_cols + tuple(c for c in note_cols if c in by_name):
                if _text_of(cell(cells, col)).strip() != _text_of(cell(first_cells, col)).strip():
                    problems.append(Problem(at(number, col), f"type '{type_id}': {col} differs from row {first}; "
                                                             f"the rows of one type share its name and note"))
        # each card of the type: (row, fields as nodes, own id node)
        cards: list[tuple[int, dict[str, yaml.Node], yaml.Node | None]] = []
        for number, cells in members:
            count = 1
            if COUNT_COLUMN in by_name and _text_of(cell(cells, COUNT_COLUMN)).strip():
                raw = _text_of(cell(cells, COUNT_COLUMN)).strip()
                if not _WHOLE.match(raw) or not 1 <= int(raw) <= limits.MAX_CARDS:
                    problems.append(Problem(at(number, COUNT_COLUMN), f"count must be a whole number from 1 to {limits.MAX_CARDS:,}, got {raw!r}"))
                    continue
                count = int(raw)
            physical += count
            if physical > limits.MAX_CARDS:
                where = at(number, COUNT_COLUMN) if COUNT_COLUMN in by_name else table.where(number, 1)
                problems.append(Problem(where, f"the rows up to here add up to {physical:,} cards, more than the limit of "
                                               f"{limits.MAX_CARDS:,}; lower the counts or delete rows"))
                raise DataError(problems)
            own_id = None
            given = _text_of(cell(cells, ID_COLUMN)).strip() if ID_COLUMN in by_name else ""
            automatic = id_format.format(n=position + len(cards) + 1) if id_format else f"{type_id}-{len(cards) + 1}"
            if given and given != automatic:
                if count != 1:
                    problems.append(Problem(at(number, ID_COLUMN), f"an id names one card, but this row has count {count}; "
                                                                   f"give each card its own row or leave the id empty"))
                    continue
                own_id = _scalar(cell(cells, ID_COLUMN), "str", at(number, ID_COLUMN))
            fields = {spec.name: node for spec, cols in field_columns if cols
                      for node in [field_node(cells, number, spec, cols)] if node is not None}
            cards += [(number, fields, own_id)] * count
        position += len(cards)
        if problems or not cards:
            continue
        total += len(cards)
        pairs: list[tuple[str, yaml.Node]] = [
            ("id", _scalar(type_id, "str", at(first, TYPE_COLUMN))),
            ("name", name_node),
            ("count", yaml.ScalarNode(_INT, str(len(cards)), _CellMark(at(first, TYPE_COLUMN)), _CellMark(at(first, TYPE_COLUMN)))),
        ]
        notes = [(col.rsplit("_", 1)[1], col) for col in note_cols if col in by_name and _text_of(cell(first_cells, col)).strip()]
        if notes:
            pairs.append(("note", _mapping(((lang, _scalar(cell(first_cells, col), "str", at(first, col))) for lang, col in notes),
                                           at(first, notes[0][1]))))
        # fields every card of the type holds alike belong to the type, the rest to each copy
        shared = {name: node for name, node in cards[0][1].items()
                  if all(name in f and _same(f[name], node) for _, f, _ in cards)}
        pairs += list(shared.items())
        if len(cards) > 1 and any(len(f) != len(shared) for _, f, _ in cards) or any(own is not None for _, _, own in cards):
            copies = []
            for number, fields, own_id in cards:
                own = [(k, v) for k, v in fields.items() if k not in shared]
                if own_id is not None:
                    own.insert(0, ("id", own_id))
                copies.append(_mapping(own, table.where(number, 1)))
            pairs.append(("copies", yaml.SequenceNode(_SEQ, copies, _CellMark(at(first, TYPE_COLUMN)), _CellMark(at(first, TYPE_COLUMN)))))
        type_nodes.append(_mapping(pairs, table.where(first, 1)))
    if problems:
        raise DataError(problems)
    origin = table.where(header_row, 1)
    mark = _CellMark(origin)
    return _mapping([("total", yaml.ScalarNode(_INT, str(total), mark, mark)),
                     ("types", yaml.SequenceNode(_SEQ, type_nodes, mark, mark))], origin)


def _same(a: yaml.Node, b: yaml.Node) -> bool:
    if isinstance(a, yaml.ScalarNode) and isinstance(b, yaml.ScalarNode):
        return (a.tag, a.value) == (b.tag, b.value)
    if isinstance(a, yaml.MappingNode) and isinstance(b, yaml.MappingNode):
        return len(a.value) == len(b.value) and all(ka.value == kb.value and _same(va, vb)
                                                    for (ka, va), (kb, vb) in zip(a.value, b.value))
    return False


def _field_of(column: str, specs: dict[str, FieldSpec], languages: tuple[str, ...] = LANGUAGES) -> str | None:
    """The card field a column holds: `vp`, or `ability` for `ability_ja`; None for no field."""
    if column in specs and specs[column].kind != "text":
        return column
    base, _, lang = column.rpartition("_")
    if lang in languages and base in specs and specs[base].kind == "text":
        return base
    return None


def _columns(table: _Table, row: int, header: list[Any], specs: dict[str, FieldSpec],
             languages: tuple[str, ...] = LANGUAGES) -> tuple[list[_Column], list[Problem]]:
    name_cols, note_cols = name_columns(languages), note_columns(languages)  # the game's languages
    fixed = {TYPE_COLUMN, COUNT_COLUMN, ID_COLUMN, COPY_COLUMN, *name_cols, *note_cols}
    columns: list[_Column] = []
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for index, value in enumerate(header):
        name = _text_of(value).strip()
        if not name:
            continue
        where = table.where(row, index + 1)
        if name in seen:
            problems.append(Problem(where, f"column '{name}' appears twice (also column {column_letters(seen[name] + 1)}); keep one"))
            continue
        seen[name] = index
        if name not in fixed and _field_of(name, specs, languages) is None:
            expected = ", ".join("/".join(f"{n}_{lang}" for lang in languages) if s.kind == "text" else n
                                 for n, s in specs.items()) or "(none declared)"
            own = [f"{name}_{lang}" for lang in languages]
            hint = (f"; '{name}' is a text field: write its column{'s' if len(own) > 1 else ''} "
                    f"{', '.join(own[:-1]) + ' and ' if len(own) > 1 else ''}{own[-1]}" if name in specs else "")
            if ";" in name or "\t" in name:
                hint = "; the columns seem separated by ';' or tabs: save the file as comma-separated CSV (UTF-8)"
            problems.append(Problem(where, f"unknown column '{name}'{hint}; use {TYPE_COLUMN}, {', '.join(name_cols)}, {COUNT_COLUMN}, "
                                           f"{ID_COLUMN}, {', '.join(note_cols)} or a card field of game.yaml: {expected}"))
            continue
        if name != COPY_COLUMN:
            columns.append(_Column(index, name))
    names = {c.name for c in columns}
    for needed in (TYPE_COLUMN, *name_cols):
        if needed not in names and not problems:
            problems.append(Problem(table.where(row, 1), f"the header row has no '{needed}' column; add it "
                                                         f"(the columns are named as `cardgen export` writes them)"))
    return columns, problems
