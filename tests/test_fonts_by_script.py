"""Fonts by script (issue 28): in a Latin-language output every text is set in the Latin family
(Liberation), and the Japanese faces (IPAex, BIZ UD Gothic) set only what Liberation lacks, such as
a Japanese quotation, which still prints. Read back from every page of every PDF that `build`,
`report` and `sweep` write, as a designer runs them (the CLI as a subprocess)."""

from __future__ import annotations

import collections
from pathlib import Path

from pypdf import PdfReader
from reportlab.pdfbase.ttfonts import TTFont

from cardgen.fonts import EXTRA_FILES, LATIN_SANS, fonts_dir

from .test_languages import CRAZY_EIGHTS, cardgen, made, translated

JAPANESE_FACES = ("IPAex", "BIZUD")
QUOTATION = "太陽が昇る"


def latin_has(char: str, _cmap: dict = {}) -> bool:
    """Whether Liberation Sans (read here from its file, not through cardgen) has `char`."""
    if not _cmap:
        _cmap.update(TTFont("TestLiberationCmap", str(fonts_dir() / EXTRA_FILES[LATIN_SANS])).face.charToGlyph)
    return ord(char) in _cmap


def set_in(pdf: Path) -> list[dict[str, str]]:
    """Per page: each font's base name -> the characters printed in it (forms and charts included)."""
    pages = []
    for page in PdfReader(pdf).pages:
        found: dict[str, str] = collections.defaultdict(str)

        def visit(text, cm, tm, font, size, found=found):
            if font is not None and text.strip():
                found[str(font.get("/BaseFont")).split("+")[-1]] += "".join(text.split())

        page.extract_text(visitor_text=visit)
        pages.append(dict(found))
    return pages


def misplaced(pdf: Path) -> list[str]:
    """Every character a Japanese face sets although the Latin face has it, and every page with no
    Latin face at all (a page of a Latin-language output is set in its family)."""
    problems = []
    for number, fonts in enumerate(set_in(pdf), start=1):
        if fonts and not any(name.startswith("Liberation") for name in fonts):
            problems.append(f"{pdf.name} p{number}: no Latin face ({sorted(fonts)})")
        for name, chars in fonts.items():
            latin = sorted({ch for ch in chars if latin_has(ch)})
            if name.startswith(JAPANESE_FACES) and latin:
                problems.append(f"{pdf.name} p{number}: {name} sets {''.join(latin)!r}")
    return problems


def text_of(pdf: Path) -> str:
    return "".join("".join(fonts.values()) for fonts in set_in(pdf))


PLAYTEST = """\
sheets:
  - title: {fr: Feuille de score, en: Score sheet}
    blocks:
      - text: {fr: "Notez les cartes prises à chaque manche.", en: "Write down the cards each player took."}
      - grid:
          title: {fr: Manches, en: Rounds}
          label_header: {fr: Manche, en: Round}
          rows: {count: 3, label: {fr: "Manche {{ n }}", en: "Round {{ n }}"}}
          per_player: {count: players, label: {fr: "Joueur {{ n }}", en: "Player {{ n }}"}}
          columns: [{fr: Cartes, en: Cards}]
tokens:
  - {name: {fr: Jetons de victoire, en: Victory chips}, label: "1", count: 6, diameter_mm: 15, caption: {fr: PV, en: VP}}
"""


