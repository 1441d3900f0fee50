"""The `cardgen` command: thin click wrappers over library functions a test can call."""

from __future__ import annotations

import gc
import json
import os
import sys
from dataclasses import replace

import click

from .commandline import (ConfiguredCommand, build_as_dict, colour_setting, complete_game, mark, report_run_as_dict,
                          verbosity)
from .errors import CardgenError
from .load import bundled_game_ids, load_game
from .presets import PRESET_NAMES


EXIT_DATA = 1  # the data or options are wrong; the message says where and what to do
EXIT_INTERNAL = 3  # a bug in cardgen, not in the data
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT


class _Group(click.Group):
    """Commands read their defaults from a cardgen.toml beside the game (commandline.apply_config).
    Turn CardgenError into a clear message and exit 1, Ctrl-C into one line and exit 130,
    and anything else into one line that says it is a bug; never a traceback (CARDGEN_DEBUG=1 shows it)."""

    command_class = ConfiguredCommand

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except CardgenError as exc:
            for problem in exc.problems:
                click.echo(f"error: {problem}", err=True)
            ctx.exit(EXIT_DATA)
        except KeyboardInterrupt:
            click.echo("\ninterrupted", err=True)
            ctx.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:  # `cardgen list | head`: the reader has gone; nothing to say
            # Python's recipe: point stdout at devnull so the flush at exit does not fail again.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            ctx.exit(0)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except Exception as exc:
            if os.environ.get("CARDGEN_DEBUG"):
                raise
            click.echo(f"internal error: {type(exc).__name__}: {exc}\n"
                       f"This is a bug in cardgen, not in your data; please report it with the command and the game folder "
                       f"(set CARDGEN_DEBUG=1 to see the traceback).", err=True)
            ctx.exit(EXIT_INTERNAL)


# the --policy option of simulate and sweep
POLICY_HELP = ("Bot policy: once for every seat, or once per seat in order. A game bot (random, greedy, heuristic ...) "
               "or a search agent for every game: ismcts[:ITERATIONS[:ROLLOUT]] (native IS-MCTS, 200 by default), "
               "ismcts-keep[:ITERATIONS:BOT] (the same search, keeping BOT's move unless it finds a measurably better one), "
               "rollout[:SAMPLES[:BOT]] (the bot's move improved by Monte Carlo rollouts, 64 samples by default), "
               "openspiel-ismcts[:N] / openspiel-mcts[:N] (needs the [agents] extra).")


