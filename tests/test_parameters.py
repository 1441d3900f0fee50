"""Rule parameters are declared by each engine (PARAMETERS): a missing, mistyped, out-of-range
or inconsistent one is refused at its game.yaml line, never a traceback later in the engine."""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardgen.checks import check_game
from cardgen.cli import cli
from cardgen.engine import engine_by_name
from cardgen.errors import DataError
from cardgen.io.reader import display_path
from cardgen.load import bundled_games_dir, load_game

from .conftest import BUNDLED

ROOT = Path(__file__).resolve().parent.parent


def copy_game(tmp_path: Path, game: str) -> Path:
    folder = tmp_path / game
    shutil.copytree(bundled_games_dir() / game, folder)
    return folder


def edit(folder: Path, pattern: str, replacement: str, file: str = "game.yaml") -> int:
    """Replace the first line matching `pattern` (a regex over one line); return its 1-based number."""
    path = folder / file
    lines = path.read_text(encoding="utf-8").split("\n")
    index = next(i for i, line in enumerate(lines) if re.search(pattern, line))
    new = re.sub(pattern, replacement, lines[index], count=1)
    if new.strip():
        lines[index] = new
    else:
        del lines[index]
    path.write_text("\n".join(lines), encoding="utf-8")
    return index + 1


def line_of(folder: Path, pattern: str, file: str = "game.yaml") -> int:
    lines = (folder / file).read_text(encoding="utf-8").split("\n")
    return next(i for i, line in enumerate(lines, start=1) if re.search(pattern, line))


def load_error(folder: Path) -> str:
    with pytest.raises(DataError) as info:
        load_game(folder)
    return str(info.value)


