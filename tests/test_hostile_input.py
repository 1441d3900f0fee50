"""Hostile game folders, second round, on the input side (issue #26): files linked out of the
folder, spreadsheets, card counts, templates, icons and art that are small on disk and costly
to read or draw. Each case runs `cardgen` as a user does, a fresh process, under a hard time
limit and a 1 GB address-space limit, and must end in a one-line `file:...: what; what to do`
(exit 1) or a safe result, within 10 s, quoting nothing from outside the folder.
"""

from __future__ import annotations

import io
import re
import resource
import shutil
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from cardgen.export import to_csv, to_xlsx
from cardgen.load import bundled_games_dir, load_game

SECONDS = 10.0
MEMORY = 1 << 30
SECRET = "OUTSIDE-SECRET-TEXT-26a"  # in a file beside the game folder: must never show up


@dataclass
class Run:
    command: str
    code: int
    output: str
    seconds: float


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def cardgen(*args: str | Path, cwd: Path, seconds: float = SECONDS) -> Run:
    """`cardgen ARGS` in a fresh process, killed past `seconds`, limited to MEMORY of address space;
    fails the test on a hang, a signal (SIGABRT from a native allocation), or a traceback."""
    command = "cardgen " + " ".join(map(str, args))
    started = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-m", "cardgen", *map(str, args)], cwd=cwd, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=seconds,
                              preexec_fn=_limit_memory, start_new_session=True)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{command}: still running after {seconds:g} s")
    run = Run(command, proc.returncode, proc.stdout.decode("utf-8", "replace"), time.monotonic() - started)
    assert run.code >= 0, f"{command}: killed by signal {-run.code}:\n{run.output[-2000:]}"
    assert "Traceback" not in run.output, f"{command}: traceback:\n{run.output[-3000:]}"
    assert run.code in (0, 1, 2), f"{command}: exit {run.code}:\n{run.output[-3000:]}"
    for marker in (SECRET, "root:x:0:0", "/bin/bash", "daemon:x:"):
        assert marker not in run.output, f"{command}: text from outside the game folder:\n{run.output}"
    return run


def refused(run: Run, where: str, *words: str) -> None:
    """Exit 1 with one `error:` line naming `where` (a regex: file and position) and each of `words`."""
    assert run.code == 1, f"{run.command}: expected exit 1, got {run.code}:\n{run.output[-3000:]}"
    lines = [line for line in run.output.splitlines() if line.startswith("error:") or "FAIL" in line]
    assert any(re.search(where, line) for line in lines), f"{run.command}: no message at {where}:\n{run.output[-3000:]}"
    for word in words:
        assert word.lower() in run.output.lower(), f"{run.command}: the message does not mention {word!r}:\n{run.output[-3000:]}"


@pytest.fixture
def folder(tmp_path: Path):
    """A copy of a bundled game in tmp_path/games/<id>, with a secret file beside it."""

    def make(game_id: str = "llll", cards: str = "yaml") -> Path:
        games = tmp_path / "games"
        target = games / game_id
        shutil.copytree(bundled_games_dir() / game_id, target)
        (games / "secret.yaml").write_text(f"secret: {SECRET}\n", encoding="utf-8")
        if cards != "yaml":
            game = load_game(target)
            (target / "cards.yaml").unlink()
            if cards == "xlsx":
                (target / "cards.xlsx").write_bytes(to_xlsx(game))
            else:
                (target / "cards.csv").write_text(to_csv(game), encoding="utf-8")
        return target

    return make


def check(game: Path, *extra: str, seconds: float = SECONDS) -> Run:
    return cardgen("check", game, "--no-simulate", *extra, cwd=game.parent, seconds=seconds)


def build(game: Path, *only: str, seconds: float = SECONDS * 3) -> Run:
    args = [a for o in only for a in ("--only", o)]
    return cardgen("build", game, "--out", game.parent / "out", *args, cwd=game.parent, seconds=seconds)


