"""Balance reports, read back from the PDFs: numbers equal simulate's, charts are matplotlib
vectors with every font embedded, labels in the report's language, no per-seat chart for one player."""

from __future__ import annotations

import io
import json
from functools import cache

import pypdfium2 as pdfium
import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from cardgen import words
from cardgen.cli import cli
from cardgen.load import load_game
from cardgen.analysis.balance import run_report
from cardgen.render.documents.report import (DEFAULT_GAMES, MAX_GAMES, ReportRun, build_balance_report, games_needed, games_of,
                                             report_runs)

from .conftest import BUNDLED, catalog_lang


def page_texts(pdf: bytes) -> list[str]:
    document = pdfium.PdfDocument(pdf)
    return [document[i].get_textpage().get_text_range() for i in range(len(document))]


def squash(text: str) -> str:
    return "".join(text.split())


@cache
def results_of(game_id: str, games: int = 40) -> list:
    return run_report(load_game(game_id), games=games, seed=5, workers=1)


@cache
def report_of(game_id: str, lang: str) -> bytes:
    return build_balance_report(load_game(game_id), lang, results_of(game_id))


def unembedded_fonts(pdf: bytes) -> list[str]:
    """Every font of every page (and of the forms it draws) without an embedded font program:
    a Type 3 font, a standard-14 font such as Helvetica, or a descriptor with no FontFile."""
    bad = []

    def visit(resources, seen) -> None:
        resources = resources.get_object() if resources is not None else {}
        for name, font in (resources.get("/Font") or {}).items():
            font = font.get_object()
            subtype = font.get("/Subtype")
            if subtype == "/Type3":
                bad.append(f"{name}: Type 3")
                continue
            target = font["/DescendantFonts"][0].get_object() if subtype == "/Type0" else font
            descriptor = target.get("/FontDescriptor")
            files = set(descriptor.get_object().keys()) if descriptor is not None else set()
            if not files & {"/FontFile", "/FontFile2", "/FontFile3"}:
                bad.append(f"{name}: {font.get('/BaseFont')} not embedded")
        for xobject in (resources.get("/XObject") or {}).values():
            xobject = xobject.get_object()
            if xobject.get("/Subtype") == "/Form" and id(xobject) not in seen:
                seen.add(id(xobject))
                visit(xobject.get("/Resources"), seen)

    for page in PdfReader(io.BytesIO(pdf)).pages:
        visit(page.get("/Resources"), set())
    return bad


@pytest.mark.parametrize("game_id", BUNDLED)
def test_every_font_of_a_balance_report_is_embedded(game_id):
    pdf = report_of(game_id, "ja")
    assert unembedded_fonts(pdf) == []
    reader = PdfReader(io.BytesIO(pdf))
    for page in reader.pages:      # charts are vectors, not pictures
        xobjects = (page["/Resources"].get("/XObject") or {}).values()
        assert not [x for x in xobjects if x.get_object().get("/Subtype") == "/Image"]


@pytest.mark.parametrize("lang, words", [
    ("ja", ["プレイヤーの選択数（1ゲーム）", "ゲーム数", "席ごとの勝率", "公平な取り分25%", "得点"]),
    ("en", ["Player decisions per game", "Games", "Win rate by seat", "fair share 25%", "Score"]),
])
def test_chart_labels_are_text_in_the_reports_language(lang, words):
    text = squash("".join(page_texts(report_of("llll", lang))))
    for word in words:
        assert squash(word) in text, word


@pytest.mark.parametrize("lang, tag", [("ja", "ja-JP"), ("en", "en")])
def test_a_report_names_its_language_once_its_charts_are_placed(lang, tag):
    """The charts are laid on the pages by pypdf, which rewrites the file: its catalog keeps /Lang."""
    assert catalog_lang(report_of("llll", lang)) == tag


@pytest.mark.parametrize("game_id", BUNDLED)
@pytest.mark.parametrize("lang", ["ja", "en"])
def test_no_policy_or_ending_id_on_the_page(game_id, lang):
    """Every policy and ending the runs produced is printed by its label; only the command line
    that reproduces a run keeps the CLI's policy names."""
    game = load_game(game_id)
    ids = set()
    for _run, data in results_of(game_id):
        ids |= {("policy", p) for p in data["policies"]} | {("ending", e) for e in data["endings"]}
    lines = [line for text in page_texts(report_of(game_id, lang)) for line in text.splitlines()
             if "cardgen simulate" not in line and "--" not in line]
    checked = 0
    for kind, identifier in sorted(ids):
        if identifier in words.label(kind, identifier, lang, game):   # en 'heuristic', 'case solved'
            continue
        checked += 1
        assert not [line for line in lines if identifier in line], (kind, identifier)
    assert checked or lang == "en"


