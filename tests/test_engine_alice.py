"""Detective Alice: solution check, memo rules, events, scoring, versus, random simulation."""

from __future__ import annotations

import random

import pytest

from cardgen.engine import alice
from cardgen.engine.bots import make_policy
from cardgen.engine.core import TERMINAL, IllegalAction, resolve_chance
from cardgen.engine.harness import random_game
from cardgen.engine.simulate import play
from cardgen.load import load_game
from tests.engine_moves import codes, mover


@pytest.fixture(scope="module")
def game():
    return load_game("alice")


@pytest.fixture(scope="module")
def solo(game):
    return alice.Rules(game, 1, "solo")


@pytest.fixture(scope="module")
def versus(game):
    return alice.Rules(game, 2, "versus")


def by(game, type_id, copy=1):
    """The id of a card by type and copy: by(game, 'red_place') -> 'AL06'."""
    return game.cards_of(type_id)[copy - 1].id


def stacked(game, top, sets=1):
    """A deck order (top first): `top` (a list per set, or one list) then the rest in id order."""
    tops = top if sets > 1 else [top]
    out = []
    for s in range(sets):
        first = list(tops[s])
        out += first + [c.id for c in game.cards if c.id not in first]
    return out


def idx(rules, card_id):
    return rules.index[card_id]


def ids(rules, cards):
    return [rules.ids[c] for c in cards]


CHANCE = random.Random(0)


go = mover(CHANCE)


def new(rules, order):
    """A new game from a stacked deck order, its forced draws made."""
    return resolve_chance(rules.new_initial_state(order), CHANCE)


def arranged(rules, record=(), memo=(), discard=(), top=(), seat=0, phase="investigate", turns=None, profiles=None):
    """A position: a solo game (or a versus seat) with chosen record, memo, discard and deck top
    (the rest of the deck shuffled); the turn starts at `phase`, its draw made."""
    position = {"game": "alice", "players": rules.players, "variant": rules.variant, "phase": phase,
                "to_act": seat + 1,
                "zones": {"record": {seat + 1: list(record)}, "memo": {seat + 1: list(memo)},
                          "discard": {seat + 1: list(discard)}},
                "decks": {"deck": {seat + 1: {"top": list(top)}}}}
    if turns is not None:
        position["counters"] = {"turns": {seat + 1: turns}}
    if profiles is not None:
        position["zones"]["profile"] = {p + 1: c for p, c in enumerate(profiles)}
    s = rules.from_position(position)
    s.check_invariants()
    return resolve_chance(s, CHANCE)


# ---- data and tables ------------------------------------------------------------------------

def test_setup_checks_pass(game):
    results = alice.setup_checks(game)
    assert results and all(r.ok for r in results), [r for r in results if not r.ok]


def test_link_bonus_table_matches_the_source(solo):
    # the source: 2-3: 0, 4-5: 1, 6-7: 2, 8-10: 4, 11-12: 8, 13-14: 12, 15-18: 24
    expected = {1: 0, 2: 0, 3: 0, 4: 1, 5: 1, 6: 2, 7: 2, 8: 4, 9: 4, 10: 4, 11: 8, 12: 8, 13: 12, 14: 12,
                15: 24, 16: 24, 17: 24, 18: 24}
    assert {n: solo.link_bonus_for(n) for n in expected} == expected
    assert solo.max_link() == 18


def test_link_length_follows_place_weapon_motive(game, solo):
    P, W, M = (idx(solo, by(game, f"red_{i}")) for i in ("place", "weapon", "motive"))
    bP, bW, bM = (idx(solo, by(game, f"blue_{i}")) for i in ("place", "weapon", "motive"))
    assert solo.link_length([]) == 0
    assert solo.link_length([P, W, M]) == 3
    assert solo.link_length([W, M, P, W]) == 4                 # any start, cyclic
    assert solo.link_length([P, bW, M, bP, W, bM]) == 6         # colour ignored
    assert solo.link_length([P, M, W]) == 1                     # wrong order: no link
    assert solo.link_length([M, P, M, P, W]) == 3