# --- 1. nothing is read through a link out of the folder --------------------------------------

@pytest.mark.parametrize("name, target", [
    ("cards.csv", "/etc/passwd"),
    ("cards.yaml", "../secret.yaml"),
    ("cards.xlsx", "../secret.yaml"),
    ("game.yaml", "/etc/passwd"),
    ("game.yaml", "../secret.yaml"),
])
def test_a_file_linked_out_of_the_folder_is_refused_unread(folder, name, target):
    game = folder("llll")
    if name != "game.yaml":
        (game / "cards.yaml").unlink()
    (game / name).unlink(missing_ok=True)
    (game / name).symlink_to(target)
    run = check(game)
    refused(run, rf"llll/{re.escape(name)}:1:1: ", "outside the game folder")
    assert len([line for line in run.output.splitlines() if line.strip()]) == 1, run.output


def test_a_rulebook_linked_out_of_the_folder_is_not_quoted_by_the_style_check(folder):
    game = folder("llll")
    outside = game.parent / "rules.ja.md"
    outside.write_text("# ルール\n\nｼｰｸﾚｯﾄ\n", encoding="utf-8")  # half-width kana: a style finding quotes it
    (game / "rules.ja.md").unlink()
    (game / "rules.ja.md").symlink_to(outside)
    run = check(game, seconds=60)
    refused(run, r"llll/rules\.ja\.md:1:1: ", "outside the game folder")
    assert "ｼｰｸﾚｯﾄ" not in run.output and "シークレット" not in run.output, run.output


# --- 2, 3. a workbook is bounded before calamine sees it ---------------------------------------

def _rewrite(path: Path, edit) -> None:
    """Rewrite an xlsx's parts: `edit(parts)` changes the dict of name -> bytes in place."""
    with zipfile.ZipFile(path) as source:
        parts = {info.filename: source.read(info) for info in source.infolist()}
    edit(parts)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in parts.items():
            target.writestr(name, data)
    path.write_bytes(buffer.getvalue())


def _sheet_name(parts: dict[str, bytes]) -> str:
    (name,) = [n for n in parts if n.startswith("xl/worksheets/")]
    return name


def _far_cell(parts: dict[str, bytes], cell: bytes, quote: bytes = b'"') -> None:
    sheet = _sheet_name(parts)
    row = re.sub(rb"[A-Z]", b"", cell)
    far = b"<row r=Q" + row + b"Q><c r=Q" + cell + b"Q t=QinlineStrQ><is><t>x</t></is></c></row>"
    parts[sheet] = parts[sheet].replace(b"</sheetData>", far.replace(b"Q", quote) + b"</sheetData>")


def _move_sheet(parts: dict[str, bytes]) -> None:
    """The sheet stored as xl/data/Other.xml, named so in the rels (matched in any case by calamine)."""
    sheet = _sheet_name(parts)
    parts["xl/data/Other.xml"] = parts.pop(sheet)
    inside_xl = sheet.removeprefix("xl/").encode()
    for rels in ("xl/_rels/workbook.xml.rels", "[Content_Types].xml"):
        parts[rels] = parts[rels].replace(inside_xl, b"DATA/OTHER.XML")


@pytest.mark.parametrize("how", ["single quotes", "sheet stored elsewhere", "both"])
@pytest.mark.parametrize("cell", [b"XFD1048576", b"GR1000000"])
def test_a_far_cell_is_refused_however_the_sheet_is_stored(folder, how, cell):
    game = folder("llll", cards="xlsx")

    def edit(parts):
        _far_cell(parts, cell, b"'" if how != "sheet stored elsewhere" else b'"')
        if how != "single quotes":
            _move_sheet(parts)

    _rewrite(game / "cards.xlsx", edit)
    assert (game / "cards.xlsx").stat().st_size < 20_000  # small on disk
    refused(check(game), r"llll/cards\.xlsx:1:1: ", "uses cells up to row")