def assert_cli_refuses(folder: Path, expected: str) -> None:
    result = CliRunner().invoke(cli, ["check", str(folder), "--no-simulate"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert expected in result.output, result.output


@pytest.mark.parametrize("game", BUNDLED)
def test_every_engine_declares_its_parameters_and_the_bundled_games_fit(game):
    declared = engine_by_name(game).PARAMETERS
    loaded = load_game(game)
    assert set(loaded.parameters) == set(declared.fields)
    assert all(value is not None for value in loaded.parameters.values())


@pytest.mark.parametrize("game", BUNDLED)
def test_every_parameter_an_engine_reads_is_declared(game):
    """game.param("x") / p("x") in the engine module names a declared parameter."""
    source = (ROOT / "cardgen" / "engine" / f"{game}.py").read_text(encoding="utf-8")
    read = set(re.findall(r"""\b(?:game\.param|p)\(["']([a-z_]+)["']\)""", source))
    assert read, "the pattern finds the parameters the engine reads"
    assert read <= set(engine_by_name(game).PARAMETERS.fields)


def test_llll_without_rounds(tmp_path):
    folder = copy_game(tmp_path, "llll")
    parameters_line = line_of(folder, r"^parameters:")
    edit(folder, r"^  rounds: .*$", "")
    message = load_error(folder)
    shown = display_path(folder / "game.yaml")
    assert f"{shown}:{parameters_line + 1}:" in message  # the parameters mapping starts on the next line
    assert "parameters: missing required key 'rounds'; add it" in message
    assert_cli_refuses(folder, "missing required key 'rounds'")


@pytest.mark.parametrize("game, pattern, replacement, expected", [
    ("llll", r"(princess_uses_to_win:) 2", r"\1 -2", "parameters.princess_uses_to_win is -2, outside 1..100"),
    ("ohanatsumi", r"(elf_urge_default:) 1", r"\1 abc", "parameters.elf_urge_default must be a whole number, got 'abc'"),
    ("alice", r"(max_investigation_phases:) 100", r"\1 -100", "parameters.max_investigation_phases is -100, outside 1..1000"),
    ("alice", r"(memo_play_instead_of_draw:) investigation_only", r"\1 anything",
     "parameters.memo_play_instead_of_draw 'anything' is not one of: investigation_only"),
    ("llll", r"(rounds:) 8", r"\1 1e9", "parameters.rounds must be a whole number"),
    # nested values
    ("alice", r"\{min: 4, max: 5, bonus: 1\}", "{min: 4, max: 5, bonus: lots}", "parameters.link_bonus[2].bonus must be a whole number"),
    ("requiem", r"(win_at_least:) 15", r"\1 fifteen", "parameters.combat.win_at_least must be a whole number"),
    ("ohanatsumi", r"(persuade_die:) 6", r"\1 [6]", "parameters.two_character_variant.persuade_die must be a whole number, not a list"),
    ("ohanatsumi", r"(within_group:) fewer_opened_first", r"\1 random", "parameters.next_round_order.within_group 'random' is not one of"),
    ("requiem", r"\{id: sword, first_rank: 1,", "{id: sword, first_rank: 0,", "parameters.suits[1].first_rank is 0, outside 1..13"),
    ("llll", r"(set_aside_unseen:) \{3: 8, 4: 0\}", r"\1 {three: 8, 4: 0}", "parameters.set_aside_unseen key must be a whole number"),
    ("llll", r"(  )priest: 2", r"\1bishop: 2", "'bishop' is not one of: princess"),
])
def test_a_bad_parameter_is_refused_at_its_line(tmp_path, game, pattern, replacement, expected):
    folder = copy_game(tmp_path, game)
    line = edit(folder, pattern, replacement)
    message = load_error(folder)
    assert f"{display_path(folder / 'game.yaml')}:{line}:" in message, message
    assert expected in message
    assert_cli_refuses(folder, expected)


def test_an_unknown_parameter_is_refused(tmp_path):
    folder = copy_game(tmp_path, "llll")
    line = edit(folder, r"^(  rounds: 8.*)$", r"\1\n  roundz: 9")
    message = load_error(folder)
    assert f"{display_path(folder / 'game.yaml')}:{line + 1}:" in message
    assert "parameters: unknown key 'roundz'" in message


@pytest.mark.parametrize("game, pattern, replacement, check_id, parameter", [
    ("ohanatsumi", r"event_urge: \{min: 1, max: 3\}", "event_urge: {min: 3, max: 1}", "parameter-event_urge", "event_urge"),
    ("ohanatsumi", r"(free_character:) mage", r"\1 bard", "parameter-two_character_variant", "two_character_variant"),
    ("ohanatsumi", r"(flower_deck_reshuffle:) false", r"\1 true", "parameter-flower_deck_reshuffle", "flower_deck_reshuffle"),
    ("requiem", r"(covenant_suits:) \[hourglass, coffin\]", r"\1 [hourglass, moon]", "parameter-covenant_suits", "covenant_suits"),
    ("requiem", r"(mutual_at:) 14", r"\1 20", "parameter-combat", "combat"),
    ("requiem", r"(    - id: void)", r"\1x", None, None),  # a renamed ending is fine; see the next case for a gap
    ("requiem", r"(      max_score:) 0", r"\1 -2", "parameter-endings", "endings"),
    ("alice", r"\{min: 4, max: 5, bonus: 1\}", "{min: 5, max: 4, bonus: 1}", "parameter-link_bonus", "link_bonus"),
    ("alice", r"(memo_limit:) 3", r"\1 2", "parameter-memo_limit", "memo_limit"),
    ("llll", r"(set_aside_unseen:) \{3: 8, 4: 0\}", r"\1 {3: 8, 4: 0, 7: 1}", "setup-set-aside-players", "set_aside_unseen"),
    ("llll", r"(castle_face_down:) 1", r"\1 4", "setup-castle-face-down", "castle_face_down"),
])
def test_inconsistent_parameters_fail_a_check_at_their_line(tmp_path, game, pattern, replacement, check_id, parameter):
    folder = copy_game(tmp_path, game)
    edit(folder, pattern, replacement)
    loaded = load_game(folder)
    report = check_game(loaded, simulate=False)
    failed = {r.id: r for r in report.results if not r.ok}
    if check_id is None:
        assert not failed, failed
        return
    assert check_id in failed, [r.id for r in report.results]
    where = failed[check_id].location
    assert where is not None and where == loaded.where(parameter)
    key_line = line_of(folder, rf"^  {parameter}:")
    block = re.search(rf"^  {parameter}:\s*(#.*)?$", (folder / "game.yaml").read_text(encoding="utf-8").split("\n")[key_line - 1])
    # a flow value sits on its key's line; a block value (a nested mapping or list) starts on the next
    assert where.path == display_path(folder / "game.yaml") and where.line == key_line + (1 if block else 0)
    assert_cli_refuses(folder, f"FAIL {check_id}: {where}: ")
    # the engine refuses the same set-up with the same location instead of failing mid-game
    engine = engine_by_name(game)
    players = loaded.min_players
    variant = engine.default_variant(players)
    if check_id.startswith("parameter-"):
        with pytest.raises(ValueError, match=re.escape(str(where))):
            engine(loaded, players, variant)


def test_simulate_refuses_inconsistent_parameters_cleanly(tmp_path):
    folder = copy_game(tmp_path, "ohanatsumi")
    line = edit(folder, r"event_urge: \{min: 1, max: 3\}", "event_urge: {min: 3, max: 1}")
    result = CliRunner().invoke(cli, ["simulate", str(folder), "--games", "2", "--workers", "1"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{display_path(folder / 'game.yaml')}:{line}:" in result.output
    assert "event_urge.min 3 is above event_urge.max 1" in result.output


def test_an_event_without_urge_is_refused_at_its_cards_yaml_line(tmp_path):
    folder = copy_game(tmp_path, "ohanatsumi")
    text = (folder / "cards.yaml").read_text(encoding="utf-8")
    lines = text.split("\n")
    # the first card type of the event deck that declares its urge on the type
    start = next(i for i, line in enumerate(lines) if re.match(r"\s*deck: event", line))
    urge = next(i for i in range(start, len(lines)) if re.match(r"\s*urge: \d", lines[i]))
    type_line = max(i for i in range(urge + 1) if re.match(r"\s*- id: ", lines[i]))
    type_id = lines[type_line].split("id:")[1].strip()
    del lines[urge]
    (folder / "cards.yaml").write_text("\n".join(lines), encoding="utf-8")
    message = load_error(folder)
    shown = display_path(folder / "cards.yaml")
    assert f"{shown}:{type_line + 1}:" in message
    assert f"card type '{type_id}' copy 1: field 'urge' is required when deck is event" in message
    assert_cli_refuses(folder, "field 'urge' is required when deck is event")


@pytest.mark.parametrize("game, deck_field, field", [
    ("ohanatsumi", "deck: quest", "back_fame"),
    ("ohanatsumi", "deck: flower", "flower"),
    ("alice", "kind: investigation", "icon"),
])
def test_fields_the_engine_reads_are_required(tmp_path, game, deck_field, field):
    folder = copy_game(tmp_path, game)
    lines = (folder / "cards.yaml").read_text(encoding="utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip() == deck_field)
    type_line = max(i for i in range(start + 1) if re.match(r"\s*- id: ", lines[i]))
    target = next(i for i in range(type_line, len(lines)) if re.match(rf"\s*{field}: ", lines[i]))
    del lines[target]
    (folder / "cards.yaml").write_text("\n".join(lines), encoding="utf-8")
    message = load_error(folder)
    assert f"field '{field}' is required when" in message
    assert f"{display_path(folder / 'cards.yaml')}:" in message


# --- every accepted parameter value simulates ---------------------------------------------------

def _scalar_values(spec, path: str = ""):
    """(dotted path, the values worth trying) for every scalar parameter `spec` declares: an
    Int's two ends and a point between them, both Bools, every Str choice. Lists and tables
    keep the game's own value."""
    from cardgen.io.schema import Bool, Int, Map, OneOf, Str

    if isinstance(spec, Map):
        for name, field in spec.fields.items():
            yield from _scalar_values(field, f"{path}.{name}" if path else name)
    elif isinstance(spec, Int):
        yield path, sorted({spec.lo, (spec.lo + spec.hi) // 2, spec.hi})
    elif isinstance(spec, Bool):
        yield path, [False, True]
    elif isinstance(spec, Str) and spec.choices:
        yield path, list(spec.choices)
    elif isinstance(spec, OneOf):
        values = [v for option in spec.options for _, vs in _scalar_values(option, path) for v in vs]
        if values:
            yield path, values


def _walk(game: str, random_points: int, games: int, seed: int = 0) -> int:
    """Every point the game's validation accepts plays `games` checked random games in every
    configuration without an internal error (a refused point is refused cleanly, at a
    location, as a user sees it). The points: each scalar parameter alone at each end of its
    range and between (the corners), then `random_points` accepted points that change a few
    parameters at once, each to a random value within what was accepted alone. Returns how
    many points were played."""
    from cardgen.analysis.overrides import GameSource, Refused
    from cardgen.engine.harness import configurations, random_game

    source = GameSource(bundled_games_dir() / game)
    engine = engine_by_name(game)
    failures: list[str] = []

    def play(point: dict) -> bool:
        try:
            loaded = source.build(point)
        except Refused:
            return False
        for players, variant in configurations(loaded):
            rules = engine(loaded, players, variant)
            for k in range(games):
                try:
                    random_game(rules, seed * 1000 + k)
                except Exception as exc:
                    failures.append(f"{game} {players}p {variant} with {point}, game {k}: {type(exc).__name__}: {exc}")
                    break
        return True

    accepted: dict[str, list] = {}
    for path, values in _scalar_values(engine_by_name(game).PARAMETERS):
        accepted[path] = [value for value in values if play({path: value})]
    played = sum(map(len, accepted.values()))
    rng = random.Random(seed)
    choices = {path: values for path, values in accepted.items() if len(values) > 1}
    for _ in range(random_points * 20):
        if random_points <= 0 or not choices:
            break
        point = {}
        for path in rng.sample(sorted(choices), min(3, len(choices))):
            values = choices[path]
            point[path] = (rng.randint(values[0], values[-1]) if all(type(v) is int for v in values)
                           else rng.choice(values))
        if play(point):
            played += 1
            random_points -= 1
    assert not failures, "\n".join(failures)
    return played


@pytest.mark.parametrize("game", BUNDLED)
def test_every_accepted_parameter_value_simulates(game):
    assert _walk(game, random_points=2, games=1) > 0


@pytest.mark.slow
@pytest.mark.parametrize("game", BUNDLED)
def test_every_accepted_parameter_value_simulates_long(game):
    assert _walk(game, random_points=200, games=10, seed=1) > 0
