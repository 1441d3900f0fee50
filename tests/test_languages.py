"""A game's languages are its own (issue 28): `languages:` in game.yaml, texts in exactly those,
outputs per language, `--lang` limited to them, fonts by script. Run as a designer would: the CLI
as a subprocess, on games `cardgen new --languages` writes."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from pypdf import PdfReader

JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]")
CRAZY_EIGHTS = Path(__file__).resolve().parent.parent / "examples" / "crazy-eights" / "crazy-eights"  # a game with an engine


def cardgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cardgen", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def made(where: Path, name: str, languages: str) -> Path:
    done = cardgen("new", name, "--languages", languages, cwd=where)
    assert done.returncode == 0, done.stderr
    return where / name


def typed_japanese(folder: Path) -> list[str]:
    """The files of a game folder with any Japanese character in them."""
    return [str(p) for p in folder.rglob("*") if p.is_file() and p.suffix in (".yaml", ".md")
            and JAPANESE.search(p.read_text(encoding="utf-8"))]


def fonts_of(pdf: Path) -> set[str]:
    found = set()
    for page in PdfReader(pdf).pages:
        for font in (page["/Resources"].get("/Font") or {}).values():
            found.add(str(font.get_object()["/BaseFont"]).split("+")[-1])
    return found


def text_of(pdf: Path) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(pdf).pages)


def translated(source: Path, target: Path, languages: tuple[str, ...]) -> Path:
    """A copy of a ja + en game folder in `languages`, each text the English one (the rules too)."""
    def each(node):
        if isinstance(node, dict):
            if set(node) == {"ja", "en"}:
                return {lang: node["en"] for lang in languages}
            return {key: each(value) for key, value in node.items()}
        return [each(value) for value in node] if isinstance(node, list) else node

    shutil.copytree(source, target)
    for path in [target / "game.yaml", target / "cards.yaml", *sorted((target / "templates").glob("*.yaml"))]:
        data = each(yaml.safe_load(path.read_text(encoding="utf-8")))
        if path.name == "game.yaml":
            data["languages"] = list(languages)
        path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    english = (target / "rules.en.md").read_text(encoding="utf-8")
    for rules in target.glob("rules.*.md"):
        rules.unlink()
    for lang in languages:
        (target / f"rules.{lang}.md").write_text(english, encoding="utf-8")
    return target



@pytest.fixture(scope="module")
def french_english(tmp_path_factory) -> Path:
    """A French + English game made once by `cardgen new --languages fr,en`; tests copy it to change it."""
    return made(tmp_path_factory.mktemp("lang"), "jeu", "fr,en")


def test_a_french_and_english_game_checks_and_builds_each_language_under_its_own_names(french_english, tmp_path):
    game = Path(shutil.copytree(french_english, tmp_path / "jeu"))
    assert typed_japanese(game) == []
    assert "languages: [fr, en]" in (game / "game.yaml").read_text(encoding="utf-8")
    checked = cardgen("check", "jeu", "--no-simulate", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout
    assert "every output lays out (fr, en)" in checked.stdout

    first = cardgen("build", "jeu", "--out", "out", "--only", "shop", "--only", "rules", "--workers", "1", cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    other = cardgen("build", "jeu", "--out", "out", "--only", "shop", "--only", "png", "--lang", "en", "--corner-guides",
                    "--workers", "1", cwd=tmp_path)
    assert other.returncode == 0, other.stdout + other.stderr
    out = tmp_path / "out" / "jeu"
    assert sorted(p.name for p in out.glob("*.pdf")) == ["jeu-print-shop-en.pdf", "jeu-print-shop.pdf",
                                                         "jeu-rules-en.pdf", "jeu-rules-fr.pdf"]
    assert len(list((out / "png-en").glob("*-front.png"))) == 12 and not (out / "png").exists()
    # the English preview: in English, with a switch to the French page, its faces' corners rounded like the cut cards
    assert f"{Path('out') / 'jeu' / 'preview-en.html'} (every face" in other.stdout
    page = (out / "preview-en.html").read_text(encoding="utf-8")
    assert '<html lang="en">' in page and '<span class="status">12 cards</span>' in page
    assert '<a href="preview.html" hreflang="fr" lang="fr">Français</a>' in page
    assert re.search(r"\.faces img\{border-radius:4\.\d+% / 3\.\d+%\}", page)
    assert "preview-build-en.js" in page and (out / "preview-build-en.js").is_file()
    french, english = text_of(out / "jeu-print-shop.pdf"), text_of(out / "jeu-print-shop-en.pdf")
    assert "Éclipse" in french and "Soleil" in french and "Eclipse" in english and "Soleil" not in english
    assert "Matériel" in text_of(out / "jeu-rules-fr.pdf")  # the rulebook's interface words in French
    assert {"LiberationSerif", "LiberationSans-Bold"} <= fonts_of(out / "jeu-rules-fr.pdf")  # its paragraphs' Latin face
    # Latin text in the Latin family, bold in its real bold face (never IPAex's full-width punctuation)
    assert fonts_of(out / "jeu-print-shop.pdf") == {"LiberationSans", "LiberationSerif-Bold"}


def test_lang_refuses_a_language_the_game_does_not_declare(french_english, tmp_path):
    shutil.copytree(french_english, tmp_path / "jeu")
    refused = cardgen("build", "jeu", "--out", "out", "--lang", "ja", cwd=tmp_path)
    assert refused.returncode == 2
    assert "jeu is written in fr, en (languages in game.yaml), not ja; use --lang fr or --lang en" in refused.stderr
    assert not (tmp_path / "out").exists()


def test_a_text_must_be_in_exactly_the_declared_languages(french_english, tmp_path):
    game = Path(shutil.copytree(french_english, tmp_path / "jeu"))
    cards = game / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    text = text.replace("name: {fr: Soleil, en: Sun}", "name: {fr: Soleil, en: Sun, ja: 太陽}")
    cards.write_text(text.replace("name: {fr: Lune, en: Moon}", "name: {en: Moon}"), encoding="utf-8")
    checked = cardgen("check", "jeu", "--no-simulate", cwd=tmp_path)
    assert checked.returncode == 1
    assert ("jeu/cards.yaml:5:33: card type 'sun' name: 'ja' is not a language of this game (languages: [fr, en] "
            "in game.yaml); remove the 'ja' text or add ja to languages") in checked.stderr, checked.stderr
    assert "jeu/cards.yaml:10:11: card type 'moon' name: the 'fr' text is missing; every text needs fr, en" in checked.stderr


def test_a_japanese_character_on_an_english_card_prints_in_the_japanese_face(french_english, tmp_path):
    """Fonts by script on a card face too (fonts.face_of): the Latin face sets what it has, the
    Japanese face of the box's role and weight the rest, so a Japanese name quoted in English prints."""
    game = Path(shutil.copytree(french_english, tmp_path / "jeu"))
    cards = game / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("en: Moon}", "en: Moon 月}"), encoding="utf-8")
    built = cardgen("build", "jeu", "--out", "out", "--only", "shop", "--lang", "en", "--workers", "1", cwd=tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    set_in: dict[str, str] = {}

    def visit(text, cm, tm, font, size):
        if font is not None and text.strip():
            name = str(font.get("/BaseFont")).split("+")[-1]
            set_in[name] = set_in.get(name, "") + text

    moon = next(page for page in PdfReader(tmp_path / "out" / "jeu" / "jeu-print-shop-en.pdf").pages if "Moon" in page.extract_text())
    moon.extract_text(visitor_text=visit)
    assert set_in.get("BIZUDGothic-Bold", "").strip() == "月", set_in  # the bold serif name box's Japanese face
    assert "Moon" in set_in["LiberationSerif-Bold"]


def test_a_character_no_font_has_is_an_error_naming_it(french_english, tmp_path):
    game = Path(shutil.copytree(french_english, tmp_path / "jeu"))
    cards = game / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("en: Moon}", "en: Moon 달}"), encoding="utf-8")
    built = cardgen("build", "jeu", "--out", "out", "--only", "shop", "--lang", "en", cwd=tmp_path)
    assert built.returncode == 1, built.stdout
    assert re.search(r"error: jeu/cards\.yaml:\d+:\d+: card moon-1: text box 'name' \(en\) holds '달' "
                     r"\(U\+B2EC HANGUL SYLLABLE DAL\), which the font LiberationSerif-Bold \(nor BIZUDGothic-Bold\) "
                     r"does not have", built.stderr), built.stderr
    assert "Traceback" not in built.stderr