def test_300000_unclosed_cell_tags_are_refused_at_once(folder):
    game = folder("llll", cards="xlsx")

    def edit(parts):
        sheet = _sheet_name(parts)
        parts[sheet] = parts[sheet].replace(b"</sheetData>", b"</sheetData><extLst>" + b"<c " * 300_000)

    _rewrite(game / "cards.xlsx", edit)
    run = check(game)
    refused(run, r"llll/cards\.xlsx:1:1: ", "damaged")
    assert run.seconds < 5, run


# --- 4. the card limit applies to the sum of the counts, before anything is expanded ------------

def _count_bomb(game: Path, fmt: str, rows: int = 2_000, count: int = 2_000) -> None:
    """`rows` rows of one type, each with `count` copies: a few KB that would expand to rows x count cards."""
    (game / "cards.yaml").unlink()
    header, row = ["type", "name_ja", "name_en", "count"], ["maid", "メイド", "Maid", count]
    if fmt == "csv":
        (game / "cards.csv").write_text("\n".join(",".join(map(str, r)) for r in [header] + [row] * rows) + "\n", encoding="utf-8")
    elif fmt == "xlsx":
        from openpyxl import Workbook

        workbook = Workbook()
        sheet = workbook.active
        sheet.title = "Cards"
        for r in [header] + [row] * rows:
            sheet.append(r)
        workbook.save(game / "cards.xlsx")
    else:
        from .test_spreadsheets import cells, ods

        repeated = cells(*row).replace("<table:table-row>", f'<table:table-row table:number-rows-repeated="{rows}">', 1)
        ods(game / "cards.ods", cells(*header) + repeated)


@pytest.mark.parametrize("fmt, where", [("csv", r"cards\.csv:3:4: "), ("xlsx", r"cards\.xlsx:Cards!D3: "),
                                        ("ods", r"cards\.ods:Cards!D3: ")])
def test_counts_that_add_up_past_the_card_limit_are_refused_unexpanded(folder, fmt, where):
    game = folder("llll")
    _count_bomb(game, fmt)
    assert (game / f"cards.{fmt}").stat().st_size < 100_000
    refused(check(game), where, "add up to 4,000 cards", "limit of 2,000")


# --- 5. every template evaluation is bounded in size and time ----------------------------------

BIG_VALUES = {
    "center": "''|center(1500000000)|length",
    "percent": "('%01500000000d' % 1)|length",
    "replace": "('x' * 1000000)|replace('x', 'xxxx')|length",
    "format method": "'{:>1500000000}'.format(1)|length",
    "format filter": "'%1500000000s'|format(1)|length",
    "string repeat then join": "(['x' * 1000000] * 1000)|join|length",
    "indent": "('a\\nb' * 300000)|indent(4000)|length",
    "wordwrap": "('ab ' * 300000)|wordwrap(1, wrapstring='y' * 1000)|length",
    "concat": "(('x' * 1000000) ~ ('y' * 1000000))|length",
    "nested repetition": "(([('x' * 1000)] * 1000) * 1000)|string|length",
    "a filter mapped over a range": "range(10000)|map('center', 999999)|list|length",
    "a set block in a loop": "{% set s %}{% for i in range(10000) %}{{ 'x' * 999999 }}{% endfor %}{% endset %}{{ s|length }}",
}


@pytest.mark.parametrize("kind", BIG_VALUES)
def test_a_large_value_in_the_rules_text_is_refused_before_it_is_built(folder, kind):
    game = folder("llll")
    rules = game / "rules.en.md"
    value = BIG_VALUES[kind]
    snippet = value if value.startswith("{%") else "{{ " + value + " }}"
    rules.write_text("# Rules\n\n" + snippet + "\n" + rules.read_text(encoding="utf-8"), encoding="utf-8")
    refused(check(game, seconds=30), r"llll/rules\.en\.md:3:1: ", "characters", "limit")