def test_solve_check_positive_and_negative(game, solo):
    red = {i: idx(solo, by(game, f"red_{i}")) for i in ("place", "weapon", "motive")}
    place2, place3 = (idx(solo, by(game, "red_place", k)) for k in (2, 3))
    blue = {i: idx(solo, by(game, f"blue_{i}")) for i in ("place", "weapon", "motive")}
    assert solo.solved([red["place"], red["weapon"], red["motive"]], "red")
    assert solo.solved([blue["place"], red["motive"], place2, red["place"], red["weapon"]], "red")
    assert not solo.solved([red["place"], red["weapon"], red["motive"]], "blue")
    # a blue card breaks the red run: weapon and motive, place only before the break
    assert not solo.solved([red["place"], blue["weapon"], red["weapon"], red["motive"]], "red")
    # duplicates do not stand in for a missing icon
    assert not solo.solved([red["place"], place2, red["weapon"], place3], "red")


# ---- solo play -------------------------------------------------------------------------------

def test_solved_case_wins_and_scores(game, solo):
    top = [by(game, "red_place"), by(game, "red_weapon"), by(game, "red_motive"),
           by(game, "blue_place"), by(game, "blue_weapon"), by(game, "alice_red")]
    s = new(solo, stacked(game, top))
    for _ in range(5):
        assert s.phase == alice.PLACE and codes(s) == ["memo", "record"]
        go(s, "record")
    assert s.is_terminal()
    res = s.result()
    assert res.success is True and res.winners == (0,) and res.ending == "solved"
    # 5 record cards + link place-weapon-motive-place-weapon (5 cards) = bonus 1
    assert res.scores == (5 + 1,)
    assert res.details["culprit"] == "red"
    s.check_invariants()


def test_failed_check_puts_the_suspect_in_the_memo(game, solo):
    top = [by(game, "red_place"), by(game, "blue_weapon"), by(game, "red_weapon"), by(game, "red_motive"),
           by(game, "alice_red")]
    s = new(solo, stacked(game, top))
    for _ in range(4):
        go(s, "record")
    assert not s.is_terminal()
    assert ids(solo, s.memos[0]) == [by(game, "alice_red")]
    assert s.phase == alice.EVENT and "pass" in codes(s)
    s.check_invariants()


def test_memo_limit_forces_the_record(game, solo):
    top = [by(game, "red_place"), by(game, "blue_place"), by(game, "green_place"), by(game, "red_weapon")]
    s = new(solo, stacked(game, top))
    for turn in range(3):
        if turn:
            assert s.phase == alice.INVESTIGATE
            go(s, "draw")
        go(s, "memo")
        assert s.phase == alice.EVENT
        go(s, "pass")
    assert len(s.memos[0]) == solo.memo_limit
    # with memo cards to play, the investigation phase is a choice
    assert "draw" in codes(s) and any(a.startswith("play:") for a in codes(s))
    go(s, "draw")
    assert ids(solo, s.records[0]) == [by(game, "red_weapon")]      # no place choice: memo is full
    assert s.phase == alice.EVENT
    s.check_invariants()


def test_play_from_memo_goes_to_the_record(game, solo):
    s = arranged(solo, memo=[by(game, "red_place")], top=[by(game, "blue_place")])
    assert codes(s) == ["draw", f"play:{by(game, 'red_place')}"]
    go(s, f"play:{by(game, 'red_place')}")
    assert ids(solo, s.records[0]) == [by(game, "red_place")] and s.memos[0] == []
    # it replaced this turn's draw; the empty memo skips the event phase, and the next turn draws
    assert s.pending == idx(solo, by(game, "blue_place")) and s.phase == alice.PLACE
    s.check_invariants()


def test_full_memo_makes_room_for_an_alice(game, solo):
    memo = [by(game, "red_place"), by(game, "blue_place"), by(game, "green_place")]
    s = arranged(solo, memo=memo, top=[by(game, "alice_white")])
    go(s, "draw")
    assert s.phase == alice.MAKE_ROOM
    assert codes(s) == sorted(f"discard:{c}" for c in memo)
    go(s, f"discard:{by(game, 'blue_place')}")
    assert ids(solo, s.memos[0]) == [by(game, "red_place"), by(game, "green_place"), by(game, "alice_white")]
    assert ids(solo, s.discards[0]) == [by(game, "blue_place")]
    s.check_invariants()