def test_per_seat_chart_only_for_multi_player_runs():
    pages = page_texts(report_of("ohanatsumi", "en"))
    runs = report_runs(load_game("ohanatsumi"))
    solo_title = next(r.title["en"] for r in runs if r.players == 1)
    solo = next(p for p in pages if solo_title in p)
    multi = [p for p in pages if "4 players, balanced bots" in p]
    assert "Win rate by seat" not in solo and "Seat 1 advantage" not in solo
    assert "Scores" in solo and "Player decisions per game" in solo
    assert multi and "Win rate by seat" in multi[0]


def test_report_is_reproducible():
    game = load_game("alice")
    assert build_balance_report(game, "en", results_of("alice")) == build_balance_report(game, "en", results_of("alice"))


def test_runs_name_their_own_game_count(game_copy, tmp_path):
    folder = game_copy("alice")
    (folder / "templates").mkdir()
    (folder / "templates" / "report.yaml").write_text(
        "runs:\n  - title: {ja: 短い, en: Short}\n    players: 1\n    variant: solo\n    games: 7\n", encoding="utf-8")
    run, = report_runs(load_game(str(folder)))
    assert games_of(run, None) == 7
    result = CliRunner().invoke(cli, ["report", str(folder), "--seed", "1", "--out", str(tmp_path / "out"),
                                      "--lang", "en", "--workers", "1"])
    assert result.exit_code == 0, result.output
    pdf = (tmp_path / "out" / "alice" / "alice-balance-en.pdf").read_bytes()
    assert "7games·seed1" in squash("".join(page_texts(pdf)))


def test_games_option_sizes_the_whole_report():
    """--games N: runs without `games:` play N, a run with its own count the same share of it
    (count x N / DEFAULT_GAMES, rounded down), so a slow search run stays small in a quick report."""
    own, plain = ReportRun({"ja": "探索", "en": "search"}, 4, ("ismcts:40:greedy",), games=40), ReportRun({"ja": "a", "en": "a"}, 4, ("greedy",))
    assert DEFAULT_GAMES == 2000
    assert [games_of(plain, n) for n in (None, 40, 5000)] == [2000, 40, 5000]
    assert [games_of(own, n) for n in (None, 2000, 200, 50, 49, 40, 4000)] == [40, 40, 4, 1, 0, 0, 80]
    assert games_needed(own) == 50 and games_needed(ReportRun({}, 1, ("random",), games=7)) == 286
    assert games_of(ReportRun({}, 1, ("random",), games=MAX_GAMES), MAX_GAMES) == MAX_GAMES     # never more than a run may ask


def test_a_run_that_comes_to_no_game_is_listed_as_not_played(game_copy, tmp_path):
    folder = game_copy("alice")
    (folder / "templates").mkdir()
    (folder / "templates" / "report.yaml").write_text(
        "runs:\n  - title: {ja: 短い, en: Short}\n    players: 1\n    variant: solo\n    games: 7\n"
        "  - title: {ja: 長い, en: Long}\n    players: 1\n    variant: solo\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["report", str(folder), "--games", "100", "--seed", "1", "--out", str(tmp_path),
                                      "--lang", "en", "--workers", "1"])
    assert result.exit_code == 0, result.output
    text = squash("".join(page_texts((tmp_path / "alice" / "alice-balance-en.pdf").read_bytes())))
    assert squash("Not played in this report: this run plays 7 games in a report of 2000, and at --games 100") in text
    assert squash("It plays from --games 286.") in text
    assert squash("not played (--games too small)") in text and "100games·seed1" in text