def test_a_french_and_english_game_sets_every_output_in_the_latin_family(tmp_path):
    game = made(tmp_path, "jeu", "fr,en")
    (game / "templates" / "playtest.yaml").write_text(PLAYTEST, encoding="utf-8")
    with open(game / "rules.en.md", "a", encoding="utf-8") as rules:
        rules.write(f"\nAs the original says, 「{QUOTATION}」 (the sun rises).\n")
    with open(game / "rules.fr.md", "a", encoding="utf-8") as rules:
        rules.write(f"\nComme le dit l’original, « {QUOTATION} » (le soleil se lève).\n")
    for lang in ("fr", "en"):
        built = cardgen("build", "jeu", "--out", "out", "--lang", lang, "--calibration", "--workers", "1", cwd=tmp_path)
        assert built.returncode == 0, built.stdout + built.stderr
    out = tmp_path / "out" / "jeu"
    pdfs = sorted(out.glob("*.pdf"))
    kinds = {"cards-a4", "print-shop", "calibration-a4", "rules", "standard-deck", "tuckbox", "playtest"}
    assert {kind for kind in kinds for pdf in pdfs if kind in pdf.name} == kinds and len(pdfs) == 14, pdfs
    assert [problem for pdf in pdfs for problem in misplaced(pdf)] == []
    # the Japanese quotation prints, in the Japanese face, inside the Latin text
    for lang in ("fr", "en"):
        rules = set_in(out / f"jeu-rules-{lang}.pdf")
        assert any(QUOTATION in chars for fonts in rules for face, chars in fonts.items() if face.startswith("IPAex")), rules
    # and the interface words are French: sheet footer, checklist, tuck box, standard sheet, playtest kit
    assert "feuille1sur2" in text_of(out / "jeu-cards-a4.pdf") and "Listedescartes" in text_of(out / "jeu-cards-a4.pdf")
    assert "couper" in text_of(out / "jeu-tuckbox.pdf") and "Calibragerectoverso" in text_of(out / "jeu-calibration-a4.pdf")
    assert "Joueravecdescartesclassiques" in text_of(out / "jeu-standard-deck.pdf")
    assert "Kitdetest" in text_of(out / "jeu-playtest.pdf") and "Paquetbrouillon" in text_of(out / "jeu-playtest.pdf")


def test_an_english_only_game_prints_no_japanese_face(tmp_path):
    made(tmp_path, "solo", "en")
    built = cardgen("build", "solo", "--out", "out", "--calibration", "--workers", "1", cwd=tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    pdfs = sorted((tmp_path / "out" / "solo").glob("*.pdf"))
    assert len(pdfs) == 6, pdfs
    faces = {face for pdf in pdfs for fonts in set_in(pdf) for face in fonts}
    assert faces and not [face for face in faces if face.startswith(JAPANESE_FACES)], faces


def test_a_bundled_game_in_english_sets_only_its_japanese_title_in_ipaex(tmp_path):
    # with the standard corner index on the faces: its ranks are text of the language too
    built = cardgen("build", "llll", "--out", "out", "--lang", "en", "--corner-index", "--workers", "1", cwd=tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    pdfs = sorted((tmp_path / "out" / "llll").glob("*-en.pdf"))
    assert len(pdfs) == 6 and [problem for pdf in pdfs for problem in misplaced(pdf)] == []


def test_reports_and_sweeps_in_french_and_german_set_their_words_and_charts_in_the_latin_family(tmp_path):
    translated(CRAZY_EIGHTS, tmp_path / "huit", ("fr", "de"))
    report = cardgen("report", "huit", "--games", "20", "--workers", "1", "--out", "out", cwd=tmp_path)
    assert report.returncode == 0, report.stdout + report.stderr
    sweep = cardgen("sweep", "huit", "--vary", "hand_size.2=5,7", "--games", "4", "--workers", "1", "--lang", "de",
                    "--out", "out", cwd=tmp_path)
    assert sweep.returncode == 0, sweep.stdout + sweep.stderr
    balance, swept = tmp_path / "out" / "huit" / "huit-balance.pdf", tmp_path / "out" / "huit" / "huit-sweep-de.pdf"
    assert misplaced(balance) == [] and misplaced(swept) == []
    # the charts' labels are text in the report's language and its Latin face (matplotlib's fallback list)
    assert "Rapportd’équilibre" in text_of(balance) and "Tauxdevictoireparplace" in text_of(balance)
    assert "Décisionsdesjoueursparpartie" in text_of(balance)  # a chart's axis title
    assert "Parameter-Sweep" in text_of(swept) and "Variiert" in text_of(swept)
    assert {face for pdf in (balance, swept) for fonts in set_in(pdf) for face in fonts} == {"LiberationSans"}