def test_alice_cards_are_never_discarded_to_make_room(game, solo):
    memo = [by(game, "alice_white"), by(game, "alice_black"), by(game, "red_place")]
    s = arranged(solo, memo=memo, top=[by(game, "blue_place"), by(game, "alice_blue")])
    go(s, "draw")           # blue place: memo full, straight to the record
    go(s, "pass")
    go(s, "draw")           # the blue suspect: the only investigation card makes room, then 3 Alices lose
    assert s.is_terminal()
    assert ids(solo, s.discards[0]) == [by(game, "red_place")]
    res = s.result()
    assert res.ending == "three-alices" and res.success is False and res.scores == (0,) and res.winners == ()
    s.check_invariants()


def test_three_alices_in_the_memo_lose(game, solo):
    top = [by(game, "alice_white"), by(game, "alice_black"), by(game, "alice_green")]
    s = new(solo, stacked(game, top))
    assert s.phase == alice.EVENT
    go(s, "pass")
    go(s, "pass")
    assert s.is_terminal() and s.result().ending == "three-alices"
    with pytest.raises(IllegalAction):
        s.apply("pass")


def test_empty_deck_loses_at_the_start_of_the_investigation_phase(game):
    # 「山が尽きるとゲームに敗北」. With the printed composition three Alices always stay in the
    # deck (see test_the_deck_never_runs_out_in_the_printed_composition), so the rule is shown
    # on a composition with two Alices: every other card recorded, the deck is empty.
    import dataclasses
    two = dataclasses.replace(game, cards=tuple(c for c in game.cards
                                                if c.type_id not in ("alice_red", "alice_blue", "alice_green")))
    rules = alice.Rules(two, 1, "solo")
    memo = [by(game, "alice_white"), by(game, "alice_black"), by(game, "red_place")]
    record = [rules.ids[c] for c in rules.investigations if rules.ids[c] not in memo]
    s = arranged(rules, record=record, memo=memo, phase="event")
    assert len(s.decks[0]) == 0
    go(s, "pass")
    assert s.is_terminal() and s.result().ending == "deck-empty" and s.result().success is False


def test_turn_limit_ends_a_stalled_game(game, solo):
    s = arranged(solo, top=[by(game, "red_place")], turns=solo.max_turns)
    assert s.is_terminal() and s.result().ending == "cold-case" and s.result().success is False


# ---- events ----------------------------------------------------------------------------------

def card_with(game, event, kind="investigation"):
    return next(c.id for c in game.cards if c.get("event") == event and c.get("kind") == kind)


def test_event_discard_colour_asks_for_a_target_and_discards_the_card(game, solo):
    ev = by(game, "red_place", 1)                                  # discards a blue card
    assert game.cards[solo.index[ev]].get("event_colour") == "blue"
    rec = [by(game, "blue_place"), by(game, "red_weapon"), by(game, "blue_weapon")]
    s = arranged(solo, record=rec, memo=[ev], phase="event")
    go(s, f"event:{ev}")
    assert s.phase == alice.TARGET
    assert codes(s) == sorted([f"target:{by(game, 'blue_place')}", f"target:{by(game, 'blue_weapon')}"])
    go(s, f"target:{by(game, 'blue_place')}")
    assert ids(solo, s.records[0]) == [by(game, "red_weapon"), by(game, "blue_weapon")]
    assert sorted(ids(solo, s.discards[0])) == sorted([by(game, "blue_place"), ev])
    assert s.phase in (alice.INVESTIGATE, alice.PLACE, alice.EVENT) or s.is_terminal()
    s.check_invariants()


def test_event_without_target_still_counts_as_used(game, solo):
    ev = by(game, "red_place", 1)
    s = arranged(solo, record=[by(game, "red_weapon")], memo=[ev], phase="event")
    go(s, f"event:{ev}")
    assert ids(solo, s.records[0]) == [by(game, "red_weapon")]
    assert ids(solo, s.discards[0]) == [ev]
    s.check_invariants()