class SchedulerAddress(click.ParamType):
    """--scheduler: a Dask scheduler's address (analysis/executors.scheduler_address); anything else
    is a usage error that names the form to write."""

    name = "ADDRESS"

    def convert(self, value, param, ctx):
        from .analysis.executors import scheduler_address

        try:
            return scheduler_address(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


class VarySpec(click.ParamType):
    """--vary PATH=VALUES, parsed (analysis/overrides.parse_vary) and bounded before any point is
    built; a malformed one is a usage error."""

    name = "PARAM=VALUES"

    def convert(self, value, param, ctx):
        from .analysis.overrides import Vary, parse_vary

        if isinstance(value, Vary):
            return value
        try:
            return parse_vary(str(value))
        except CardgenError as exc:
            self.fail(str(exc).removeprefix("--vary "), param, ctx)  # click names the option already


scheduler_option = click.option("--scheduler", type=SchedulerAddress(),
                                help="With --executor dask: the scheduler's address, tcp://HOST:8786 (workers run what it sends them).")


@click.group(cls=_Group, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cardgen")
@click.option("--quiet", "-q", "quiet", is_flag=True, help="Print only results and errors: no progress bars or notes.")
@click.option("--verbose", "-v", "verbose", is_flag=True, help="Also print every file a build writes.")
@click.pass_context
def cli(ctx: click.Context, quiet: bool, verbose: bool) -> None:
    """Make print-and-play card games from YAML data, and check that they hold together.

    Exit codes: 0 done, 1 the data or options are wrong (the message says where), 2 a usage
    error, 3 a bug in cardgen, 130 interrupted. Options left out come from [tool.cardgen] in a
    cardgen.toml beside the game folder (paper, preset, lang, out).
    """
    ctx.obj = {"verbosity": -1 if quiet else (1 if verbose else 0)}
    if colour_setting() is False:
        ctx.color = False
    if ctx.invoked_subcommand is None:  # bare `cardgen`: the help, and success
        click.echo(ctx.get_help(), color=ctx.color)
        ctx.exit(0)


def games_or_all(specs: tuple[str, ...]) -> list[str]:
    return list(specs) if specs else bundled_game_ids()


@cli.command("list")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", help="Output format.")
def list_games(fmt: str) -> None:
    """List the bundled games."""
    games = [load_game(game_id) for game_id in bundled_game_ids()]
    if fmt == "json":
        rows = [{"id": g.id, "title": {"en": g.title.en, "ja": g.title.ja}, "min_players": g.min_players,
                 "max_players": g.max_players, "cards": g.total} for g in games]
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    for game in games:
        players = f"{game.min_players}" if game.min_players == game.max_players else f"{game.min_players}-{game.max_players}"
        title = " / ".join(text for _, text in reversed(game.title.values))  # English first, as before
        click.echo(f"{game.id:<12} {title}  ({players} players, {game.total} cards)")


@cli.command("engines")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", help="Output format.")
def engines(fmt: str) -> None:
    """List the installed rules engines (entry points in the group cardgen.engines).

    A game's `engine:` names one of these; `cardgen new NAME --engine` writes a package for a new one.
    """
    from .registry import describe_engines, format_counts

    rows = describe_engines()
    if fmt == "json":
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not rows:
        click.echo("no rules engines are installed; write one with `cardgen new NAME --engine`")
        return
    # columns as wide as their longest entry: a plugin's distribution name can be long
    table = [(row["name"], f"{row['distribution']} {row['version']}".strip(), row["module"],
              row["error"] or f"players {format_counts(row['players'])}",
              "" if row["error"] else f"variants {', '.join(row['variants'])}") for row in rows]
    widths = [max(len(line[column]) for line in table) for column in range(4)]
    for line in table:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(line, widths + [0])).rstrip())


@cli.command()
@click.argument("games", nargs=-1, shell_complete=complete_game)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", help="Output format.")
@click.option("--no-simulate", is_flag=True, help="Skip the random-simulation sweep.")
@click.option("--preset", type=click.Choice(PRESET_NAMES), help="Also check every text box and frame against this print target's safe zone.")
@click.option("--strict", is_flag=True, help="Treat warnings (missing art, low resolution, small text) as failures.")
@click.option("--fix-style", is_flag=True, help="First rewrite the Japanese style findings (digit and letter width, brackets, half-width kana, ellipsis, dash) in the game folder's files, keeping comments and layout.")
def check(games: tuple[str, ...], fmt: str, no_simulate: bool, preset: str | None = None, strict: bool = False,
          fix_style: bool = False) -> None:
    """Check data, composition and rules of GAMES (ids or folders; default: all bundled)."""
    from .build import check_outputs
    from .checks import check_game
    from .presets import check_preset
    from .style import fix_files

    reports = []
    for spec in games_or_all(games):
        game = load_game(spec)
        if fix_style:
            for fixed in fix_files(game):
                done = "fixed" if fixed.written else "not rewritten (outside the game folder; copy it into templates/)"
                click.echo(f"{fixed.path}: {fixed.count} style finding(s) {done}", err=True)
            game = load_game(spec)
        report = check_game(game, simulate=not no_simulate)
        extra = tuple(check_preset(game, preset)) if preset else ()
        results = report.results + tuple(check_outputs(game)) + extra
        if strict:
            results = tuple(replace(r, ok=False) if r.warning else r for r in results)
        reports.append(replace(report, results=results))
    if fmt == "json":
        click.echo(json.dumps([r.as_dict() for r in reports], ensure_ascii=False, indent=2))
    else:
        for report in reports:
            click.echo(f"{report.game_id}: {'ok' if report.ok else 'FAILED'} ({report.summary})")
            for result in report.results:
                shown = ("warn" if result.warning else "ok  ") if result.ok else "FAIL"
                where = f"{result.location}: " if result.location and (result.warning or not result.ok) else ""
                click.echo(f"  {mark(shown)} {result.id}: {where}{result.message}")
    if not all(r.ok for r in reports):
        sys.exit(1)


