"""Interface words and enum labels (cardgen/words.py): one data file, every language, no id on paper."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from cardgen import words
from cardgen.checks import label_checks
from cardgen.engine.simulate import simulate
from cardgen.errors import DataError
from cardgen.langs import LANGUAGES, SUPPORTED
from cardgen.load import bundled_game_ids, bundled_games_dir, load_game

GAMES = bundled_game_ids()


def test_every_bundled_word_has_every_language_and_the_same_placeholders():
    # every language cardgen ships words for (SUPPORTED: ja, en, fr, de), the reports' and sweeps' too
    bundled = words.bundled()
    assert len(bundled.words) > 50
    for key, text in bundled.words.items():
        assert all(text.has(lang) and text.get(lang).strip() for lang in SUPPORTED), (key, text.languages)
        found = [set(re.findall(r"\{(\w+)\}", text.get(lang))) for lang in SUPPORTED]
        assert all(f == found[0] for f in found), f"{key}: placeholders differ between languages: {found}"
    for kind, values in bundled.labels.items():
        for value, text in values.items():
            assert all(text.has(lang) and text.get(lang).strip() for lang in SUPPORTED), (kind, value, text.languages)


def test_word_fills_placeholders_and_leaves_format_syntax_alone():
    assert words.word("rulebook.players_value", "ja", min=3, max=4) == "3〜4人"
    assert words.word("rulebook.players_value", "en", min=3, max=4) == "3–4"
    # not str.format: attribute access in a placeholder is text, not a lookup
    assert words.fill("{n.__class__} {n}", {"n": 5}) == "{n.__class__} 5"


@pytest.mark.parametrize("game_id", GAMES)
def test_bundled_games_label_every_enum_value(game_id):
    game = load_game(game_id)
    assert words.missing_labels(game) == []
    results = label_checks(game)
    assert all(r.ok for r in results)
    for name, spec in game.field_specs.items():
        for value in spec.values:
            for lang in LANGUAGES:
                shown = words.field_value(game, name, value, lang)
                assert shown != value or lang == "en" and value.isalpha() and shown == value.lower(), (name, value, lang)
                if lang == "ja":
                    assert not re.search(r"[A-Za-z_]{3,}", shown), (name, value, shown)


def test_card_field_values_are_printed_by_label():
    game = load_game("requiem")
    ally = next(c for c in game.cards if c.get("side") == "ally" and c.get("suit") == "coffin")
    assert words.field_value(game, "side", ally.get("side"), "ja") == "友軍"
    assert words.field_value(game, "suit", "coffin", "ja") == "柩"
    alice = load_game("alice")
    # event_colour shares the colour labels (label_kind: colour)
    assert words.field_value(alice, "event_colour", "red", "ja") == "赤"
    assert words.field_value(alice, "event", "discard_record_colour_all", "en") == "discard every record card of a colour"


def _copy_game(tmp_path: Path, game_id: str) -> Path:
    dest = tmp_path / game_id
    shutil.copytree(bundled_games_dir() / game_id, dest)
    return dest


def test_a_missing_label_fails_check_at_the_fields_line(tmp_path):
    root = _copy_game(tmp_path, "requiem")
    path = root / "game.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("    coffin: {ja: 柩, en: Coffin}\n", "")
    path.write_text(text, encoding="utf-8")
    game = load_game(root)
    failed = [r for r in label_checks(game) if not r.ok]
    assert len(failed) == 1
    values_line = next(i for i, line in enumerate(text.splitlines(), 1) if "values: [sword, skull" in line)
    assert failed[0].location.path.endswith("game.yaml") and failed[0].location.line == values_line
    assert "coffin" in failed[0].message
    # the render falls back to the value; check is what refuses it
    assert words.field_value(game, "suit", "coffin", "ja") == "coffin"


def test_a_bundled_label_a_declared_language_lacks_fails_check_at_the_fields_line(tmp_path):
    """A field labelled by cardgen's colours in Spanish, which cardgen has no labels for: check says so
    at the field (printing the English word is not silent); the game's own labels complete it."""
    from cardgen.scaffold import new_game

    root = new_game(tmp_path / "juego", languages=("es",))
    path = root / "game.yaml"
    text = path.read_text(encoding="utf-8").replace(
        "  ability: {type: text", "  ink: {type: enum, values: [red, blue], label: {es: Tinta}, label_kind: colour}\n  ability: {type: text")
    path.write_text(text, encoding="utf-8")
    failed = [r for r in label_checks(load_game(root)) if not r.ok]
    ink_line = next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("  ink:"))
    assert [(r.location.line, r.message) for r in failed] == [
        (ink_line, "card_fields.ink: cardgen has no es label for red, blue; add labels: {colour: {red: {es: ...}}} to game.yaml")]
    path.write_text(text.replace("labels:\n", "labels:\n  colour: {red: {es: rojo}, blue: {es: azul}}\n"), encoding="utf-8")
    assert all(r.ok for r in label_checks(load_game(root)))


