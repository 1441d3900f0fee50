"""Parameter sweeps (issue 14): a Dask cluster gives the local table, an interrupted sweep resumes
to the same table, overrides the game's rules refuse are refused by name, the report PDF."""

from __future__ import annotations

import io
import json

import pytest
from click.testing import CliRunner

from cardgen.analysis.executors import LocalExecutor
from cardgen.analysis.overrides import GameSource, Refused, parse_vary
from cardgen.analysis.sweep import SweepSpec, metrics_of, parse_target, plan_points, run_sweep, table_csv
from cardgen.cli import cli
from cardgen.errors import CardgenError

GRID = SweepSpec("ohanatsumi", (parse_vary("elf_urge_default=0..1"), parse_vary("cards.quest_escort.fame=4,6,8")),
                 games=50, seed=7, players=3)


def test_dask_cluster_equals_local(tmp_path):
    distributed = pytest.importorskip("distributed")
    from cardgen.analysis.executors import DaskExecutor

    local = run_sweep(GRID, LocalExecutor(2), results_dir=tmp_path / "local")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        remote = run_sweep(GRID, DaskExecutor(client=client), results_dir=tmp_path / "dask")
    assert remote.ran == local.ran == 6
    assert remote.rows() == local.rows()           # point for point, every metric
    assert table_csv(remote) == table_csv(local)


def test_resume_after_interrupt(tmp_path):
    whole = run_sweep(GRID, LocalExecutor(1), results_dir=tmp_path / "whole")
    seen = []

    def stop_after_two(p):
        seen.append(p.done)
        if p.done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_sweep(GRID, LocalExecutor(2), results_dir=tmp_path / "cut", progress=stop_after_two)
    assert len(list((tmp_path / "cut" / "points").glob("*.json"))) == 2
    again = run_sweep(GRID, LocalExecutor(2), results_dir=tmp_path / "cut")
    assert (again.reused, again.ran) == (2, 4)     # the finished points are not run again
    assert again.rows() == whole.rows()
    third = run_sweep(GRID, LocalExecutor(2), results_dir=tmp_path / "cut")
    assert (third.reused, third.ran) == (6, 0)


def test_results_do_not_depend_on_point_order(tmp_path):
    turned = SweepSpec("ohanatsumi", tuple(reversed(GRID.varies)), games=50, seed=7, players=3)
    a = {tuple(sorted((k, r[k]) for k in ("elf_urge_default", "cards.quest_escort.fame"))): r["seat1_win_rate"]
         for r in run_sweep(GRID, LocalExecutor(1), results_dir=tmp_path / "a").rows()}
    b = {tuple(sorted((k, r[k]) for k in ("elf_urge_default", "cards.quest_escort.fame"))): r["seat1_win_rate"]
         for r in run_sweep(turned, LocalExecutor(1), results_dir=tmp_path / "b").rows()}
    assert a == b


@pytest.mark.parametrize("override, named", [
    ({"event_urge.min": 4}, "event_urge"),                         # engine setup check (min above max)
    ({"event_urge.max": 2}, "event_urge"),                         # printed events outside the range
    ({"elf_urge_default": -1}, "elf_urge_default"),                # the declared PARAMETERS range
    ({"cards.quest_escort.fame": 99}, "fame"),                     # the card field's declared maximum
    ({"no_such_rule": 1}, "no_such_rule"),
    ({"cards.nobody.count": 3}, "nobody"),
])
def test_overrides_that_break_the_game_are_refused_by_name(override, named):
    with pytest.raises(Refused) as caught:
        GameSource("ohanatsumi").build(override)
    assert named in str(caught.value)


def test_alice_composition_checked():
    source = GameSource("alice")
    assert source.build({"cards.red_place.count": 2}).total == 21           # the declared total follows
    with pytest.raises(Refused, match="link-table-covers"):
        source.build({"cards.red_place.count": 6})
    with pytest.raises(Refused, match="suspects-solvable"):
        source.build({"cards.red_weapon.count": 0})


def test_overrides_never_touch_the_files():
    source = GameSource("ohanatsumi")
    before = [(source.root / n).read_bytes() for n in ("game.yaml", "cards.yaml")]
    game = source.build({"cards.quest_escort.count": 6, "cards.quest_escort.copies.2.back_fame": 7, "event_urge.max": 4})
    assert len(game.cards_of("quest_escort")) == 6 and game.declared_total == 132
    assert game.cards_of("quest_escort")[1].get("back_fame") == 7 and game.param("event_urge")["max"] == 4
    assert [(source.root / n).read_bytes() for n in ("game.yaml", "cards.yaml")] == before


