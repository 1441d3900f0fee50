"""cardgen.testing, the kit a plugin's tests call: it passes sound engines (a small one written
on the public API, and the four bundled ones) and fails each seeded bug with a message that
names it."""

from __future__ import annotations

import pytest

from cardgen.engine import engine_by_name
from cardgen.testing import CHECKS, KitFailure, check_engine, check_rules, configurations, load_game

from .conftest import BUNDLED
from .kit_engines import (BUGS, Endless, LateLeak, LeakedHand, LiveView, LostCard, MaskedOwnHand, NinetyPercent,
                          SharedClone, TrickRules, TrickState, make_rules)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_sound_engine_passes_every_check(players):
    report = check_rules(make_rules(players), games=12)
    assert set(report.checks) == set(CHECKS)
    # no entry point names these rules, so the bridge cannot play them: said, not failed
    assert report.checks["openspiel"].startswith("skipped: the rules are not the game's installed engine")
    assert "skipped" not in report.checks["action-space"]
    # the leak check compared real pairs both ways: hidden draws into hands, and seen ones
    hidden, seen, swaps = [int(word) for word in report.checks["leak"].split() if word.isdigit()]
    assert hidden > 0 and seen > 0 and swaps > 0


# each seeded bug: the check that must catch it and words its message must contain
SEEDED = {
    LeakedHand: ("leak", "may not see the chance outcome", "at public.hands"),
    LateLeak: ("leak", "trade places", "at public.leader"),
    MaskedOwnHand: ("leak", "saw the chance outcome", "a view masks a card its seat may see"),
    LiveView: ("observation", "observation changed as the game went on", "at private.zones.hand"),
    LostCard: ("invariants", "card conservation broken: missing"),
    SharedClone: ("clone", "playing a clone to its end changed the original state's observations[0].public.tricks",
                  "shares a container"),
    NinetyPercent: ("invariants", "chance probabilities sum to 0.899"),
    Endless: ("invariants", "no end after 200 actions"),
}


def test_every_seeded_bug_has_an_expectation():
    assert set(SEEDED) == set(BUGS.values())


@pytest.mark.parametrize("bug", list(SEEDED), ids=[name for name in BUGS])
def test_a_seeded_bug_fails_the_kit_naming_it(bug):
    check, *words = SEEDED[bug]
    with pytest.raises(KitFailure) as failure:
        check_rules(make_rules(3, bug), games=12, openspiel=False)
    assert failure.value.check == check
    message = str(failure.value)
    assert message.startswith(f"{check}: kitgame 3p standard, game ")
    for word in words:
        assert word in message


def test_check_engine_walks_every_player_count_of_the_game():
    game = load_game(str(make_rules.__globals__["GAME_FOLDER"]))
    reports = check_engine(TrickRules, game, games=2, openspiel=False)
    assert [r.players for r in reports] == [2, 3, 4]


def test_a_crash_in_the_rules_is_a_failure_naming_the_file_and_line():
    class Crashing(TrickState):
        def play(self, action):
            if len(self.history) > 12:
                raise KeyError("oops")
            super().play(action)

    with pytest.raises(KitFailure, match=r"^invariants: .*KeyError: 'oops' at test_testing_kit.py:\d+"):
        check_rules(make_rules(3, Crashing), games=2, openspiel=False)


def _rules_class(name):
    engine = engine_by_name(name)
    return getattr(engine, "Rules", engine)     # a module or, through an entry point, the class


BUNDLED_SETUPS = [pytest.param(game_id, players, variant, id=f"{game_id}-{players}p-{variant}")
                  for game_id in BUNDLED for players, variant in configurations(_rules_class(game_id), load_game(game_id))]


@pytest.mark.parametrize("game_id, players, variant", BUNDLED_SETUPS)
def test_the_bundled_engines_pass_the_kit(game_id, players, variant):
    game = load_game(game_id)
    rules_class = _rules_class(game_id)
    # OpenSpiel's own test is the slow part: once per engine (test_openspiel_bridge runs it too)
    first = (players, variant) == configurations(rules_class, game)[0]
    report = check_rules(lambda: rules_class(game, players, variant), games=2, openspiel=first)
    assert ("passed" in report.checks["openspiel"]) == first
