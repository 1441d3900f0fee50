"""`cardgen build` also writes the rulebooks, the standard-deck sheet and the playtest kit."""

from __future__ import annotations

import pypdfium2 as pdfium
from click.testing import CliRunner

from cardgen.build import build_game, make_options
from cardgen.cli import cli
from cardgen.load import load_game


def text_of(path) -> str:
    document = pdfium.PdfDocument(str(path))
    return "".join(document[i].get_textpage().get_text_range() for i in range(len(document)))


def test_build_writes_every_document(tmp_path):
    result = CliRunner().invoke(cli, ["build", "requiem", "--out", str(tmp_path), "--lang", "en",
                                      "--only", "rules", "--only", "standard", "--only", "playtest"])
    assert result.exit_code == 0, result.output
    folder = tmp_path / "requiem"
    names = sorted(p.name for p in folder.iterdir())
    # rulebooks in every language; the --lang documents of requiem's second language carry -en
    assert names == [".cardgen-files.json", "requiem-playtest-en.pdf", "requiem-rules-en.pdf", "requiem-rules-ja.pdf", "requiem-standard-deck-en.pdf"]
    assert "Can You Hear the Requiem?" in text_of(folder / "requiem-rules-en.pdf")
    assert "鎮魂歌" in text_of(folder / "requiem-rules-ja.pdf")
    assert "Playtest feedback" in text_of(folder / "requiem-playtest-en.pdf")


def test_corner_index_prints_the_standard_card(tmp_path):
    game = load_game("requiem")
    plain = build_game(game, make_options(tmp_path / "plain", outputs=["shop"], lang="en"))
    marked = build_game(game, make_options(tmp_path / "marked", outputs=["shop"], lang="en", corner_index=True))
    plain_pdf = pdfium.PdfDocument(str(plain.files[0]))
    marked_pdf = pdfium.PdfDocument(str(marked.files[0]))
    # The King (first card, page 1) maps to a king of some suit: its index "K" appears twice more.
    before = plain_pdf[0].get_textpage().get_text_range().count("K")
    after = marked_pdf[0].get_textpage().get_text_range().count("K")
    assert after == before + 2
    # Backs carry no index.
    assert plain_pdf[1].get_textpage().get_text_range() == marked_pdf[1].get_textpage().get_text_range()


def test_a_broken_mapping_fails_the_build_and_keeps_earlier_outputs(tmp_path, game_copy):
    folder = game_copy("llll")
    out = tmp_path / "out"
    first = CliRunner().invoke(cli, ["build", str(folder), "--out", str(out), "--only", "standard"])
    assert first.exit_code == 0, first.output
    sheet = out / "llll" / "llll-standard-deck.pdf"
    before = sheet.read_bytes()
    mapping = folder / "mapping.yaml"
    lines = mapping.read_text(encoding="utf-8").split("\n")
    mapping.write_text("\n".join(lines + ["bogus_key: 1"]), encoding="utf-8")
    second = CliRunner().invoke(cli, ["build", str(folder), "--out", str(out), "--only", "standard"])
    assert second.exit_code == 1
    assert "mapping.yaml:" in second.output and "Traceback" not in second.output
    assert sheet.read_bytes() == before