def test_all_invalid_sweep_refused_some_invalid_skipped(tmp_path):
    with pytest.raises(CardgenError, match="event_urge.min 4 is above"):
        run_sweep(SweepSpec("ohanatsumi", (parse_vary("event_urge.min=4..5"),), games=5, players=3),
                  LocalExecutor(1), results_dir=tmp_path / "a")
    mixed = run_sweep(SweepSpec("alice", (parse_vary("cards.red_place.count=3..5"),), games=5),
                      LocalExecutor(1), results_dir=tmp_path / "b")
    assert [r["cards.red_place.count"] for r in mixed.rows()] == [3, 4]
    assert len(mixed.refused) == 1 and "cards.red_place.count=5" in mixed.refused[0][1]


@pytest.mark.parametrize("game, vary, said", [
    ("alice", "rounds=6,8", "--vary rounds: the game's rule parameters have no 'rounds'; they are: deck, memo_limit"),
    ("ohanatsumi", "event_urge.most=3,4", "--vary event_urge.most: parameter event_urge has no 'most'; its parts are: min, max"),
    ("alice", "cards.maid.count=8..10", "--vary cards.maid.count: no card type 'maid'; the types are: alice_red"),
    ("alice", "cards.alice_red.name=1,2", "--vary cards.alice_red.name: a card type's name is not a balance number"),
    ("alice", "cards.alice_red.count.extra=1,2", "--vary cards.alice_red.count.extra: write cards.alice_red.FIELD"),
])
def test_a_path_that_names_nothing_is_refused_once_before_any_point(tmp_path, game, vary, said):
    result = CliRunner().invoke(cli, ["sweep", game, "--vary", vary, "--vary", "cards.alice_black.count=1,2" if game == "alice"
                                      else "elf_urge_default=0,1", "--games", "5", "--out", str(tmp_path), "--workers", "1"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit) and "Traceback" not in result.output
    assert result.output.count(said) == 1, result.output
    assert not (tmp_path / game).exists()          # refused before a results folder is made


def test_points_refused_alike_are_said_once(tmp_path):
    # four points, each refused for its count alone (whatever the other value): two reasons, each said once
    spec = SweepSpec("alice", (parse_vary("cards.red_place.count=-1,-2"), parse_vary("cards.alice_black.count=1,2")), games=5)
    with pytest.raises(CardgenError) as caught:
        run_sweep(spec, LocalExecutor(1), results_dir=tmp_path / "a")
    message = str(caught.value)
    assert message.count("\n  ") == 2, message
    assert message.count("cards.red_place.count=-1: a count must be a whole number") == 1
    assert message.count("cards.red_place.count=-2: a count must be a whole number") == 1


def test_a_sweep_plans_a_bounded_number_of_points():
    wide = (parse_vary("elf_urge_default=1..400"), parse_vary("cards.quest_escort.fame=1..400"))   # 160,000 points
    with pytest.raises(CardgenError, match="160,000 points, more than 100,000; use --samples"):
        plan_points(SweepSpec("ohanatsumi", wide))
    with pytest.raises(CardgenError, match="--samples must be 1 to 100,000"):
        plan_points(SweepSpec("ohanatsumi", wide, samples=10**9))   # refused before a column is drawn
    assert len(plan_points(SweepSpec("ohanatsumi", wide, samples=50))) == 50


def test_seat_gap_is_exact_where_a_target_meets_it():
    # win rates 0.375 and 0.275 of 40 games: a gap of exactly 4 games, not 0.09999999999999998
    seats = [{"seat": i + 1, "wins": w, "win_rate": w / 40} for i, w in enumerate((12, 11, 15))]
    report = {"games": 40, "seats": seats, "draws": 2, "length": dict.fromkeys(("min", "p10", "p25", "p50", "p75", "p90", "max"), 9)}
    gap = metrics_of(report)["seat_gap"]
    assert gap == 0.1
    (below,) = parse_target("seat_gap<0.1", ["seat_gap"])
    (at_most,) = parse_target("seat_gap<=0.1", ["seat_gap"])
    assert not below.holds(gap) and at_most.holds(gap)


def test_latin_hypercube_samples():
    spec = SweepSpec("ohanatsumi", (parse_vary("elf_urge_default=0..4"), parse_vary("cards.quest_escort.fame=1..20")),
                     samples=10, seed=3)
    points = plan_points(spec)
    assert points == plan_points(spec) and len(points) == 10
    assert sorted(p["elf_urge_default"] for p in points) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]   # each value equally often