def _own_layout(game: Path) -> Path:
    (game / "templates").mkdir()
    layout = game / "templates" / "layout.yaml"
    shutil.copyfile(bundled_games_dir().parent / "templates" / game.name / "layout.yaml", layout)
    return layout


@pytest.mark.parametrize("kind", ["percent", "replace", "format method", "center"])
def test_a_large_value_in_a_layout_var_or_when_is_refused(folder, kind):
    game = folder("llll")
    layout = _own_layout(game)
    text = layout.read_text(encoding="utf-8")
    for old, new in (("vars:\n", f"vars:\n  big: \"{BIG_VALUES[kind]} > 0\"\n"),
                     ('when: "lang == \'ja\'"', f'when: "lang == \'ja\' and {BIG_VALUES[kind]} > 0"')):
        assert old in text
        layout.write_text(text.replace(old, new, 1), encoding="utf-8")
        refused(check(game, seconds=30), r"llll/templates/layout\.yaml:[0-9]+:[0-9]+: ", "characters", "limit")


# no {% %}: 150 filters over 100,000 numbers, builds nothing, runs for a minute or more
SLOW = "(range(10000)|list * 10)" + "|map('int')" * 150 + "|list|length"


@pytest.mark.parametrize("where", ["rules text", "layout vars"])
def test_a_slow_expression_without_statements_meets_the_deadline(folder, where):
    game = folder("llll")
    if where == "rules text":
        rules = game / "rules.en.md"
        rules.write_text("# Rules\n\n{{ " + SLOW + " }}\n" + rules.read_text(encoding="utf-8"), encoding="utf-8")
        expected = r"llll/rules\.en\.md:1:1: "
    else:
        layout = _own_layout(game)
        layout.write_text(layout.read_text(encoding="utf-8").replace("vars:\n", f'vars:\n  slow: "{SLOW} > 0"\n', 1), encoding="utf-8")
        expected = r"llll/templates/layout\.yaml:[0-9]+:[0-9]+: "
    refused(check(game, seconds=60), expected, "longer than 10 s")


# --- 6. a control character written as an escape is refused in the rendered text --------------

@pytest.mark.parametrize("line, where, words", [
    # Jinja's escapes make control characters the source check never saw
    ("Bell: {{ 'A\\x07B\\x00C' }}", r"llll/rules\.en\.md:3:12: ", ("control character U+0007",)),
    # 1e999 folds to inf, which Jinja compiled as the name `inf` (NameError, exit 3; fuzz case llll-212)
    ("First: {{ game.cards[1e999].id }}", r"llll/rules\.en\.md:3:", ("too large",)),
], ids=["control character", "number past the float range"])
def test_what_a_rules_template_makes_is_refused_at_its_line(folder, line, where, words):
    game = folder("llll")
    rules = game / "rules.en.md"
    rules.write_text(f"# Rules\n\n{line}\n" + rules.read_text(encoding="utf-8"), encoding="utf-8")
    for run in (check(game, seconds=30), build(game, "rules")):
        refused(run, where, *words)


def test_a_control_character_made_by_an_escape_is_refused_in_card_text(folder):
    game = folder("llll")
    layout = _own_layout(game)
    text = layout.read_text(encoding="utf-8")
    layout.write_text(text.replace('text: "{{ s.ability }}"', 'text: "{{ s.ability ~ \'\\\\u001b[2J\' }}"', 1), encoding="utf-8")
    refused(check(game, seconds=30), r"llll/templates/layout\.yaml:[0-9]+:[0-9]+: ", "control character U+001B")


# --- 7. what SVG art and icons cost to draw is bounded, and check sees it -----------------------