def test_alice_event_shuffles_her_back_into_the_deck(game, solo):
    rec = [by(game, "red_place"), by(game, "blue_place"), by(game, "green_place"), by(game, "blue_weapon")]
    s = arranged(solo, record=rec, memo=[by(game, "alice_blue")], phase="event")
    before = len(s.decks[0])
    go(s, f"event:{by(game, 'alice_blue')}")         # discard every blue card of the record
    assert ids(solo, s.records[0])[:2] == [by(game, "red_place"), by(game, "green_place")]
    assert {by(game, "blue_place"), by(game, "blue_weapon")} <= set(ids(solo, s.discards[0]))
    assert idx(solo, by(game, "alice_blue")) not in s.memos[0]
    # she is back in the deck (one card may have been drawn since)
    assert idx(solo, by(game, "alice_blue")) in s.decks[0] or s.pending == idx(solo, by(game, "alice_blue")) \
        or idx(solo, by(game, "alice_blue")) in s.memos[0]
    assert len(s.decks[0]) >= before
    s.check_invariants()


def test_reveal_top_to_memo_takes_an_alice_too(game, solo):
    nuisance, detective = by(game, "alice_black"), by(game, "alice_white")
    assert game.cards_of("alice_black")[0].get("event") == "reveal_top_to_memo"
    # an investigation card on top: into the memo, the Nuisance back into the deck
    s = arranged(solo, memo=[nuisance], top=[by(game, "blue_place")], phase="event")
    go(s, f"event:{nuisance}")
    assert ids(solo, s.memos[0]) == [by(game, "blue_place")]
    assert idx(solo, nuisance) in s.decks[0]
    s.check_invariants()
    # an Alice on top goes to the memo as well, with no solution check
    rec = [by(game, "red_place"), by(game, "red_weapon"), by(game, "red_motive")]
    s = arranged(solo, record=rec, memo=[nuisance], top=[by(game, "alice_red")], phase="event")
    go(s, f"event:{nuisance}")
    assert not s.is_terminal() and ids(solo, s.memos[0]) == [by(game, "alice_red")]
    s.check_invariants()
    # the memo keeps its two Alices: the next Alice drawn is the third and loses
    s = arranged(solo, memo=[nuisance, detective], top=[by(game, "alice_red"), by(game, "alice_green")], phase="event")
    go(s, f"event:{nuisance}")
    assert {detective, by(game, "alice_red")} <= set(ids(solo, s.memos[0]))
    # the next turn draws at once (no investigation card to play from the memo): an Alice loses
    drawn = s.pending if not s.is_terminal() else None
    if s.is_terminal():
        assert s.result().ending == "three-alices"
    else:
        assert s.phase == alice.PLACE and not solo.is_alice[drawn]
    s.check_invariants()


def test_swap_and_record_to_memo_events(game, solo):
    swap = card_with(game, "swap_adjacent")
    rec = [by(game, "red_place"), by(game, "blue_place"), by(game, "green_place")]
    s = arranged(solo, record=rec, memo=[swap], phase="event")
    go(s, f"event:{swap}")
    assert codes(s) == sorted([f"swap:{rec[0]}", f"swap:{rec[1]}"])
    go(s, f"swap:{rec[1]}")
    assert ids(solo, s.records[0]) == [rec[0], rec[2], rec[1]]

    to_memo = card_with(game, "record_last_to_memo")
    s = arranged(solo, record=rec, memo=[to_memo, by(game, "alice_white"), by(game, "alice_black")], phase="event")
    go(s, f"event:{to_memo}")      # the used card frees its slot first, so the full memo takes the card
    assert ids(solo, s.memos[0]) == [by(game, "alice_white"), by(game, "alice_black"), rec[2]]
    assert ids(solo, s.records[0]) == rec[:2]
    assert s.phase == alice.INVESTIGATE         # the next turn may play that card again or draw
    s.check_invariants()


def test_scout_top_reveals_an_alice_without_a_solution_check(game, solo):
    scout = card_with(game, "scout_top")
    rec = [by(game, "red_place"), by(game, "red_weapon"), by(game, "red_motive")]
    s = arranged(solo, record=rec, memo=[scout], top=[by(game, "alice_red")], phase="event")
    go(s, f"event:{scout}")
    assert not s.is_terminal()
    # the red suspect went to the bottom of the deck, not to a solution check
    assert ids(solo, s.decks[0].cards()[-1:]) == [by(game, "alice_red")]
    s.check_invariants()