@cli.command("new")
@click.argument("name", type=click.Path(file_okay=False))
@click.option("--from", "from_game", metavar="GAME", help="Start from a copy of this bundled game (its folder and the templates it uses), renamed NAME.")
@click.option("--cards", "cards", type=click.Choice(["yaml", "csv", "xlsx"]), default="yaml", show_default=True, help="Keep the card list in cards.yaml, cards.csv or cards.xlsx.")
@click.option("--engine", is_flag=True, help="Also write NAME-rules/ beside it: an installable package with the game's rules (an engine, a bot, tests), registered as the engine NAME.")
@click.option("--languages", metavar="LANG[,LANG...]", help="The languages the game is written in, the first the default (e.g. en, ja or fr,en; default: ja,en).")
def new(name: str, from_game: str | None, cards: str, engine: bool, languages: str | None = None) -> None:
    """Write a new game folder NAME that checks and builds as it is (NAME is also the game's id)."""
    from .scaffold import new_game, rules_package_path

    codes = tuple(code.strip() for code in languages.split(",") if code.strip()) if languages is not None else None
    folder = new_game(name, from_game, cards, engine, codes)
    if engine:
        package = rules_package_path(folder)
        click.echo(f"wrote {folder}/ and its rules {package}/: now `pip install -e {package}`, then `cardgen check {folder}`, "
                   f"`cardgen simulate {folder}` (see {package}/README.md)")
    else:
        click.echo(f"wrote {folder}/: now `cardgen check {folder}` and `cardgen build {folder}`")


@cli.command()
@click.argument("game", shell_complete=complete_game)
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "xlsx"]), default="json", help="Output format (csv and xlsx read back as the game's card list).")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to a file instead of stdout (xlsx: default GAME-cards.xlsx).")
def export(game: str, fmt: str, output: str | None) -> None:
    """Export one row per physical card of GAME as JSON, CSV or an xlsx workbook."""
    from .export import to_csv, to_json, to_xlsx

    loaded = load_game(game)
    if fmt == "xlsx":
        data = to_xlsx(loaded)
        output = output or f"{loaded.id}-cards.xlsx"
    else:
        data = (to_json(loaded) if fmt == "json" else to_csv(loaded)).encode("utf-8")
    if output:
        from .files import write_atomic

        write_atomic(output, data)
        if fmt == "xlsx":
            click.echo(f"wrote {output}", err=True)
    else:
        click.echo(data.decode("utf-8"), nl=False)


@cli.command()
@click.argument("game", shell_complete=complete_game)
@click.option("--games", "-n", "count", type=click.IntRange(min=1), default=1000, show_default=True, help="Number of games, fixed in advance.")
@click.option("--seed", type=int, default=0, show_default=True, help="Run seed; game i uses a seed derived from (seed, i).")
@click.option("--players", type=int, help="Player count (default: the game's minimum).")
@click.option("--variant", help="Rules variant (default: the game's usual one for that player count).")
@click.option("--policy", "policies", multiple=True, help=POLICY_HELP)
@click.option("--rotate-seats", is_flag=True, help="Shift the policies one seat each game (compare strategies, not seats).")
@click.option("--workers", "-j", type=click.IntRange(min=1), help="Worker processes (default: all cores); results do not depend on it.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", help="Output format.")
@click.option("--save-records", type=click.Path(file_okay=False), help="Write a replayable record of every game to this folder.")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local", show_default=True, help="Where games run: local processes or a Dask cluster (results do not depend on it).")
@scheduler_option
def simulate(game: str, count: int, seed: int, players: int | None, variant: str, policies: tuple[str, ...],
             rotate_seats: bool, workers: int | None, fmt: str, save_records: str | None, executor: str, scheduler: str | None) -> None:
    """Simulate GAME with bots and report win rates, draws, lengths and endings."""
    from .analysis.executors import make_executor
    from .engine.simulate import format_report, simulate as run_simulation

    loaded = load_game(game)
    runner = make_executor(executor, scheduler, workers) if executor != "local" or scheduler else None
    try:
        with click.progressbar(length=count, label="simulating", file=sys.stderr, hidden=verbosity() < 0) as bar:
            report = run_simulation(loaded, games=count, seed=seed, players=players, policies=policies or None,
                                    workers=workers, variant=variant, rotate=rotate_seats, save_records=save_records,
                                    progress=bar.update, executor=runner)
    finally:
        if runner is not None:
            runner.close()
    click.echo(json.dumps(report.as_dict(), ensure_ascii=False, indent=2) if fmt == "json" else format_report(report))


