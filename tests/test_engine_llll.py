"""Love Letter to Lady Luck: setup, auctions, every ability, round flow, scoring and tie-breaks."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from cardgen.engine import llll
from cardgen.engine.core import TERMINAL, IllegalAction, apply_moves, play as play_game, resolve_chance
from cardgen.engine.harness import random_game, random_sim_sweep
from cardgen.load import load_game


@pytest.fixture(scope="module")
def game():
    return load_game("llll")


@pytest.fixture(scope="module")
def ids(game):
    return {t.id: [c.id for c in game.cards_of(t.id)] for t in game.card_types}


def rules_for(game, players=3):
    return llll.Rules(game, players)


def legal(state):
    """The legal actions as plain tuples (kind, *args), e.g. ("use", "LL01", 2)."""
    return [(a.kind, *a.args) for a in state.legal_actions()]


def dealt(rules, order):
    """A new game from a stacked deck, with the forced set-aside and castle draws made."""
    state = rules.new_initial_state(order)
    resolve_chance(state, random.Random(0))
    state.check_invariants()
    return state


def ally_state(game, allies, scores=None, players=3, ap=None, current=0, tapped=(), round=1, castle=True):
    """A position in an ally phase with the given allies and score cards per seat (0-based
    here, numbered from 1 in the position); the next round's castle is dealt from the unused
    cards (its last slot face down), every other card is in the deck."""
    used = {c for cards in allies.values() for c in cards} | {c for cards in (scores or {}).values() for c in cards}
    free = [c.id for c in game.cards if c.id not in used]
    position = {
        "game": "llll", "players": players, "phase": "ally", "to_act": current + 1,
        "zones": {"allies": {s + 1: list(c) for s, c in allies.items()},
                  "scores": {s + 1: list(c) for s, c in (scores or {}).items()},
                  "tapped": list(tapped)},
        "counters": {"round": round},
    }
    if castle:
        position["zones"]["castle"] = free[:players]
    if ap:
        position["counters"]["ap"] = list(ap)
    state = llll.Rules(game, players).from_position(position)
    state.check_invariants()
    return state


def play(state, *actions):
    for action in actions:
        state.apply(action)
        state.check_invariants()


# --- setup --------------------------------------------------------------------------------

def test_setup_three_players(game):
    rules = rules_for(game, 3)
    state = resolve_chance(rules.new_initial_state(), random.Random(1))
    assert len(state.aside) == game.param("set_aside_unseen")[3] == 8
    assert all(c is not None for c in state.castle) and len(state.castle) == 3
    assert sum(state.hidden) == game.param("castle_face_down") == 1
    assert state.ap == [game.param("starting_action_points")] * 3 == [10, 10, 10]
    assert len(state.deck) == 32 - 8 - 3
    assert state.current_player() == 0 and state.phase == llll.PICK
    state.check_invariants()


def test_setup_four_players_sets_nothing_aside(game):
    state = resolve_chance(rules_for(game, 4).new_initial_state(), random.Random(1))
    assert state.aside == [] and len(state.castle) == 4 and len(state.deck) == 28


def test_deck_order_stacks_the_deck(game):
    order = [c.id for c in game.cards]
    state = dealt(rules_for(game, 3), order)
    assert state.aside == order[:8]
    assert state.castle == order[8:11]
    assert state.hidden == [False, False, True]
    with pytest.raises(ValueError, match="each card once"):
        rules_for(game, 3).new_state(random.Random(0), deck_order=order[:-1])


def test_numbers_come_from_the_data(game):
    params = dict(game.parameters)
    params["starting_action_points"] = 7
    params["ability_action_points"] = {"priest": 5, "maid": 1}
    changed = dataclasses.replace(game, parameters=params)
    state = llll.Rules(changed, 3).new_state(random.Random(0))
    assert state.ap == [7, 7, 7]
    assert llll.Rules(changed, 3).gain["LL11"] == 5


def test_unknown_card_type_is_refused(game):
    bad = dataclasses.replace(game, cards=tuple(dataclasses.replace(c, type_id="jester") if c.id == "LL32" else c for c in game.cards))
    with pytest.raises(ValueError, match="jester"):
        llll.Rules(bad, 3)


# --- auctions -----------------------------------------------------------------------------

def test_auction_outbid_pass_pay_and_next_parent(game):
    order = [c.id for c in game.cards]
    state = dealt(rules_for(game, 3), order)
    card0 = state.castle[0]
    assert legal(state) == [("pick", 0), ("pick", 1), ("pick", 2)]
    play(state, ("pick", 0))
    assert legal(state) == [("bid", n) for n in range(11)]
    play(state, ("bid", 2))
    assert state.current_player() == 1
    assert legal(state) == [("bid", n) for n in range(3, 11)] + [("pass",)]
    with pytest.raises(IllegalAction):
        state.apply(("bid", 2))            # must outbid
    with pytest.raises(IllegalAction):
        state.apply(("bid", 11))           # not more than own AP
    play(state, ("bid", 3), ("pass",))     # seat 2 bids 3, seat 3 passes (out)
    assert state.current_player() == 0
    play(state, ("bid", 4))
    assert state.current_player() == 1
    play(state, ("pass",))                 # all others passed: seat 1 pays 4 and takes
    assert state.phase == llll.TAKE and state.current_player() == 0
    assert state.ap == [6, 10, 10]
    play(state, ("score",))
    assert state.scores[0] == [card0] and state.castle[0] is None
    # The next parent is left of the winner: seat 2.
    assert state.current_player() == 1 and state.phase == llll.PICK
    play(state, ("pick", 2), ("bid", 0), ("pass",))
    assert state.phase == llll.TAKE and state.current_player() == 1 and state.ap[1] == 10
    play(state, ("ally",))
    # The last player takes the last card for 0 without an auction.
    assert state.phase == llll.TAKE and state.current_player() == 2 and state.slot == 1
    assert legal(state) == [("ally",), ("score",)]
    play(state, ("ally",))
    assert state.ap == [6, 10, 10]
    # Ally phase: a new castle is dealt first (chance: forced draws from the stacked deck);
    # the last winner (seat 3) starts.
    assert state.phase == llll.DEAL and state.is_chance_node()
    resolve_chance(state, random.Random(0))
    assert state.phase == llll.ALLY and all(c is not None for c in state.castle)
    assert state.current_player() == 2


def test_next_parent_skips_players_who_already_won(game):
    order = [c.id for c in game.cards]
    state = dealt(rules_for(game, 4), order)
    play(state, ("pick", 0), ("bid", 1), ("pass",), ("pass",), ("pass",), ("ally",))   # seat 1 wins
    assert state.current_player() == 1
    play(state, ("pick", 1), ("bid", 0), ("pass",), ("pass",))   # seats 3, 4 pass; seat 1 is skipped
    assert state.current_player() == 1
    play(state, ("ally",))
    assert state.current_player() == 2          # left of seat 2 is seat 3
    play(state, ("pick", 2), ("bid", 0), ("bid", 1), ("pass",))   # seat 4 outbids, seat 3 passes
    assert state.current_player() == 3 and state.phase == llll.TAKE
    play(state, ("ally",))
    # Left of seat 4 is seat 1 (won), then seat 2 (won), then seat 3: the last player, for 0.
    assert state.current_player() == 2 and state.phase == llll.TAKE and state.ap[2] == 10


def test_a_player_who_cannot_outbid_passes_by_himself(game):
    order = [c.id for c in game.cards]
    castle = order[8:11]
    state = rules_for(game, 3).from_position({"game": "llll", "players": 3, "phase": "pick", "to_act": 1,
                                              "zones": {"set_aside": order[:8], "castle": castle},
                                              "decks": {"deck": order[11:]}, "counters": {"ap": [10, 3, 10]}})
    assert state.castle == castle and state.hidden == [False, False, True]
    play(state, ("pick", 0), ("bid", 3))
    assert state.current_player() == 2       # seat 2 has 3 AP: cannot outbid 3


def test_hidden_card_is_seen_only_by_its_winner(game):
    order = [c.id for c in game.cards]
    state = dealt(rules_for(game, 3), order)
    hidden = state.castle[2]
    assert "face-down" in state.describe(("pick", 2))
    play(state, ("pick", 2), ("bid", 0), ("pass",), ("pass",), ("score",))
    assert hidden in state.peeked[0] and hidden not in state.peeked[1]
    assert hidden in state.scores[0] and hidden in state.secret
    # The greedy bot counts another player's secret score card as an average card.
    bot = llll.GreedyPolicy(state.rules)
    seen_by_2, seen_by_1 = llll._Seen(state.observation(1)), llll._Seen(state.observation(0))
    assert bot.known_points(seen_by_2, 0) == pytest.approx(bot.mean_vp + state.ap[0] // 3)
    assert bot.known_points(seen_by_1, 0) == state.points(0) - state.rules.vp[hidden] + bot.mean_vp
    assert seen_by_1.my_secret == [hidden]


# --- the ally phase -----------------------------------------------------------------------

def test_priest_and_maid_gain_action_points(game, ids):
    state = ally_state(game, {0: [ids["priest"][0], ids["maid"][0]]})
    play(state, ("use", ids["priest"][0]))
    assert state.ap[0] == 10 + game.param("ability_action_points")["priest"] == 12
    assert ids["priest"][0] in state.tapped
    assert state.current_player() == 0          # seats 2 and 3 have no ally: they passed by themselves
    play(state, ("use", ids["maid"][0]))
    assert state.ap[0] == 13


def test_pass_taps_all_and_first_passer_becomes_parent(game, ids):
    priest, maid, knight = ids["priest"][0], ids["maid"][0], ids["knight"][0]
    state = ally_state(game, {0: [priest, maid], 1: [knight], 2: [ids["maid"][1]]})
    play(state, ("pass",))
    assert state.passed[0] and {priest, maid} <= state.tapped
    assert state.current_player() == 1
    play(state, ("use", knight))            # knight without a target: no effect, tapped
    # Seat 2 now has no untapped ally: passes by itself; seat 3 acts.
    assert state.current_player() == 2
    play(state, ("pass",))
    assert state.phase == llll.PICK and state.round == 2
    assert state.current_player() == 0      # the first to pass is the next parent
    assert not state.tapped                 # round end: everything untapped


def test_princess_wins_on_second_use_of_the_same_card(game, ids):
    princess, general = ids["princess"][0], ids["general"][0]
    state = ally_state(game, {0: [princess, general], 1: [ids["maid"][0]], 2: [ids["maid"][1]]})
    play(state, ("use", princess))
    play(state, ("use", ids["maid"][0]), ("use", ids["maid"][1]))
    assert ("use", general, princess) in legal(state)
    play(state, ("use", general, princess))
    assert princess not in state.tapped
    assert state.current_player() == 0
    play(state, ("use", princess))
    assert state.is_terminal()
    result = state.result()
    assert result.winners == (0,) and result.ending == "princess"


def test_two_different_princesses_do_not_combine(game, ids):
    p1, p2 = ids["princess"]
    state = ally_state(game, {0: [p1, p2]})
    play(state, ("use", p1))
    assert state.current_player() == 0
    play(state, ("use", p2))
    assert not state.is_terminal()


def test_princess_uses_reset_each_round(game, ids):
    p1 = ids["princess"][0]
    state = ally_state(game, {0: [p1]})
    play(state, ("use", p1))
    assert state.phase == llll.PICK and state.princess_uses == {}


def test_knight_taps_any_untapped_ally(game, ids):
    knight, priest, general = ids["knight"][0], ids["priest"][0], ids["general"][0]
    state = ally_state(game, {0: [knight], 1: [priest, general]})
    actions = legal(state)
    assert ("use", knight, priest) in actions and ("use", knight, knight) not in actions
    play(state, ("use", knight, priest))
    assert priest in state.tapped
    assert ("use", priest) not in legal(state)


def test_general_untaps_any_tapped_ally_including_an_opponents(game, ids):
    general, priest = ids["general"][0], ids["priest"][0]
    state = ally_state(game, {0: [general, ids["maid"][0]], 1: [priest, ids["maid"][1]]}, tapped=[priest])
    assert ("use", general, priest) in legal(state)
    play(state, ("use", general, priest))
    assert priest not in state.tapped
    assert ("use", priest) in legal(state)   # seat 2 may use her again


def test_two_generals_cannot_untap_each_other_for_ever(game, ids):
    """decision ability-uses: each card's ability at most twice an ally phase, so two Generals
    untapping each other (a Priest gaining AP between them) end the phase (it never did)."""
    (g1, g2), priest = ids["general"][:2], ids["priest"][0]
    state = ally_state(game, {0: [g1, g2, priest], 1: [ids["maid"][0]], 2: [ids["maid"][1]]})
    ap_before = state.ap[0]
    moves = 0
    while state.phase == llll.ALLY and moves < 100:
        options = legal(state)
        untaps = [o for o in options if o[0] == "use" and len(o) == 3]
        uses = [o for o in options if o[0] == "use"]
        play(state, (untaps or uses or options)[0])
        moves += 1
    assert state.phase != llll.ALLY, "the ally phase never ended"
    used = Counter(a.args[0] for a in state.history if a.kind == "use")
    assert max(used.values()) == 2 and used[g1] + used[g2] >= 3
    assert state.ap[0] - ap_before <= 2 * 2          # the Priest at most twice, not for ever
    assert moves <= 2 * 2 * 5 + 3                    # at most twice per ally in play, and the passes


def test_revived_ally_of_a_passed_player_cannot_be_used(game, ids):
    general, priest, maid = ids["general"][0], ids["priest"][0], ids["maid"][0]
    state = ally_state(game, {0: [priest], 1: [general, maid]})
    play(state, ("pass",))                    # seat 1 passes: priest tapped
    play(state, ("use", general, priest))     # seat 2 untaps seat 1's priest
    assert priest not in state.tapped
    assert state.current_player() == 1        # seat 1 gets no further turn
    play(state, ("use", maid))
    assert state.phase == llll.PICK           # round over: seat 1 never used the priest
    assert state.ap[0] == 10


def test_magician_turns_another_ally_into_score(game, ids):
    magician, maid = ids["magician"][0], ids["maid"][0]
    state = ally_state(game, {0: [magician, maid], 1: [ids["maid"][1]]}, tapped=[maid])
    actions = legal(state)
    assert ("use", magician, magician) not in actions and ("use", magician, maid) in actions
    play(state, ("use", magician, maid))
    assert maid in state.scores[0] and maid not in state.allies[0] and maid not in state.tapped


def test_noble_the_chosen_player_chooses_which_score_card(game, ids):
    noble = ids["noble"][0]
    low, high = ids["maid"][0], ids["princess"][0]
    state = ally_state(game, {0: [noble], 1: [ids["maid"][1]]}, scores={1: [low, high]})
    assert [a for a in legal(state) if a[0] == "use"] == [("use", noble, 0), ("use", noble, 1), ("use", noble, 2)]
    play(state, ("use", noble, 1))
    assert state.phase == llll.NOBLE and state.current_player() == 1
    assert legal(state) == sorted([("reveal", low), ("reveal", high)])
    play(state, ("reveal", low))
    assert low in state.allies[1] and low not in state.tapped and state.scores[1] == [high]
    assert state.current_player() == 1 and state.phase == llll.ALLY   # seat 2's turn after seat 1's
    assert ("use", low) in legal(state)     # untapped: usable on its owner's turn


def test_noble_with_one_or_no_score_card(game, ids):
    noble = ids["noble"][0]
    only = ids["priest"][0]
    state = ally_state(game, {0: [noble, ids["maid"][0]]}, scores={0: [only]})
    play(state, ("use", noble, 0))              # yourself, one score card: it turns at once
    assert only in state.allies[0] and not state.scores[0]
    state = ally_state(game, {0: [noble]})
    play(state, ("use", noble, 2))              # nobody's score: nothing happens
    assert state.phase == llll.PICK


def test_fortune_teller_peeks_at_the_face_down_castle_card(game, ids):
    teller = ids["fortune_teller"][0]
    state = ally_state(game, {0: [teller]})
    hidden = [c for c, h in zip(state.castle, state.hidden) if h]
    assert len(hidden) == 1
    play(state, ("use", teller))
    assert hidden[0] in state.peeked[0] and hidden[0] not in state.peeked[1]


# --- end of the game ----------------------------------------------------------------------

def finished(game, scores, ap):
    """The last round's ally phase with nobody holding an ally: everyone passes and it ends."""
    state = ally_state(game, {}, scores=dict(enumerate(scores)), ap=ap, round=game.param("rounds"), castle=False)
    assert state.is_terminal() and state.current_player() == TERMINAL
    return state