def test_peek_reorder_and_recover(game, solo):
    peek = card_with(game, "peek_reorder")
    top = [by(game, "red_place"), by(game, "blue_place"), by(game, "green_place")]
    s = arranged(solo, memo=[peek], top=top, phase="event")
    go(s, f"event:{peek}")
    assert s.phase == alice.TARGET and len(codes(s)) == 6
    go(s, f"order:{top[2]}:{top[0]}:{top[1]}")
    # the next turn drew the new top card; the other two follow in the chosen order
    assert s.pending == idx(solo, top[2]) and s.phase == alice.PLACE
    assert ids(solo, s.decks[0].cards()[:2]) == [top[0], top[1]]
    assert ids(solo, s.discards[0]) == [peek]

    rec = card_with(game, "recover_discard")
    s = arranged(solo, memo=[rec], discard=[by(game, "red_place"), by(game, "blue_place")], phase="event")
    go(s, f"event:{rec}")
    go(s, f"recover:{by(game, 'blue_place')}")
    assert ids(solo, s.decks[0].cards()[-1:]) == [by(game, "blue_place")]       # bottom of the deck
    assert ids(solo, s.discards[0]) == [by(game, "red_place"), rec]
    s.check_invariants()


# ---- versus ----------------------------------------------------------------------------------

def versus_state(game, versus, profiles, tops):
    s = new(versus, stacked(game, tops, sets=2))
    assert s.phase == alice.SETUP_PROFILE and s.current_player() == 0
    assert len(codes(s)) == 5
    go(s, f"profile:{profiles[0]}")
    assert s.current_player() == 1
    go(s, f"profile:{profiles[1]}")
    assert [versus.ids[c] for c in s.profiles] == list(profiles)
    assert idx(versus, profiles[1]) not in s.decks[1]            # the profile stays out of the deck
    assert len(s.decks[1]) == len(game.cards) - 1
    return s


def test_versus_shared_solution_check_names_the_culprit(game, versus):
    red = [by(game, "red_place"), by(game, "red_weapon"), by(game, "red_motive")]
    s = versus_state(game, versus, [by(game, "alice_red"), by(game, "alice_white")],
                     [red + [by(game, "blue_place")], [by(game, "blue_place"), by(game, "green_place"),
                                                       by(game, "green_weapon"), by(game, "alice_red")]])
    # seat 0 records red; seat 1 records blue and green cards, then draws the red suspect
    for _ in range(3):
        assert s.current_player() == 0 and s.phase == alice.PLACE
        go(s, "record")
        assert s.current_player() == 1 and s.phase == alice.PLACE
        go(s, "record")
    assert s.current_player() == 0
    go(s, "record")                   # seat 0: blue place
    # seat 1 draws her red suspect: may change profile first (once a game)
    assert s.current_player() == 1 and s.phase == alice.PROFILE_CHANGE
    go(s, "keep")
    assert s.is_terminal()
    res = s.result()
    assert res.ending == "solved" and res.details["culprit"] == "red"
    assert res.winners == (0,)          # seat 0 profiled the red suspect; the check used seat 0's record
    s.check_invariants()


def test_versus_profile_change_and_forced_event(game, versus):
    s = versus_state(game, versus, [by(game, "alice_white"), by(game, "alice_red")],
                     [[by(game, "alice_blue"), by(game, "green_place")], [by(game, "alice_black"), by(game, "red_place")]])
    # seat 0 drew the blue suspect: change the profile to her; the Detective is revealed instead
    assert s.current_player() == 0 and s.phase == alice.PROFILE_CHANGE
    go(s, "change")
    assert s.profiles[0] == idx(versus, by(game, "alice_blue"))
    assert ids(versus, s.memos[0]) == [by(game, "alice_white")]
    assert s.phase == alice.EVENT
    go(s, "pass")
    # seat 1 draws the Nuisance: she keeps her profile; seat 0's memo holds an Alice to force
    assert s.current_player() == 1 and s.phase == alice.PROFILE_CHANGE
    go(s, "keep")
    assert s.phase == alice.FORCE and f"force:{by(game, 'alice_white')}" in codes(s)
    go(s, f"force:{by(game, 'alice_white')}")
    # seat 0 resolves the Detective's event: the top of seat 0's own deck goes to seat 0's memo
    assert idx(versus, by(game, "alice_white")) in s.decks[0]      # shuffled back into seat 0's deck
    assert ids(versus, s.memos[0]) == [by(game, "green_place")]
    assert ids(versus, s.memos[1]) == [by(game, "alice_black")]
    assert s.current_player() == 1 and s.phase == alice.EVENT
    assert s.changes_left == [0, 1]
    s.check_invariants()