def test_check_lists_the_words_a_declared_language_lacks_and_a_game_may_add_them(tmp_path):
    game = made(tmp_path, "juego", "es")  # a language cardgen ships no words for: the sample's texts are English to translate
    assert "languages: [es]" in (game / "game.yaml").read_text(encoding="utf-8")
    checked = cardgen("check", "juego", "--no-simulate", cwd=tmp_path)
    assert checked.returncode == 1
    words = [line for line in checked.stdout.splitlines() if "FAIL words:" in line]
    assert len(words) == 1 and "juego/game.yaml:4:1: languages: cardgen has no es words for" in words[0], checked.stdout
    assert "common.card," in words[0] and "templates/words.yaml" in words[0]

    # the game's own words.yaml adds words in any language; a placeholder the word has not is refused at its line
    (game / "templates" / "words.yaml").write_text('words:\n  common:\n    card: {es: Carta}\n    cards_unit: {es: "{m} cartas"}\n',
                                                   encoding="utf-8")
    checked = cardgen("check", "juego", "--no-simulate", cwd=tmp_path)
    assert re.search(r"templates/words\.yaml:4:17: words\.common\.cards_unit\.es: '\{m\}' is not a field of this word; "
                     r"it may use \{n\}", checked.stdout + checked.stderr), checked.stdout + checked.stderr
    (game / "templates" / "words.yaml").write_text('words:\n  common:\n    card: {es: Carta}\n', encoding="utf-8")
    checked = cardgen("check", "juego", "--no-simulate", cwd=tmp_path)
    words = [line for line in checked.stdout.splitlines() if "FAIL words:" in line]
    assert len(words) == 1 and "common.card," not in words[0] and "common.cards," in words[0]