@pytest.mark.parametrize("value", ["many", "0", "-3", "true", "4.5", "1e9", "20000000", "[4]", "{a: 1}", '""', "null"])
def test_a_bad_game_count_is_refused_at_its_line(game_copy, tmp_path, value):
    folder = game_copy("alice")
    (folder / "templates").mkdir()
    (folder / "templates" / "report.yaml").write_text(
        f"runs:\n  - title: {{ja: 短い, en: Short}}\n    players: 1\n    games: {value}\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["report", str(folder), "--out", str(tmp_path)])
    assert result.exit_code != 0 and "report.yaml:4:" in result.output and "games" in result.output
    assert "Traceback" not in result.output


def test_a_report_shows_skilled_play(game_copy, tmp_path):
    """A run with a searching seat (tiny IS-MCTS) against the game's bot: the skill table prints
    its win rate against the fair share, labelled in words, with its game count, as simulate gives it."""
    folder = game_copy("ohanatsumi")
    (folder / "templates").mkdir()
    (folder / "templates" / "report.yaml").write_text(
        "runs:\n  - title: {ja: 探索, en: Searching}\n    players: 4\n    rotate: true\n    games: 4\n"
        "    policies: ['ismcts:3:balanced', balanced, balanced, balanced]\n", encoding="utf-8")
    game = load_game(str(folder))
    results = run_report(game, None, seed=2, workers=1)
    (_run, data), = results
    assert data["games"] == 4
    row = next(r for r in data["strategies"] if r["policy"] == "ismcts:3:balanced")
    lo, hi = row["wilson95"]
    figures = f"{row['win_rate'] * 100:.1f}% [{lo * 100:.1f}% – {hi * 100:.1f}%]"
    for lang, label, against, measure in [
            ("en", "information-set MCTS (3 iterations, balanced rollouts)", "balanced", "Win rate (fair share 25%)"),
            ("ja", "情報集合モンテカルロ木探索（反復3回、プレイアウトはバランス）", "バランス", "勝率（公平な取り分 25%）")]:
        pdf = build_balance_report(game, lang, results)
        pages = [page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages]
        skill = squash(pages[-1][pages[-1].index("Does skill" if lang == "en" else "腕前は効くか"):])
        assert squash(label) in skill and squash(measure) in skill, lang
        assert squash(f"4{label}{against}{measure}4{figures}") in skill, (lang, skill)   # players ... games, rate


def test_report_numbers_equal_simulate_json(tmp_path):
    game = load_game("requiem")
    results = run_report(game, games=120, seed=7, workers=1, runs=report_runs(game)[:1])   # the greedy run is enough
    run, data = results[0]
    cli_result = CliRunner().invoke(cli, ["simulate", "requiem", "--games", "120", "--seed", "7", "--players", "3",
                                          *sum((["--policy", p] for p in run.policies), []), "--format", "json"])
    assert cli_result.exit_code == 0, cli_result.output
    printed = json.loads(cli_result.output[cli_result.output.index("{"):])
    for key in ("games", "seed", "players", "policies", "endings", "cooperative", "length", "scores"):
        assert printed[key] == data[key], key
    text = squash("".join(page_texts(build_balance_report(game, "en", results))))
    rate = data["cooperative"]["success_rate"] * 100
    assert squash(f"{rate:.1f}%") in text
    assert squash("120 games · seed 7 · 3 players") in text
    assert "cardgen0.1.0" in text


def test_report_runs_are_data():
    runs = report_runs(load_game("ohanatsumi"))
    comparison = runs[0]
    assert comparison.rotate and set(comparison.policies) >= {"lightest", "greedy", "cautious"}


def test_report_command_writes_pdf(tmp_path):
    result = CliRunner().invoke(cli, ["report", "alice", "--games", "40", "--seed", "3", "--out", str(tmp_path),
                                      "--lang", "en", "--workers", "1"])
    assert result.exit_code == 0, result.output
    pdf = (tmp_path / "alice" / "alice-balance-en.pdf").read_bytes()
    text = squash("".join(page_texts(pdf)))
    assert "Successrate" in text and "40games·seed3" in text




def test_report_progress_is_weighted_by_what_a_game_of_each_run_costs():
    """`cardgen report`'s bar counts estimated seconds, not games: a search run's game is timed
    first and costs its share, and it reports in steps rather than once at its end, so the ETA
    neither reads 00:00:00 with search runs left nor stays silent through them."""
    from cardgen.analysis.balance import seconds_per_game
    from cardgen.commandline import WEIGHT_STEPS, weighted_steps
    from cardgen.render.documents.report import ReportRun, games_of

    game = load_game("alice")
    title = {"ja": "t", "en": "t"}
    runs = [ReportRun(title, 1, ("random",)), ReportRun(title, 1, ("ismcts:10",))]
    costs = seconds_per_game(game, runs, seed=1)
    assert costs[1] > 5 * costs[0], costs
    steps: list[float] = []
    run_report(game, games=4, seed=1, workers=1, progress=steps.append, runs=runs, costs=costs)
    total = sum(games_of(run, 4) * cost for run, cost in zip(runs, costs))
    assert sum(steps) == pytest.approx(total)
    assert len([s for s in steps if s > costs[0] * 4]) >= 2   # the search run moves the bar more than once

    class Bar:
        pos = 0

        def update(self, n: int) -> None:
            self.pos += n

    bar = Bar()
    step = weighted_steps(bar, total)
    for amount in steps[:len(steps) // 2]:
        step(amount)
    assert bar.pos == round(sum(steps[:len(steps) // 2]) / total * WEIGHT_STEPS)
    for amount in steps[len(steps) // 2:]:
        step(amount)
    assert bar.pos == WEIGHT_STEPS