def test_score_is_vp_plus_action_points_over_three(game, ids):
    state = finished(game, [[ids["princess"][0], ids["maid"][0]], [ids["priest"][0]], []], ap=[8, 2, 0])
    assert state.result().scores == (5 + 1 + 8 // 3, 3, 0)


def test_tie_break_highest_single_card_then_more_cards_then_draw(game, ids):
    # 6 = 5 + 1 versus 6 = 3 + 3: the Princess decides.
    state = finished(game, [[ids["princess"][0], ids["maid"][0]], [ids["priest"][0], ids["priest"][1]], []], ap=[0, 0, 0])
    assert state.result().winners == (0,)
    # 6 = 3 + 3 versus 6 = 3 + 2 + 1: same best card (3), more cards wins.
    state = finished(game, [[ids["priest"][0], ids["priest"][1]], [ids["priest"][2], ids["knight"][0], ids["maid"][0]], []], ap=[0, 0, 0])
    assert state.result().winners == (1,)
    # Identical on all three: a draw.
    state = finished(game, [[ids["priest"][0], ids["maid"][0]], [ids["priest"][1], ids["maid"][1]], []], ap=[0, 0, 0])
    result = state.result()
    assert result.winners == (0, 1) and result.draw


def test_game_ends_after_round_eight_with_eight_cards_each(game):
    rules = rules_for(game, 3)
    for seed in range(40):
        state, result = random_game(rules, seed)
        if result.ending == "points":
            assert state.round == game.param("rounds")
            assert all(len(state.allies[s]) + len(state.scores[s]) == 8 for s in range(3))
            assert not state.deck


def test_seeded_determinism(game):
    rules = rules_for(game, 4)
    a, _ = random_game(rules, 99)
    b, _ = random_game(rules, 99)
    assert a.history == b.history and a.result() == b.result()
    replayed = rules.new_initial_state()
    apply_moves(replayed, a.history)           # automatic moves in the list are checked, not re-applied
    assert replayed.history == a.history
    assert replayed.result() == a.result()


@pytest.mark.parametrize("players", [3, 4])
def test_random_simulation(game, players):
    rules = rules_for(game, players)
    for seed in range(150):
        random_game(rules, 1000 + seed)     # checks invariants after every action


def test_sweep_passes(game):
    results = random_sim_sweep(game, games_per_count=10)
    assert [r.id for r in results] == ["random-sim-3p", "random-sim-4p"]
    assert all(r.ok for r in results), results


def test_greedy_beats_random(game):
    rules = rules_for(game, 3)
    wins = 0
    for seed in range(150):
        policies = [llll.GreedyPolicy(rules)] + [llll.RandomPolicy(rules)] * 2
        state = play_game(rules.new_initial_state(), policies, random.Random(seed), random.Random(-seed))
        wins += state.result().winners == (0,)
    assert wins > 150 / 3


def test_describe_is_readable(game, ids):
    state = ally_state(game, {0: [ids["noble"][0]]})
    assert state.describe(("use", ids["noble"][0], 1)) == f"use Noble {ids['noble'][0]} on seat 2"
    assert state.describe(("bid", 3)) == "bid 3 AP"


def test_setup_checks_still_hold(game):
    results = llll.setup_checks(game)
    assert [r.id for r in results] == ["setup-3p", "setup-4p"] and all(r.ok for r in results)