@cli.command()
@click.argument("record", type=click.Path(dir_okay=False))
@click.option("--from", "position", type=click.Path(dir_okay=False), help="Start from this POSITION (YAML) instead of a new game.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", help="Output format.")
def replay(record: str, position: str | None, fmt: str) -> None:
    """Replay a RECORD (YAML), check every choice, and print the final state and scores."""
    from .engine.record import format_replay, load_record, replay as run_replay

    start = None
    if position is not None:
        from .engine.position import load_position
        start = load_position(position)[1]
    report = run_replay(load_record(record, need_shuffle=position is None), start=start)
    click.echo(json.dumps(report.as_dict(), ensure_ascii=False, indent=2, default=str) if fmt == "json" else format_replay(report))
    if not report.ok:
        sys.exit(1)


@cli.command()
@click.argument("game", shell_complete=complete_game)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", help="Output format.")
@click.option("--sheet", "sheet_lang", metavar="LANG", help="Also write output/<game>/<game>-standard-deck.pdf in this language.")
@click.option("--paper", type=click.Choice(["a4", "letter"], case_sensitive=False), default="a4", show_default=True, help="Paper of the standard-deck sheet.")
@click.option("--suggest", is_flag=True, help="First write a mapping.yaml that fits the current cards (the old one is kept as mapping.yaml.bak).")
def mapping(game: str, fmt: str, sheet_lang: str | None, paper: str, suggest: bool) -> None:
    """Show how GAME plays with standard playing cards: the table, decks needed, cards to print."""
    from .mapping import format_report, load_mapping, write_suggested_mapping

    loaded = load_game(game)
    if sheet_lang:
        game_language(loaded, sheet_lang)
    if suggest:
        written, kept = write_suggested_mapping(loaded)
        click.echo(f"wrote {written}" + (f" (the previous one is {kept.name})" if kept else ""), err=True)
    report = load_mapping(loaded)
    click.echo(json.dumps(report.as_dict(), ensure_ascii=False, indent=2) if fmt == "json" else format_report(report))
    if not report.ok:
        raise CardgenError(list(report.problems))
    if sheet_lang:
        from .render.documents.standard_sheet import write_standard_sheet

        click.echo(f"wrote {write_standard_sheet(loaded, sheet_lang, paper=paper.lower())}", err=True)


# Options `build` and `watch` share.
build_paper_option = click.option("--paper", type=click.Choice(["a4", "letter"], case_sensitive=False), default="a4", show_default=True, help="Paper of every document the build writes.")
build_card_size_option = click.option("--card-size", help="poker, bridge, mini, euro, tarot or WxH in mm (default: the game's).")
build_preset_option = click.option("--preset", type=click.Choice(PRESET_NAMES), help="A print target: card size, bleed, PNG size, safe zone, colour and file names of home-a4, home-letter, mpc, printerstudio, tgc or dtc.")
build_imposition_option = click.option("--imposition", type=click.Choice(["duplex", "gutterfold", "simplex"]), default="duplex", show_default=True, help="Home sheets: double-sided, fronts and backs folded together, or fronts then backs single-sided.")