def test_cli_sweep_table_target_and_report(tmp_path):
    pypdf = pytest.importorskip("pypdf")
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["sweep", "ohanatsumi", "--players", "3", "--vary", "elf_urge_default=0..1",
                                      "--vary", "cards.quest_escort.fame=4,6,8", "--games", "30", "--seed", "1",
                                      "--target", "seat_gap<0.2, draw<=0.1", "--metric", "seat_gap", "--format", "json",
                                      "--out", str(out), "--workers", "1"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)
    assert len(table["points"]) == 6 and {"seat_gap", "seat1_win_rate_lo", "length_mean_hi", "target"} <= table["points"][0].keys()
    assert all(p["target"] == (p["seat_gap"] < 0.2 and p["draw_rate"] <= 0.1) for p in table["points"])
    pdf = out / "ohanatsumi" / "ohanatsumi-sweep.pdf"
    reader = pypdf.PdfReader(pdf)
    assert reader.trailer["/Root"]["/Lang"] == "ja-JP"
    assert len(reader.pages) == 2                   # the charts of seat_gap and draw_rate (the target's metrics), the table
    pages = [page.extract_text() for page in reader.pages]
    # the charts, the target and the parameters are in words (sweep.m_seat_gap, m_draw, the game's
    # parameter labels); the command that reproduces the sweep is the PDF's subject, off the page
    assert "パラメータ・スイープ" in pages[0] and "席の勝率の差" in pages[0] and "引き分け率" in pages[0]
    assert f"6点中{sum(p['target'] for p in table['points'])}点が満たす" in pages[0]
    assert "< 0.2" in pages[0] and "エルフの尿意" in pages[0] and "elf_urge_default" not in "".join(pages)
    assert "--target" in reader.metadata.subject and "--vary elf_urge_default=0..1" in reader.metadata.subject
    assert "各点の結果" in pages[1] and "エルフの尿意" in pages[1] and "隊商の護衛" in pages[1]
    assert pages[1].count("★") == sum(p["target"] for p in table["points"])    # one star a point that meets it
    for page in reader.pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            descriptor = (font.get("/FontDescriptor") or font["/DescendantFonts"][0].get_object()["/FontDescriptor"]).get_object()
            assert "IPAex" in font["/BaseFont"] and "/FontFile2" in descriptor      # embedded TrueType


def test_sweep_report_in_english_on_letter_names_every_metric_in_words(tmp_path):
    pypdf = pytest.importorskip("pypdf")
    from cardgen.load import load_game
    from cardgen.render.documents.sweep_report import build_sweep_report, metric_label

    spec = SweepSpec("ohanatsumi", (parse_vary("elf_urge_default=0..1"),), games=12, seed=2, players=3,
                     policies=("greedy", "lightest", "balanced"), rotate=True)
    result = run_sweep(spec, out_dir=tmp_path)
    game = load_game("ohanatsumi")
    labels = {m: metric_label(m, result, "en", game) for m in result.metric_names()}
    assert labels["strategy_lightest_win_rate"] == 'Win rate of "lightest quest first"'
    assert labels["ending_quests_exhausted_rate"] == 'Share ending "the last round ended"'
    assert labels["seat2_win_rate"] == "Seat 2 win rate" and labels["length_p90"] == "Length (90th percentile)"
    unnamed = [m for m, label in labels.items() if label == m and not m.endswith(("_lo", "_hi"))]
    assert unnamed == [], f"metrics printed as their ids: {unnamed}"
    assert metric_label("seat_gap", result, "ja", game) == "席の勝率の差（最大−最小）"
    charted = ["strategy_lightest_win_rate", "ending_quests_exhausted_rate"]
    reader = pypdf.PdfReader(io.BytesIO(build_sweep_report(game, result, "en", charted, paper="letter")))
    assert [round(float(v)) for v in reader.pages[0].mediabox[2:]] == [612, 792]
    assert reader.trailer["/Root"]["/Lang"] == "en"
    text = "".join(page.extract_text() for page in reader.pages)
    assert labels[charted[0]] in text and labels[charted[1]] in text and "Every point (95 % intervals)" in text
    assert "lightest quest first" in text and "seats rotate every game" in text
    assert not any(m in text for m in charted)      # in words on paper, not as column ids


def test_cli_refuses_clearly(tmp_path):
    runner = CliRunner()
    bad = runner.invoke(cli, ["sweep", "ohanatsumi", "--vary", "event_urge.min=4", "--games", "5", "--out", str(tmp_path)])
    assert bad.exit_code == 1 and "event_urge" in bad.output and "Traceback" not in bad.output
    no_pq = runner.invoke(cli, ["sweep", "alice", "--vary", "memo_limit=2..3", "--games", "5", "--format", "parquet",
                                "--out", str(tmp_path)])
    assert no_pq.exit_code == 1 and "--output" in no_pq.output
    target = runner.invoke(cli, ["sweep", "alice", "--vary", "memo_limit=2..3", "--games", "5", "--target", "nonsense<1",
                                 "--out", str(tmp_path)])
    assert target.exit_code == 1 and "no metric 'nonsense'" in target.output
    dask = runner.invoke(cli, ["simulate", "alice", "--executor", "dask", "--games", "5"])
    assert dask.exit_code == 1 and "--scheduler" in dask.output
