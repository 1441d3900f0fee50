"""`cardgen build`: every output read back from the files (pypdf, pypdfium2, Pillow)."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pypdfium2 as pdfium
import pytest
from click.testing import CliRunner
from PIL import Image
from pypdf import PdfReader

from cardgen.build import BuildOptions, build_game, make_options, parse_back_offset, parse_card_size, work_units
from cardgen.cli import cli
from cardgen.errors import CardgenError
from cardgen.load import bundled_games_dir, load_game
from cardgen.model import Text
from .test_sheet import PT, card_of, read_page

POKER = (63.5, 88.9)


@pytest.fixture(scope="module")
def llll():
    return load_game("llll")


@pytest.fixture(scope="module")
def built(llll, tmp_path_factory):
    """One full default build of llll (all outputs, calibration), shared by the read-back tests."""
    out = tmp_path_factory.mktemp("out")
    steps = []
    result = build_game(llll, make_options(out=out, calibration=True), steps.append)
    return out / "llll", result, steps


def _fonts(reader: PdfReader):
    """Every font dictionary used by pages and the forms they draw."""
    seen, out = set(), []

    def walk(resources):
        if not resources:
            return
        resources = resources.get_object()
        for font in (resources.get("/Font") or {}).values():
            font = font.get_object()
            if id(font) not in seen:
                seen.add(id(font))
                out.append(font)
        for xobject in (resources.get("/XObject") or {}).values():
            xobject = xobject.get_object()
            if xobject.get("/Subtype") == "/Form":
                walk(xobject.get("/Resources"))

    for page in reader.pages:
        walk(page.get("/Resources"))
    return out


def _assert_fonts_embedded_and_subset(reader: PdfReader) -> None:
    fonts = _fonts(reader)
    assert fonts
    for font in fonts:
        descriptor = font["/FontDescriptor"].get_object()
        assert "/FontFile2" in descriptor, f"{font['/BaseFont']} is not embedded"
        assert "+" in str(font["/BaseFont"]), f"{font['/BaseFont']} is not a subset"


def test_default_build_writes_every_output(built, llll):
    base, result, steps = built
    names = {p.relative_to(base).as_posix() for p in result.files}
    assert {"llll-cards-a4.pdf", "llll-print-shop.pdf", "llll-calibration-a4.pdf"} <= names
    assert all(p.is_file() for p in result.files)
    assert sum(steps) == work_units(llll, make_options()) == 4 * 32
    assert not list(base.rglob(".*.tmp"))
    assert result.layout.per_sheet == 9 and result.sheets == 4
    assert "3 x 3 cards" in result.summary()


def test_home_sheets(built, llll):
    base, _, _ = built
    reader = PdfReader(str(base / "llll-cards-a4.pdf"))
    assert len(reader.pages) == 8 + 1  # 4 front and back sheets, then the card checklist
    for page in reader.pages:
        assert (float(page.mediabox.width), float(page.mediabox.height)) == pytest.approx((210 * PT, 297 * PT), abs=0.01)
    fronts, segs = read_page(reader, reader.pages[0])
    backs, _ = read_page(reader, reader.pages[1])
    assert [card_of(f)[0] for f in fronts] == [c.id for c in llll.cards[:9]]
    for f, b in zip(fronts, backs):
        assert (b.x, b.y) == pytest.approx((210 - f.x - f.w, f.y), abs=0.1)  # f: the card with its home bleed
    assert all(width >= 0.25 for *_, width in segs)
    _assert_fonts_embedded_and_subset(reader)
    text = reader.pages[0].extract_text()
    assert "シート 1/4" in text and "LL01" in text and "100 %" in text


def test_print_shop_file(built, llll):
    base, _, _ = built
    reader = PdfReader(str(base / "llll-print-shop.pdf"))
    assert len(reader.pages) == 2 * 32
    bleed = 3.175
    for i, page in enumerate(reader.pages):
        w, h = float(page.mediabox.width), float(page.mediabox.height)
        assert (w / PT, h / PT) == pytest.approx((63.5 + 2 * bleed, 88.9 + 2 * bleed), abs=0.01)
        trim = [float(v) / PT for v in page.trimbox]
        assert trim == pytest.approx([bleed, bleed, bleed + 63.5, bleed + 88.9], abs=0.01)
        assert [float(v) for v in page.bleedbox] == pytest.approx([0, 0, w, h], abs=0.01)
    # each front is followed by its back
    placed = [read_page(reader, page)[0] for page in reader.pages[:4]]
    assert [p[0].name for p in placed] == ["c0000_LL01_front", "back_default", "c0001_LL02_front", "back_default"]
    assert placed[0][0].x == pytest.approx(0, abs=0.01) and placed[0][0].w == pytest.approx(63.5 + 2 * bleed, abs=0.01)
    _assert_fonts_embedded_and_subset(reader)


def test_pngs_are_300_dpi_with_bleed(built, llll):
    base, _, _ = built
    files = sorted((base / "png").glob("*.png"))
    assert len(files) == 32 + 1  # every front, and the shared back once
    assert {f.name for f in files} == {f"{c.id}-front.png" for c in llll.cards} | {"back.png"}
    for path in files[:3] + [base / "png" / "back.png"]:
        with Image.open(path) as image:
            assert image.size == (825, 1125)
            assert image.mode == "RGB"
            assert round(image.info["dpi"][0]) == 300


def test_tts_sheets(built, llll):
    base, _, _ = built
    manifest = json.loads((base / "tts" / "llll-tts.json").read_text())
    (sheet,) = manifest["sheets"]
    assert (sheet["width"], sheet["height"], sheet["number"]) == (10, 4, 32)
    assert sheet["cards"] == [c.id for c in llll.cards]
    with Image.open(base / "tts" / sheet["face"]) as image:
        assert image.size[0] <= 4096 and image.size[1] <= 4096
        assert image.size == (10 * sheet["card_px"][0], 4 * sheet["card_px"][1])
        assert image.mode == "RGB"
    with Image.open(base / "tts" / sheet["back"]) as back:
        assert back.size == tuple(sheet["card_px"])
    w, h = sheet["card_px"]
    assert abs(h / w - 88.9 / 63.5) < 0.01


def test_tts_sheet_limits_for_a_big_deck():
    from cardgen.render.cards.raster import tts_grid

    for n in (1, 9, 69, 70):
        cols, rows, w, h = tts_grid(n, POKER, 750)
        assert cols <= 10 and rows <= 7 and cols * rows >= n
        assert cols * w <= 4096 and rows * h <= 4096


def test_calibration_file(built):
    base, _, _ = built
    reader = PdfReader(str(base / "llll-calibration-a4.pdf"))
    assert len(reader.pages) == 2
    _assert_fonts_embedded_and_subset(reader)


def test_two_builds_are_byte_identical(llll, tmp_path):
    options = dict(outputs=("sheets", "shop"), calibration=True, paper="letter", duplex="short", back_offset="0.5,-0.25")
    first = build_game(llll, make_options(out=tmp_path / "a", **options))
    second = build_game(llll, make_options(out=tmp_path / "b", **options))
    assert len(first.files) == 3
    for a, b in zip(first.files, second.files):
        assert a.name == b.name and a.read_bytes() == b.read_bytes()


def _long_text_game(game, card_ids):
    long = Text(ja="とても長い能力の説明。" * 60, en="A very long ability text. " * 60)
    cards = tuple(dataclasses.replace(c, fields={**c.fields, "ability": long}) if c.id in card_ids else c for c in game.cards)
    return dataclasses.replace(game, cards=cards)


def test_overflowing_text_fails_the_build_and_writes_nothing(llll, tmp_path):
    out = tmp_path / "out"
    first = build_game(llll, make_options(out=out, outputs=("sheets",)))
    before = first.files[0].read_bytes()
    broken = _long_text_game(llll, {"LL03", "LL17"})
    with pytest.raises(CardgenError) as caught:
        build_game(broken, make_options(out=out, outputs=("sheets", "shop")))
    message = str(caught.value)
    assert "LL03" in message and "LL17" in message and "--allow-overflow" in message
    assert "cards.yaml" in message  # points at the card's line
    # the earlier output is whole and nothing new was written
    assert first.files[0].read_bytes() == before
    assert not (out / "llll" / "llll-print-shop.pdf").exists()
    assert not list(out.rglob(".*.tmp"))
    allowed = build_game(broken, make_options(out=out, outputs=("sheets",), allow_overflow=True))
    assert {o.card_id for o in allowed.overflows} == {"LL03", "LL17"}
    assert "warning" in allowed.summary()


def test_overflow_is_caught_when_only_pngs_are_built(llll, tmp_path):
    with pytest.raises(CardgenError, match="LL05"):
        build_game(_long_text_game(llll, {"LL05"}), make_options(out=tmp_path, outputs=("png",)))
    assert not (tmp_path / "llll" / "png").exists()


def test_options_parsing():
    assert parse_back_offset("0.5,-1") == (0.5, -1.0)
    assert parse_back_offset(" -0.25 , 0 ") == (-0.25, 0.0)
    for bad in ("1", "1,2,3", "a,b", "", "1;2"):
        with pytest.raises(CardgenError, match="X,Y"):
            parse_back_offset(bad)
    assert parse_card_size("Poker") == "poker"
    assert parse_card_size("63x88") == "63x88"
    with pytest.raises(CardgenError, match="WxH"):
        parse_card_size("huge")
    with pytest.raises(CardgenError, match="too large"):
        make_options(back_offset="15,0")
    with pytest.raises(CardgenError, match="--duplex long or --duplex short"):
        make_options(calibration=True, duplex="none")
    assert BuildOptions().shop_bleed == 3.175 and BuildOptions().sheet_bleed is None  # None: the automatic home bleed
    assert BuildOptions().out_dir.as_posix() == "output"


def test_card_size_option_changes_every_output(llll, tmp_path):
    result = build_game(llll, make_options(out=tmp_path, card_size="bridge", outputs=("sheets", "png")))
    reader = PdfReader(str(result.files[0]))
    fronts, _ = read_page(reader, reader.pages[0])
    assert fronts[0].w == pytest.approx(57.15 + 2 * result.layout.bleed_x, abs=0.01)  # the form is card + home bleed
    with Image.open(tmp_path / "llll" / "png" / "LL01-front.png") as image:
        assert image.size == (750, 1125)  # (57.15 + 6.35) / 25.4 * 300


def test_cli_build(tmp_path):
    runner = CliRunner()
    result = runner.invoke(cli, ["build", "llll", "--out", str(tmp_path), "--only", "sheets", "--paper", "letter", "--lang", "en"])
    assert result.exit_code == 0, result.output
    # English is llll's second language: its sheets carry -en, so they never overwrite the Japanese ones
    assert (tmp_path / "llll" / "llll-cards-letter-en.pdf").is_file()
    assert not (tmp_path / "llll" / "llll-cards-letter.pdf").exists()
    assert "llll: 32 cards" in result.output
    pdf = pdfium.PdfDocument(str(tmp_path / "llll" / "llll-cards-letter-en.pdf"))
    assert len(pdf) == 8 + 1 and pdf[0].get_size() == pytest.approx((215.9 * PT, 279.4 * PT), abs=0.01)
    pdf.close()


@pytest.mark.parametrize("args,message", [
    (["--back-offset", "1;2"], "--back-offset '1;2' is not X,Y"),
    (["--card-size", "300x100"], "does not fit on A4"),
    (["--bleed", "-1"], "--bleed -1.0 is out of range"),
    (["--card-size", "big"], "--card-size 'big' is unknown"),
])
def test_cli_errors_are_clear_without_traceback(tmp_path, args, message):
    result = CliRunner().invoke(cli, ["build", "llll", "--out", str(tmp_path), *args])
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "llll").exists()


def test_cli_overflow_from_a_game_folder(tmp_path):
    folder = tmp_path / "llll"
    shutil.copytree(bundled_games_dir() / "llll", folder)
    cards = folder / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    long = "とても長い説明。" * 80
    cards.write_text(text.replace("行動＞あなたは2アクション・ポイントを得る。", long, 1), encoding="utf-8")
    result = CliRunner().invoke(cli, ["build", str(folder), "--out", str(tmp_path / "out"), "--only", "sheets"])
    assert result.exit_code == 1
    assert "LL13" in result.output and "--allow-overflow" in result.output
    assert "Traceback" not in result.output
    result = CliRunner().invoke(cli, ["build", str(folder), "--out", str(tmp_path / "out"), "--only", "sheets", "--allow-overflow"])
    assert result.exit_code == 0 and "warning" in result.output


def test_builds_in_separate_processes_are_byte_identical(tmp_path):
    """No hash-order or clock dependence: two fresh processes with different hash seeds."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-m", "cardgen", "build", "requiem", "--out", str(tmp_path / seed),
                        "--only", "sheets", "--only", "shop", "--calibration"], cwd=root, env=env, check=True, capture_output=True)
    files = sorted(p.relative_to(tmp_path / "1") for p in (tmp_path / "1").rglob("*.pdf"))
    assert len(files) == 3
    for rel in files:
        assert (tmp_path / "1" / rel).read_bytes() == (tmp_path / "2" / rel).read_bytes(), rel