@cli.command()
@click.argument("games", nargs=-1, shell_complete=complete_game)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="output", show_default=True, help="Output folder; files go to OUT/<game>/.")
@build_paper_option
@build_card_size_option
@click.option("--bleed", type=float, help="Bleed in mm around every card (default: what the paper leaves on sheets, 3.175 for print shop and PNG).")
@click.option("--gutter", type=float, default=0.0, show_default=True, help="Gap in mm between cards on the sheets.")
@click.option("--crop-marks", type=click.Choice(["corners", "lines", "none"]), default="corners", show_default=True, help="Corner marks, full cut lines, or none.")
@click.option("--duplex", type=click.Choice(["long", "short", "none"]), default="long", show_default=True, help="How the printer flips the sheet for the backs.")
@click.option("--back-offset", default="0,0", show_default=True, help="X,Y in mm: move the backs to correct the printer (see --calibration).")
@click.option("--lang", metavar="LANG", help="Language of the cards: one the game declares (languages in game.yaml; default: its first).")
@click.option("--calibration", is_flag=True, help="Also write a page that measures the printer's duplex offset.")
@click.option("--allow-overflow", is_flag=True, help="Build even when a text does not fit its box.")
@click.option("--allow-unsafe", is_flag=True, help="With --preset: build even when a text box or frame breaks the print target's safe zone (see check --preset).")
@click.option("--keep-small-colour", is_flag=True, help="With --preset dtc: coloured text below 12 pt and rules below 1 pt keep their colours (by default the CMYK file prints them in K only, a grey as light, as print services ask).")
@click.option("--margin", type=float, default=5.0, show_default=True, help="Printer's unprintable margin in mm on the sheets.")
@click.option("--only", "outputs", multiple=True, type=click.Choice(["sheets", "shop", "png", "tts", "rules", "standard", "playtest", "tuckbox"]), help="Build only these outputs (repeatable; default: all).")
@click.option("--corner-index", is_flag=True, help="Print each card's standard playing-card index in its corners (see `cardgen mapping`).")
@build_preset_option
@click.option("--tts-url", help="Base URL where the tts/ images are hosted (default: file:// URIs of OUT/<game>/tts/).")
@click.option("--card-thickness", type=float, default=0.30, show_default=True, help="Thickness of one card in mm, for the tuck box.")
@build_imposition_option
@click.option("--fit", type=click.Choice(["count", "bleed"]), default="count", show_default=True, help="Home sheets: the most cards a sheet, or the most that keep real bleed (1.5 mm or more on every cut edge; poker on Letter: 8 on their side instead of 9).")
@click.option("--ink-saver", is_flag=True, help="Home sheets with pale fills and pictures and no full-bleed backgrounds (same geometry).")
@click.option("--corner-guides", type=float, is_flag=False, flag_value=3.0, default=None, metavar="[RADIUS]", help="Draw rounded-corner cut guides on the fronts (radius in mm, default 3).")
@click.option("--workers", "-j", type=click.IntRange(min=1), help="Processes building games and outputs in parallel (default: all cores); the files do not depend on it.")
@click.option("--no-cache", is_flag=True, help="Draw everything afresh: neither read nor write OUT/.cache/<game>/ (the files are the same either way).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", help="Output format: json lists the files written and the outputs skipped, with why.")
@click.pass_context
def build(ctx: click.Context, games: tuple[str, ...], out_dir: str, paper: str, card_size: str | None, bleed: float | None, gutter: float,
          crop_marks: str, duplex: str, back_offset: str, lang: str | None, calibration: bool, allow_overflow: bool,
          margin: float, outputs: tuple[str, ...], corner_index: bool, imposition: str, ink_saver: bool,
          corner_guides: float | None, preset: str | None = None, tts_url: str | None = None, card_thickness: float = 0.30,
          workers: int | None = None, no_cache: bool = False, allow_unsafe: bool = False, fit: str = "count",
          fmt: str = "text", keep_small_colour: bool = False) -> None:
    """Write decks, rulebooks, standard-deck sheets and playtest kits of GAMES to OUT/<game>/.

    GAMES are bundled ids or folders; default: every bundled game.
    """
    from .build import build_games, build_workers, check_build, make_options, work_units

    options = make_options(out_dir, paper, card_size, bleed, gutter, crop_marks, duplex, back_offset, lang,
                           calibration, allow_overflow, margin, outputs, corner_index, imposition, ink_saver, corner_guides)
    if preset is not None or tts_url is not None or card_thickness != 0.30:
        from .build import with_target

        options = with_target(options, preset, tts_url, card_thickness, outputs_given=bool(outputs))
    if no_cache:
        options = replace(options, cache=False)
    if allow_unsafe or fit != "count" or keep_small_colour:
        options = replace(options, allow_unsafe=allow_unsafe, fit=fit, keep_small_colour=keep_small_colour)
        options.validate()
    specs = games_or_all(games)
    with build_workers(workers, len(specs)) as pool:  # started first: they warm up while the games load
        loaded = [load_game(spec) for spec in specs]
        for game in loaded:
            game_language(game, lang)
            check_build(game, options)
        total = sum(work_units(game, options) for game in loaded)
        with click.progressbar(length=total, label="Building decks", file=sys.stderr, hidden=verbosity(ctx) < 0) as bar:
            results = build_games(loaded, options, bar.update, workers, pool)
    if fmt == "json":
        click.echo(json.dumps([build_as_dict(result) for result in results], ensure_ascii=False, indent=2))
        return
    for result in results:
        lines = result.summary().splitlines()
        if verbosity(ctx) < 0:
            lines = [line for line in lines if not line.startswith("  note: ")]
        click.echo("\n".join(lines))
        if verbosity(ctx) > 0:
            for path in result.files:
                click.echo(f"  wrote {path}")