def test_versus_detective_wins_when_the_opponent_loses(game, versus):
    alices1 = [by(game, "alice_white"), by(game, "alice_black"), by(game, "alice_blue")]
    s = versus_state(game, versus, [by(game, "alice_white"), by(game, "alice_red")],
                     [[by(game, "red_place"), by(game, "blue_place"), by(game, "green_place")], alices1])
    for action in ("record", "keep", "pass",       # seat 0 records; seat 1 draws the Detective
                   "record", "keep", "pass",       # seat 1 draws the Nuisance
                   "record", "keep"):              # seat 1 draws the blue suspect: no solution, third Alice
        go(s, action)
    assert s.is_terminal()
    res = s.result()
    assert res.ending == "three-alices" and res.details["loser"] == 1
    assert res.winners == (0,)


def test_versus_nuisance_wins_with_three_suspects_in_a_memo(game, versus):
    suspects = [by(game, "alice_red"), by(game, "alice_blue"), by(game, "alice_green")]
    s = versus_state(game, versus, [by(game, "alice_black"), by(game, "alice_white")],
                     [[by(game, "red_place"), by(game, "blue_place"), by(game, "green_place")], suspects])
    while not s.is_terminal():
        legal = codes(s)
        go(s, next(a for a in ("record", "keep", "noforce", "pass") if a in legal))
    res = s.result()
    assert res.ending == "three-alices" and res.details["loser"] == 1
    assert res.winners == (0,)          # the Nuisance's condition; seat 1 (Detective) lost, so theirs is unmet
    s.check_invariants()


def test_versus_scores_when_nobody_meets_a_condition(game, versus):
    red = [idx(versus, by(game, "red_place")), idx(versus, by(game, "red_weapon"))]
    assert versus.versus_score(red, idx(versus, by(game, "alice_red"))) == 2 + 0
    assert versus.versus_score(red, idx(versus, by(game, "alice_white"))) == 0
    # Seat 1 solves the blue case, which nobody profiled: the scores decide, 0 : 0 is a draw.
    blue = [by(game, "blue_place"), by(game, "blue_weapon"), by(game, "blue_motive")]
    s = arranged(versus, record=blue, top=[by(game, "alice_blue")], profiles=[by(game, "alice_red"), by(game, "alice_green")])
    assert s.phase == alice.PROFILE_CHANGE
    go(s, "keep")
    res = s.result()
    assert res.ending == "solved" and res.details["culprit"] == "blue"
    assert res.scores == (0, 0) and res.winners == (0, 1)


# ---- random simulation, determinism, policies ----------------------------------------------

@pytest.mark.parametrize("players,variant,games", [(1, "solo", 300), (2, "versus", 150)])
def test_random_simulation(game, players, variant, games):
    rules = alice.Rules(game, players, variant)
    lo, hi = rules.score_range()
    for seed in range(games):
        state, res = random_game(rules, seed)            # invariants after every action
        assert state.is_terminal() and state.legal_actions() == []
        assert all(lo <= x <= hi for x in res.scores)
        assert res.length <= rules.max_actions


def test_variant_player_counts(game):
    with pytest.raises(ValueError):
        alice.Rules(game, 2, "solo")
    with pytest.raises(ValueError):
        alice.Rules(game, 1, "versus")
    assert alice.Rules(game, 1).variant == "solo" and alice.Rules(game, 2, "standard").variant == "versus"
    assert alice.Rules(game, 1).cooperative and not alice.Rules(game, 2).cooperative




def test_heuristic_beats_random_in_the_solitaire(game, solo):
    wins = {}
    for name in ("random", "heuristic"):
        policy = make_policy(alice.Rules, name, solo)
        wins[name] = sum(play(solo, [policy], seed).result().success for seed in range(300))
    assert wins["heuristic"] > wins["random"] + 60, wins