def test_a_rebuild_removes_what_it_no_longer_makes_and_only_that(tmp_path):
    """A deleted mapping.yaml takes its standard-deck PDF with it at the next build of that
    language (the CLI says so); a file cardgen wrote but the user changed since, another
    language's file and a file cardgen never wrote stay."""
    import subprocess
    import sys

    from cardgen.scaffold import new_game

    game = new_game(tmp_path / "game")
    out = tmp_path / "out"
    standard = out / "game" / "game-standard-deck-en.pdf"  # en: the game's second language
    mine = out / "game" / "mine.pdf"

    def build(lang: str) -> list[str]:
        done = subprocess.run([sys.executable, "-m", "cardgen", "build", str(game), "--out", str(out), "--only", "standard",
                               "-j", "1", "--format", "json", "--lang", lang], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)[0]["removed"]

    assert build("en") == [] and standard.is_file()
    mine.write_bytes(b"%PDF-1.4 the user's own")
    (game / "mapping.yaml").unlink()
    assert build("ja") == [] and standard.is_file()          # the en build's file: another language
    assert build("en") == [f"{standard}: removed, this build no longer makes it"] and not standard.exists()
    assert mine.is_file()

    # a file the user changed after cardgen wrote it is left, and said so (the same step, in process)
    from cardgen.build import BuildResult, make_options, remove_unmade

    options = make_options(out=out, lang="en", outputs=("standard",))
    standard.write_bytes(b"%PDF-1.4 made")
    remove_unmade(load_game(game), BuildResult("game", out / "game", files=[standard]), options)
    with standard.open("ab") as changed:
        changed.write(b"\n% annotated")
    assert remove_unmade(load_game(game), BuildResult("game", out / "game"), options) == [
        f"{standard}: left in place, changed since cardgen wrote it; this build no longer makes it"]
    assert standard.is_file()