@cli.command()
@click.argument("game", shell_complete=complete_game)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="output", show_default=True, help="Output folder; files go to OUT/<game>/.")
@click.option("--lang", metavar="LANG", help="Language of the cards: one the game declares (languages in game.yaml; default: its first).")
@click.option("--allow-overflow", is_flag=True, help="Build even when a text does not fit its box (the preview marks it).")
@build_preset_option
@build_paper_option
@build_imposition_option
@build_card_size_option
def watch(game: str, out_dir: str, lang: str | None, allow_overflow: bool, preset: str | None = None, paper: str = "a4",
          imposition: str = "duplex", card_size: str | None = None) -> None:
    """Build GAME, then rebuild what changed on every save and keep OUT/<game>/preview.html current."""
    from .watch import watch as run_watch, watch_options

    if lang:
        try:
            game_language(load_game(game), lang)
        except CardgenError:
            pass  # a broken game: the watcher shows its problems and waits for a fix
    run_watch(game, watch_options(out_dir, lang, allow_overflow, preset, paper, imposition, card_size), echo=click.echo)


# Options of every report PDF (balance and sweep reports).
report_lang = click.option("--lang", metavar="LANG", help="Language of the report: one the game declares (default: its first).")
report_paper = click.option("--paper", type=click.Choice(["a4", "letter"], case_sensitive=False), default="a4", show_default=True,
                            callback=lambda _ctx, _param, value: value.lower(), help="Paper of the report.")


@cli.command()
@click.argument("game", shell_complete=complete_game)
@click.option("--games", "-n", "count", type=click.IntRange(min=1), metavar="N", help="Size of the report: runs without their own `games:` in report.yaml play N (default 2000), a run with its own count plays the same share of it (count x N / 2000, rounded down; a run that comes to no game is listed as not played). Fixed in advance.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of every run.")
@report_lang
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="output", show_default=True, help="Output folder; the report goes to OUT/<game>/.")
@click.option("--workers", "-j", type=click.IntRange(min=1), help="Worker processes (default: all cores); results do not depend on it.")
@report_paper
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", help="Output format: json gives the file written and each run's results.")
@click.pass_context
def report(ctx: click.Context, game: str, count: int | None, seed: int, lang: str | None, out_dir: str, workers: int | None,
           paper: str, fmt: str) -> None:
    """Simulate GAME with bots and write its balance report with charts."""
    from .analysis.balance import seconds_per_game, write_balance_report
    from .commandline import WEIGHT_STEPS, weighted_steps
    from .render.documents.report import games_of, report_runs

    loaded = load_game(game)
    lang = game_language(loaded, lang)
    runs = report_runs(loaded)
    quiet = verbosity(ctx) < 0
    if not quiet:
        click.echo(f"timing one game of each of {len(runs)} run(s) for the estimate", err=True)
    costs = seconds_per_game(loaded, runs, seed)  # a search game costs far more than a heuristic one
    total = sum(games_of(run, count) * cost for run, cost in zip(runs, costs))
    with click.progressbar(length=WEIGHT_STEPS, label="simulating", file=sys.stderr, hidden=quiet) as bar:
        path, results = write_balance_report(loaded, lang, out_dir, count, seed, workers, runs=runs, paper=paper,
                                             progress=weighted_steps(bar, total), costs=costs)
    if fmt == "json":
        click.echo(json.dumps({"game": loaded.id, "file": str(path), "runs": [report_run_as_dict(r) for r in results]},
                              ensure_ascii=False, indent=2, default=str))
        return
    click.echo(f"wrote {path}")