def test_a_misspelt_label_fails_check_at_its_line(tmp_path):
    root = _copy_game(tmp_path, "requiem")
    path = root / "game.yaml"
    text = path.read_text(encoding="utf-8").replace("    enemy: {ja: 敵軍, en: enemy}\n",
                                                    "    enemy: {ja: 敵軍, en: enemy}\n    enemmy: {ja: 敵, en: foe}\n")
    path.write_text(text, encoding="utf-8")
    failed = [r for r in label_checks(load_game(root)) if not r.ok]
    lines = text.splitlines()
    labels_at = lines.index("labels:")
    side_line = next(i for i, line in enumerate(lines[labels_at:], labels_at + 1) if line.startswith("  side:"))
    assert [("enemmy" in r.message, r.location.line) for r in failed] == [(True, side_line)]


def test_a_label_without_both_languages_is_refused_at_load(tmp_path):
    root = _copy_game(tmp_path, "requiem")
    path = root / "game.yaml"
    text = path.read_text(encoding="utf-8").replace("ally: {ja: 友軍, en: ally}", "ally: {ja: 友軍}")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_game(root)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if "ally: {ja: 友軍}" in l)
    assert any(p.location.line == line and "'en' text is missing" in p.message for p in caught.value.problems)


def test_a_game_may_override_a_word_but_not_add_placeholders(tmp_path):
    root = _copy_game(tmp_path, "llll")
    (root / "templates").mkdir()
    (root / "templates" / "words.yaml").write_text(
        "words:\n  rulebook:\n    contents: {ja: もくじ, en: Table of contents}\n", encoding="utf-8")
    game = load_game(root)
    assert words.word("rulebook.contents", "ja", game) == "もくじ"
    assert words.word("rulebook.contents", "ja") == "目次"
    (root / "templates" / "words.yaml").write_text(
        "words:\n  rulebook:\n    contents: {ja: \"{secret}\", en: x}\n    contnets: {ja: a, en: b}\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        words.word("rulebook.contents", "ja", load_game(root))
    messages = sorted((p.location.line, p.message.split(" ")[0]) for p in caught.value.problems)
    assert messages == [(3, "words.rulebook.contents.ja:"), (4, "words.rulebook.contnets")]


def test_policies_are_labelled_with_their_settings():
    game = load_game("ohanatsumi")
    assert words.label("policy", "balanced", "ja", game) == "バランス"
    assert words.label("policy", "greedy", "en", game) == "greedy"
    assert words.policy_label("ismcts:100:balanced", "en", game) == "information-set MCTS (100 iterations, balanced rollouts)"
    assert words.label("policy", "ismcts:100:balanced", "ja", game) == "情報集合モンテカルロ木探索（反復100回、プレイアウトはバランス）"
    assert words.label("policy", "ismcts:50", "ja", game) == "情報集合モンテカルロ木探索（反復50回）"


# Every ending each engine can produce: the literals the engines pass as an ending (grep the
# engines: `_finish("...")`, `_lose(..., "...")`, `ending="..."`, `"defeat:" + loss`).
ENGINE_ENDINGS = {
    "llll": {"princess", "points"},
    "requiem": {"happy", "void", "bad", "defeat:city-deck-empty", "defeat:king-lost"},
    "alice": {"solved", "three-alices", "deck-empty", "cold-case"},
    "ohanatsumi": {"quests-exhausted"},
}


def test_the_ending_list_matches_the_engines_source():
    """A new ending literal in an engine must be added above (and labelled)."""
    root = Path(__file__).resolve().parent.parent / "cardgen" / "engine"
    for game_id, expected in ENGINE_ENDINGS.items():
        source = (root / f"{game_id}.py").read_text(encoding="utf-8")
        found = set(re.findall(r'_finish\("([\w:-]+)"\)|_lose\((?:\w+, )?"([\w:-]+)"\)|ending="([\w:-]+)"|len\(self\.history\), None, "([\w:-]+)"', source))
        literals = {next(x for x in group if x) for group in found}
        if game_id == "requiem":
            literals = {f"defeat:{x}" for x in literals} | {e["id"] for e in load_game(game_id).parameters["endings"]}
        assert literals == expected, game_id


@pytest.mark.parametrize("game_id", GAMES)
def test_every_ending_and_policy_has_a_label(game_id):
    game = load_game(game_id)
    from cardgen.engine import game_engine

    module = game_engine(game)
    for ending in ENGINE_ENDINGS[game_id]:
        for lang in LANGUAGES:
            shown = words.label("ending", ending, lang, game)
            assert words.find_label("ending", ending, game) is not None and shown != ending, (ending, lang)
    for policy in [*getattr(module, "POLICIES", {}), "random", "first", "ismcts"]:
        assert words.find_label("policy", policy, game) is not None, policy
    # and what a short simulation reports is among them
    report = simulate(game, games=30, seed=3, players=game.min_players)
    assert set(report.as_dict()["endings"]) <= ENGINE_ENDINGS[game_id]


# --- no internal id on paper -------------------------------------------------------------------

def enum_ids(game) -> set[str]:
    """Every internal id a document could leak: enum values, endings and policies."""
    ids = {value for spec in game.field_specs.values() if spec.kind == "enum" for value in spec.values}
    for kind in ("ending", "policy"):
        ids |= set(game.labels.get(kind, {})) | set(words.bundled().labels.get(kind, {}))
    return ids | ENGINE_ENDINGS.get(game.id, set())


def ruling_ids(game) -> set[str]:
    """Rulings refer to each other in words: a decision id (deck-out, composition-tuning) is
    internal too. Searched in Japanese documents only: some are English phrases (two-character)."""
    return {d.id for d in game.decisions if "-" in d.id}


def parameter_paths(parameters: dict, prefix: str = "") -> set[str]:
    out = set()
    for key, value in parameters.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        out |= parameter_paths(value, path) if isinstance(value, dict) else {path}
    return out


def structure_ids(game, lang: str) -> set[str]:
    """The game's own ids: the game id, card type ids, rule parameter paths and the sweep's
    card paths, and card ids when they are generated (sun-1) rather than printed card numbers
    (OH001)."""
    ids = {t.id for t in game.card_types} | parameter_paths(dict(game.parameters))
    ids |= {f"cards.{t.id}.{what}" for t in game.card_types for what in ("count", *game.field_specs)}
    ids.add(game.id)
    if not game.numbered:
        ids |= {card.id for card in game.cards}
    return {i for i in ids if len(i) > 2}


def leaked_ids(text: str, ids: set[str], lang: str, never_words: set[str] = frozenset()) -> set[str]:
    """The ids found in `text` as whole words. In English an id that is also an ordinary word
    (ally, red, random) is only searched for when it has '-', '_', '.' or ':' in it, or is
    one of `never_words` (a game id that is no English word: ohanatsumi)."""
    found = set()
    for value in ids:
        if lang == "en" and not re.search(r"[-_.:]", value) and value not in never_words:
            continue
        if re.search(r"(?<![A-Za-z0-9_:.-])" + re.escape(value) + r"(?![A-Za-z0-9_:-])", text):
            found.add(value)
    return found


def pdf_pages(path: Path) -> list[str]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    try:
        return [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    finally:
        doc.close()


# a sweep per game: a card count and a rule parameter (the axes, headers and values print them);
# requiem's refuses points, so the refused list is read too
SWEEPS = {"alice": ("cards.red_place.count=3..4", "memo_limit=3,4"),
          "requiem": ("cards.recruit.count=5,6", "score.per_recruit=1,2")}
STARTER = "starter"  # a `cardgen new` game: generated card ids, the starter layout


@pytest.fixture(scope="module")
def built_documents(tmp_path_factory):
    from cardgen.build import build_games, make_options
    from cardgen.scaffold import new_game

    out = tmp_path_factory.mktemp("documents")
    starter = new_game(tmp_path_factory.mktemp("new") / STARTER)
    games = [load_game(g) for g in GAMES]
    for lang in LANGUAGES:
        # rules and the standard sheet come in both languages from one build (the ja one)
        outputs = ("sheets", "rules", "standard", "playtest", "tuckbox") if lang == "ja" else ("sheets", "playtest", "tuckbox")
        build_games([*games, load_game(starter)], make_options(out=out / lang, lang=lang, outputs=outputs), workers=1)
    # balance and sweep reports: few games (the labels, not the numbers, are under test)
    from cardgen.files import write_atomic
    from cardgen.analysis.balance import run_report
    from cardgen.analysis.overrides import parse_vary
    from cardgen.analysis.sweep import run_sweep
    from cardgen.render.documents.report import build_balance_report
    from cardgen.render.documents.sweep_report import build_sweep_report
    from cardgen.sweep_result import SweepSpec

    for game in games:
        results = run_report(game, games=12, seed=3, workers=1)
        sweep = None
        if game.id in SWEEPS:
            spec = SweepSpec(game.id, tuple(parse_vary(v) for v in SWEEPS[game.id]), games=4, seed=1)
            sweep = run_sweep(spec, out_dir=tmp_path_factory.mktemp("sweeps"))
        for lang in LANGUAGES:
            write_atomic(out / lang / game.id / f"{game.id}-balance-{lang}.pdf", build_balance_report(game, lang, results))
            if sweep is not None:
                write_atomic(out / lang / game.id / f"{game.id}-sweep-{lang}.pdf", build_sweep_report(game, sweep, lang))
    return out, starter


def test_leak_search_finds_ids_as_whole_words_only():
    assert leaked_ids("陣営: ally", {"ally"}, "ja") == {"ally"}
    assert leaked_ids("allyship", {"ally"}, "ja") == set()
    assert leaked_ids("an ally card", {"ally"}, "en") == set()
    assert leaked_ids("ending defeat:king-lost.", {"defeat:king-lost", "king"}, "en") == {"defeat:king-lost"}
    assert leaked_ids("axis: cards.red_place.count", {"cards.red_place.count", "red_place"}, "en") == {"cards.red_place.count"}
    assert leaked_ids("Going to Pick Flowers (ohanatsumi)", {"ohanatsumi"}, "en", {"ohanatsumi"}) == {"ohanatsumi"}
    assert leaked_ids("will become a requiem", {"requiem"}, "en") == set()


@pytest.mark.parametrize("game_id", [*GAMES, STARTER])
def test_no_internal_id_in_any_document(built_documents, game_id):
    """No page of a build, ja or en (sheets and checklist, rulebooks, standard sheet, playtest
    kit, tuck box, balance and sweep reports), prints an id: enum values, endings, policies,
    the game id, card type ids, parameter paths, generated card ids. No place is exempt."""
    out, starter = built_documents
    pdfs = sorted(out.glob(f"*/{game_id}/*.pdf"))
    game = load_game(starter if game_id == STARTER else game_id)
    assert len(pdfs) >= (7 if game_id == STARTER else 11), pdfs  # sheets, playtest, tuck box (and balance report) per language, both rulebooks, standard sheet
    assert game_id not in SWEEPS or len([p for p in pdfs if "-sweep-" in p.name]) == 2
    leaks = []
    for pdf in pdfs:
        lang = "en" if pdf.parts[-3] == "en" and "-rules-ja" not in pdf.name or "-rules-en" in pdf.name else "ja"
        assert lang == "ja" or "-ja" not in pdf.name
        ids = enum_ids(game) | structure_ids(game, lang) | (ruling_ids(game) if lang == "ja" else set())
        for page, text in enumerate(pdf_pages(pdf), 1):
            # in English a game id that is a word of its English title (alice, requiem) is prose
            title_words = set(re.findall(r"[a-z]+", game.title.en.lower()))
            found = leaked_ids(text, ids, lang, {game.id} - title_words)
            leaks += [f"{pdf.parts[-3]}/{pdf.name} p{page}: {value}" for value in sorted(found)]
    assert leaks == []


def test_a_word_keeps_its_own_spaces(tmp_path):
    """Separators and suffixes are words too; reading a words file must not strip them."""
    root = _copy_game(tmp_path, "llll")
    (root / "templates").mkdir()
    (root / "templates" / "words.yaml").write_text(
        'words:\n  playtest:\n    back_title: {ja: "{name}（裏）", en: "{name}  (reverse) "}\n', encoding="utf-8")
    assert words.word("playtest.back_title", "en", load_game(root), name="Maid") == "Maid  (reverse) "