def _icon_in_text(game: Path, segments: int, uses: int) -> None:
    """icons/big.svg, one <path> of `segments` segments, used `uses` times in the first card's ability."""
    (game / "icons").mkdir()
    d = "M0 0" + " l1 1 l-1 0" * (segments // 2)
    (game / "icons" / "big.svg").write_text(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
                                            f'<path d="{d}" fill="black"/></svg>', encoding="utf-8")
    cards = game / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    for old in ('en: "Action > If this ability is used twice in one round, you win the game."',
                "ja: 行動＞この効果が1ラウンド中に2回使用されたなら、あなたはゲームに勝利する。"):
        assert old in text
        text = text.replace(old, old[:4] + '"' + ":big:" * uses + '"', 1)
    cards.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("segments, uses, words", [
    (600_000, 60, ("600,00", "more than the limit of 250,000")),  # the case: 3.6 MB, under the file limits
    (100_000, 60, ("more than the limit of 1,000,000 per face",)),  # each file fine, sixty uses are not
])
def test_an_svg_icon_too_costly_to_draw_is_refused_by_check_and_build(folder, segments, uses, words):
    game = folder("llll")
    _icon_in_text(game, segments, uses)
    refused(check(game), r"llll/icons/big\.svg:1:1: ", *words)
    refused(build(game, "png", seconds=SECONDS), r"llll/icons/big\.svg:1:1: ", *words)


# --- 8. art is read as the strictest output reads it; no message shows internals ---------------

ART_GAME = Path(__file__).parent / "fixtures" / "art_game"


@pytest.fixture
def art_game(tmp_path: Path) -> Path:
    target = tmp_path / "games" / "art_game"
    shutil.copytree(ART_GAME, target)
    return target


def test_a_truncated_jpeg_is_refused_by_check_as_the_print_shop_output_would(art_game):
    jpeg = art_game / "art" / "blue.jpg"
    jpeg.write_bytes(jpeg.read_bytes()[: jpeg.stat().st_size // 2])
    refused(check(art_game), r"art_game/cards\.yaml:10:5: ", "art/blue.jpg", "truncated")


def test_a_zero_byte_png_gets_a_readable_message(art_game):
    (art_game / "art" / "halves.png").write_bytes(b"")
    run = check(art_game)
    refused(run, r"art_game/cards\.yaml:3:5: ", "art/halves.png", "empty")
    assert " object at 0x" not in run.output, run.output


@pytest.mark.parametrize("old, new, words", [
    ('width="100" height="100" viewBox="0 0 100 100"', 'viewBox="0 0 1e-300 1e-300"', ("size", "not usable")),
    ("<circle ", '<circle stroke="#000" stroke-width="1e300" ', ("1e+300", "keep every number within")),
])
def test_an_svg_with_numbers_a_pdf_cannot_write_gets_a_readable_message(art_game, old, new, words):
    svg = art_game / "art" / "green.svg"
    text = svg.read_text(encoding="utf-8")
    assert old in text
    svg.write_text(text.replace(old, new), encoding="utf-8")
    run = check(art_game)
    refused(run, r"art_game/cards\.yaml:17:5: ", "art/green.svg", *words)
    assert "_rl_accel" not in run.output and "_fp_" not in run.output, run.output


def _mark_encrypted(path: Path, member: str) -> None:
    """Set the 'encrypted' flag of one member in the zip's central directory, as a password-protected
    workbook has (zipfile itself cannot write encrypted members)."""
    data = bytearray(path.read_bytes())
    entry = data.index(b"PK\x01\x02")  # the first central-directory entry
    while True:
        name_length = int.from_bytes(data[entry + 28: entry + 30], "little")
        extra = int.from_bytes(data[entry + 30: entry + 32], "little") + int.from_bytes(data[entry + 32: entry + 34], "little")
        if bytes(data[entry + 46: entry + 46 + name_length]) == member.encode():
            data[entry + 8] |= 0x1
            path.write_bytes(bytes(data))
            return
        entry += 46 + name_length + extra


def test_an_encrypted_workbook_part_gets_a_readable_message(folder):
    game = folder("llll", cards="xlsx")
    _mark_encrypted(game / "cards.xlsx", "docProps/app.xml")
    run = check(game)
    refused(run, r"llll/cards\.xlsx:1:1: ", "password")
    assert "ZipInfo" not in run.output, run.output
