"""Every PDF cardgen writes names its language in the catalog's /Lang (read back with pypdf), so a
screen reader or a search index reads Japanese as Japanese and English as English."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from cardgen.cli import cli

from .conftest import catalog_lang

TAG = {"ja": "ja-JP", "en": "en"}


def build(tmp_path, *options: str) -> list:
    result = CliRunner().invoke(cli, ["build", "requiem", "--out", str(tmp_path), "--workers", "1", "--no-cache", *options])
    assert result.exit_code == 0, result.output
    return sorted((tmp_path / "requiem").glob("*.pdf"))


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_every_pdf_of_a_build_names_its_language(tmp_path, lang):
    pdfs = build(tmp_path, "--lang", lang, "--calibration", "--only", "sheets", "--only", "shop", "--only", "rules",
                 "--only", "standard", "--only", "playtest", "--only", "tuckbox")
    kinds = {p.stem.split("-")[1] for p in pdfs}
    assert kinds == {"cards", "print", "calibration", "rules", "standard", "playtest", "tuckbox"}, pdfs
    # a rulebook is written in each of the game's languages whatever --lang is; it names its own
    expected = {p.name: TAG[p.stem.rsplit("-", 1)[1]] if "-rules-" in p.name else TAG[lang] for p in pdfs}
    assert {p.name: catalog_lang(p) for p in pdfs} == expected


def test_the_cmyk_print_shop_file_names_its_language(tmp_path):
    [pdf] = build(tmp_path, "--lang", "en", "--preset", "dtc")
    assert pdf.name.endswith("-dtc-cmyk-en.pdf") and catalog_lang(pdf) == "en"