# Japanese-only in the slow run: the default run's budget is tight, and English-only shows the same per-language rule
@pytest.mark.parametrize("languages, rules", [("en", ["en"]), pytest.param("ja", ["ja"], marks=pytest.mark.slow)])
def test_a_one_language_game_builds_its_language_only(tmp_path, languages, rules):
    game = made(tmp_path, "solo", languages)
    assert (typed_japanese(game) == []) == (languages == "en")
    assert "languages:" in (game / "game.yaml").read_text(encoding="utf-8")
    built = cardgen("build", "solo", "--out", "out", "--only", "rules", "--only", "sheets", "--workers", "1", cwd=tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    out = tmp_path / "out" / "solo"
    assert sorted(p.name for p in out.glob("*.pdf")) == ["solo-cards-a4.pdf", *(f"solo-rules-{lang}.pdf" for lang in rules)]
    cover = PdfReader(out / f"solo-rules-{rules[0]}.pdf").pages[0].extract_text()
    assert ("A New Game" in cover) == (languages == "en") and ("新しいゲーム" in cover) == (languages == "ja")


@pytest.mark.slow
@pytest.mark.parametrize("languages", ["en", "ja", "fr,en"])
def test_new_games_in_any_languages_check_and_build_every_output(tmp_path, languages):
    game = made(tmp_path, "any", languages)
    assert typed_japanese(game) == [] or languages == "ja"
    checked = cardgen("check", "any", "--no-simulate", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout
    for lang in languages.split(","):
        built = cardgen("build", "any", "--out", "out", "--lang", lang, cwd=tmp_path)
        assert built.returncode == 0, built.stdout + built.stderr
    out = tmp_path / "out" / "any"
    assert (out / "preview.html").is_file() and (out / "tts").is_dir()
    if languages == "fr,en":
        assert (out / "preview-en.html").is_file() and (out / "tts-en").is_dir() and (out / "png-en").is_dir()


def test_a_german_game_in_a_spreadsheet_has_a_column_per_language(tmp_path):
    done = cardgen("new", "spiel", "--languages", "de", "--cards", "csv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    cards = tmp_path / "spiel" / "cards.csv"
    header = cards.read_text(encoding="utf-8").splitlines()[0]
    assert header == "id,type,copy,name_de,power,suit,ability_de"
    checked = cardgen("check", "spiel", "--no-simulate", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "every output lays out (de)" in checked.stdout
    cards.write_text(cards.read_text(encoding="utf-8").replace("ability_de", "ability_en", 1), encoding="utf-8")
    checked = cardgen("check", "spiel", "--no-simulate", cwd=tmp_path)
    assert checked.returncode == 1
    assert "spiel/cards.csv:1:7: unknown column 'ability_en'" in checked.stderr and "ability_de" in checked.stderr, checked.stderr


def test_check_names_the_words_a_language_lacks_where_each_command_prints_them(tmp_path):
    """Italian, which cardgen ships no words for, in a game with an engine: the build's words at
    `languages:`, the balance report's words and bot labels at its report.yaml, the sweep's at
    `engine:`; the game's own words.yaml and labels complete them."""
    game = translated(CRAZY_EIGHTS, tmp_path / "tombola", ("it",))
    checked = cardgen("check", "tombola", "--no-simulate", cwd=tmp_path)
    assert checked.returncode == 1
    failed = [line.split("FAIL words: ", 1)[1] for line in checked.stdout.splitlines() if "FAIL words:" in line]
    lines = {key: index + 1 for index, text in enumerate((game / "game.yaml").read_text(encoding="utf-8").splitlines())
             for key in ("languages", "engine") if text.startswith(f"{key}:")}
    assert len(failed) == 4, checked.stdout
    from cardgen.words import bundled

    printed_by_build = [key for key in bundled().words if key.split(".")[0] not in ("report", "sweep")]  # the TTS words too
    assert failed[0].startswith(f"tombola/game.yaml:{lines['languages']}:1: languages: cardgen has no it words for "
                                f"{len(printed_by_build)} word(s) the outputs print (common.card, "), failed[0]
    assert failed[1].startswith("tombola/templates/report.yaml:1:1: report.yaml: cardgen has no it words for 39 word(s) "
                                "cardgen report prints (report.title, "), failed[1]
    assert failed[2].startswith("tombola/templates/report.yaml:1:1: report.yaml: cardgen has no it labels for 8 bot(s) "
                                "cardgen report prints (policy.random, "), failed[2]
    assert "add labels: {policy: {random: {it: ...}}} to game.yaml" in failed[2]
    assert failed[3].startswith(f"tombola/game.yaml:{lines['engine']}:1: engine: cardgen has no it words for 25 word(s) "
                                "cardgen sweep prints (sweep.title, "), failed[3]

    # every word in the game's own words.yaml (here the English ones) and the bots' labels in game.yaml: words pass
    own = {}
    for key, text in bundled().words.items():
        group, name = key.split(".", 1)
        own.setdefault(group, {})[name] = {"it": text.get("en")}
    (game / "templates" / "words.yaml").write_text(yaml.safe_dump({"words": own}, allow_unicode=True), encoding="utf-8")
    data = yaml.safe_load((game / "game.yaml").read_text(encoding="utf-8"))
    data["labels"]["policy"].update({name: {"it": text.get("en")} for name, text in bundled().labels["policy"].items()})
    (game / "game.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    checked = cardgen("check", "tombola", "--no-simulate", cwd=tmp_path)
    assert "FAIL words:" not in checked.stdout and "every interface word is there in it" in checked.stdout, checked.stdout