def test_current_player_terminal(game, solo):
    s = solo.new_initial_state()
    while not s.is_terminal():
        s.apply(s.legal_actions()[0])
    assert s.current_player() == TERMINAL


# ---- the rules mended in issue 13 --------------------------------------------------------------

def versus_position(versus, seat, profiles, record=None, memo=None, top=None, changes_left=(0, 0)):
    """A versus position at `seat`'s investigation phase (0-based seats; the profile changes are used up)."""
    return resolve_chance(versus.from_position({
        "game": "alice", "players": 2, "variant": "versus", "phase": "investigate", "to_act": seat + 1,
        "zones": {"profile": {p + 1: c for p, c in enumerate(profiles)},
                  "record": {p + 1: list(c) for p, c in (record or {}).items()},
                  "memo": {p + 1: list(c) for p, c in (memo or {}).items()}},
        "decks": {"deck": {p + 1: {"top": list(c)} for p, c in (top or {}).items()}},
        "counters": {"changes_left": {p + 1: n for p, n in enumerate(changes_left)}}}), CHANCE)


def test_versus_a_player_with_three_alices_loses_even_ahead_on_score(game, versus):
    # 「山が尽きるか、メモに３枚アリスが溜まると敗北」: seat 2 leads on score (four red cards for
    # the red suspect) but draws a third Alice: seat 2 loses, seat 1 wins.
    red = [by(game, "red_place"), by(game, "red_weapon"), by(game, "red_place", 2), by(game, "red_motive")]
    s = versus_position(versus, 1, [by(game, "alice_green"), by(game, "alice_red")],
                        record={1: red[:1] + [by(game, "blue_place")] + red[1:]},
                        memo={1: [by(game, "alice_white"), by(game, "alice_black")]},
                        top={1: [by(game, "alice_blue")]})
    assert s.is_terminal()
    res = s.result()
    assert res.ending == "three-alices" and res.details["loser"] == 1
    assert res.scores[1] > res.scores[0] and res.winners == (0,)
    assert s.returns() == [1.0, 0.0]


def test_versus_the_nuisance_wins_from_her_own_memo(game, versus):
    # the source's exception: お邪魔アリスは「どちらかのメモに、容疑者アリスが３枚おかれたら勝利」,
    # even when the three suspects are in her own memo (her loss condition in the solitaire)
    s = versus_position(versus, 1, [by(game, "alice_white"), by(game, "alice_black")],
                        memo={1: [by(game, "alice_red"), by(game, "alice_green")]},
                        top={1: [by(game, "alice_blue")]})
    assert s.is_terminal()
    res = s.result()
    assert res.ending == "three-alices" and res.details["loser"] == 1 and res.winners == (1,)


@pytest.mark.parametrize("players,variant,least", [(1, "solo", 3), (2, "versus", 2)])
def test_the_deck_never_runs_out_in_the_printed_composition(game, players, variant, least):
    # 「山が尽きるとゲームに敗北」 cannot happen with five Alices, at most two in a memo, none ever
    # discarded: at least three stay in the deck (two in versus, the profile set aside). So the
    # game's clock is the printed turn limit (decision turn-limit, which says why).
    rules = alice.Rules(game, players, variant)
    chance, choice = random.Random(5), random.Random(6)
    for _ in range(60):
        s = rules.new_initial_state()
        while not s.is_terminal():
            settled = s.pending is None and s.ev_card is None and not s.peeked
            for p in range(rules.sets):
                if s.profiles[p] is not None or variant == "solo":
                    in_memo = sum(1 for c in s.memos[p] if rules.is_alice[c])
                    assert len(rules.alices) - in_memo - (variant == "versus") >= least
                    if settled:      # no Alice is being drawn or used: the rest are in the deck
                        assert sum(1 for c in s.decks[p].cards() if rules.is_alice[c]) >= least
            legal = s.legal_actions()
            s.apply(legal[int(choice.random() * len(legal))] if not s.is_chance_node() else legal[int(chance.random() * len(legal))])
        assert s.result().ending != "deck-empty"
    text = next(d for d in game.decisions if d.id == "turn-limit").text
    assert "山が尽きるとゲームに敗北" in text.ja and "can never happen" in text.en