@cli.command()
@click.argument("game", shell_complete=complete_game)
@click.option("--vary", "varies", multiple=True, type=VarySpec(), metavar="PARAM=VALUES", help="A rule parameter (event_urge.max), card count (cards.maid.count) or card field (cards.quest_escort.fame) and its values: 3..8, 0..1:0.25 or 6,8,10 (at most 1,000). Repeatable: the points are every combination.")
@click.option("--samples", type=click.IntRange(min=1), help="Draw this many points from the --vary values instead of the whole grid.")
@click.option("--sampling", type=click.Choice(["lhs", "random"]), default="lhs", show_default=True, help="With --samples: Latin hypercube or plain random.")
@click.option("--games", "-n", "count", type=click.IntRange(min=1), default=1000, show_default=True, help="Games per point, fixed in advance.")
@click.option("--seed", type=int, default=0, show_default=True, help="Sweep seed; game i of a point uses a seed derived from (seed, point, i).")
@click.option("--players", type=int, help="Player count (default: the game's minimum).")
@click.option("--variant", help="Rules variant (default: the game's usual one for that player count).")
@click.option("--policy", "policies", multiple=True, help=POLICY_HELP)
@click.option("--rotate-seats", is_flag=True, help="Shift the policies one seat each game.")
@click.option("--target", help='Mark the points meeting a goal, e.g. "seat_gap<0.05, success=0.3..0.6".')
@click.option("--metric", "metrics", multiple=True, help="A metric to chart in the report (repeatable; default: the game's main one).")
@click.option("--format", "fmt", type=click.Choice(["text", "csv", "json", "parquet"]), default="text", show_default=True, help="Format of the results table.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the table to this file (needed for parquet).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="output", show_default=True, help="Output folder: OUT/<game>/<game>-sweep.pdf, and the results under OUT/<game>/sweeps/.")
@click.option("--results", "results_dir", type=click.Path(file_okay=False), help="Keep the per-point results here instead (a rerun with the same arguments resumes).")
@click.option("--no-report", is_flag=True, help="Do not write the sweep report PDF.")
@report_lang
@report_paper
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local", show_default=True, help="Where points run: local processes or a Dask cluster (results do not depend on it).")
@scheduler_option
@click.option("--workers", "-j", type=click.IntRange(min=1), help="Local worker processes (default: all cores).")
def sweep(game: str, **options) -> None:
    """Simulate GAME at every point of a grid of rule parameters and card counts, never editing its files."""
    from .analysis.sweep import sweep_command

    if options.get("lang"):
        game_language(load_game(game), options["lang"])
    sweep_command(game, **options, quiet=verbosity() < 0)


def game_language(game, lang: str | None) -> str:
    """`--lang` for `game`: the one given if the game declares it (else a usage error, exit 2,
    naming the declared ones), or the game's first language."""
    from .build import language_problem

    problem = language_problem(game, lang)
    if problem:
        raise click.BadParameter(problem, param_hint="'--lang'")
    return lang or game.languages[0]


def main() -> None:
    try:
        cli(prog_name="cardgen")
    except KeyboardInterrupt:  # outside a command (while importing, or click's own prompts)
        click.echo("\ninterrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    finally:
        # Python's exit clears every module and then runs a full garbage collection over what a
        # build leaves (its layout and glyph caches): 0.2-0.4 s of a cold build spent after the
        # work is done.  Frozen objects are skipped by that collection; the process is ending.
        gc.freeze()


if __name__ == "__main__":
    main()
