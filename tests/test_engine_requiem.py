"""Can You Hear the Requiem?: the source's worked numbers, setup, all nine phases, the King,
the princes' declarations, victory, defeats and the ending score."""

from __future__ import annotations

import random

import pytest

from cardgen.engine import requiem
from cardgen.engine.core import play, resolve_chance
from cardgen.engine.harness import random_game, random_sim_sweep
from cardgen.load import load_game

R = requiem


@pytest.fixture(scope="module")
def game():
    return load_game("requiem")


@pytest.fixture(scope="module")
def rules(game):
    return requiem.Rules(game, 3)


@pytest.fixture(scope="module")
def card(game):
    def find(type_id, suit=None, n=0):
        cards = [c.id for c in game.cards_of(type_id) if suit is None or c.get("suit") == suit]
        return cards[n]
    return find


# --- helpers ------------------------------------------------------------------------------

CHANCE = random.Random(0)


def legal(state):
    """The legal actions as plain tuples (kind, *args)."""
    return [(a.kind, *a.args) for a in state.legal_actions()]


def start(rules, card, seed=0):
    """Setup and the prince choice: seat 1 medal, seat 2 hourglass, seat 3 coffin."""
    chance = random.Random(seed)
    state = resolve_chance(rules.new_initial_state(), chance)
    for suit in ("medal", "hourglass", "coffin"):
        state.apply(("prince", card("prince", suit)))
        resolve_chance(state, chance)
    state.check_invariants()
    return state


def arranged(rules, card, lines=None, arrivals=(None, None, None), intercept=None, city_top=(), damage=(),
             city=None, ally_dead=(), enemy_decks=None, enemy_retreat=(), turn=1):
    """A position at the start of phase 2 (scouting) of `turn`: each seat holds its prince
    (seat 1 medal, seat 2 hourglass, seat 3 coffin) unless `lines` (0-based seats) says
    otherwise; `arrivals` face down per slot; `intercept` {slot: (card, seat)} (0-based);
    the city deck has `city_top` on top (or is exactly `city`, the other allies then lie
    among the fallen); unplaced allies are in the city deck and unplaced enemies in the
    enemy decks. The first seat with a choice is asked."""
    princes = {0: [card("prince", "medal")], 1: [card("prince", "hourglass")], 2: [card("prince", "coffin")]}
    princes.update(lines or {})
    zones = {"lines": {s + 1: list(c) for s, c in princes.items()}, "arrival": list(arrivals),
             "damage": list(damage), "ally_dead": list(ally_dead), "enemy_retreat": list(enemy_retreat),
             "interception": {k + 1: [seat + 1, c] for k, (c, seat) in (intercept or {}).items()}}
    decks = {"city": list(city if city is not None else city_top)}
    if enemy_decks is not None:
        decks["enemy_decks"] = [list(d) for d in enemy_decks]
    if city is not None:
        placed = {c for line in princes.values() for c in line} | set(damage) | set(city) | set(ally_dead) \
            | {c for c, _ in (intercept or {}).values()} | set(rules.mages)
        zones["ally_dead"] = list(ally_dead) + [c for c in rules.rank if rules.side[c] == "ally" and c not in placed]
    position = {"game": "requiem", "players": 3, "phase": "scout", "zones": zones, "decks": decks,
                "counters": {"turn": turn}}
    state = rules.from_position(position)
    state.check_invariants()
    return state


def act(state, *actions):
    for action in actions:
        state.apply(action)
        state.check_invariants()
        resolve_chance(state, CHANCE)


def skip_to(state, phase, seat=None):
    """Everyone answers "none" until `phase` (and `seat`, if given) is asked; chance nodes on the
    way (arrivals, damage) are drawn from a seeded source."""
    resolve_chance(state, CHANCE)
    while not state.is_terminal() and (state.phase != phase or (seat is not None and state.current_player() != seat)):
        state.apply(("none",))
        resolve_chance(state, CHANCE)
        state.check_invariants()
        resolve_chance(state, CHANCE)


# --- the source's worked numbers and claims -----------------------------------------------

@pytest.mark.parametrize("ally, enemy, outcome", [
    (9, 6, "win"),      # veterans beat bandits: 9 + 6 = 15
    (7, 6, "lose"),     # volunteers never win: 7 + 6 = 13
    (11, 2, "lose"),    # princes cannot beat berserkers: 11 + 2 = 13
    (13, 1, "mutual"),  # the King and the Slaughter King: 13 + 1 = 14
    (8, 6, "mutual"),
    (10, 5, "win"),
])
def test_combat_table(game, ally, enemy, outcome):
    assert R.combat_outcome(game, ally, enemy) == outcome


def test_claims_hold(game):
    results = R.claim_checks(game)
    assert len(results) == len(game.claims) == 5
    assert all(r.ok for r in results), results


def test_a_false_claim_fails(game):
    import dataclasses
    bad = dataclasses.replace(game, claims=({"id": "x", "kind": "combat", "ally_rank": 7, "enemy_rank": 6, "expect": "win"},))
    assert not R.claim_checks(bad)[0].ok


def test_ending_score_range_and_endings(game, rules):
    assert rules.score_range() == (-20, 20)
    volunteers = [c.id for c in game.cards_of("volunteer")]
    recruits = [c.id for c in game.cards_of("recruit")]
    assert rules.ending_score(volunteers + recruits, 0) == 7 * 2 + 6 * 1 == 20
    assert rules.ending_score([], 3) == -15 - 5 == -20
    assert rules.ending_score(volunteers[:1], 1) == 2 - 5
    assert rules.ending_score(recruits[:5], 1) == 0
    assert [R.ending_for(game, s)["id"] for s in (20, 1, 0, -1, -20)] == ["happy", "happy", "void", "bad", "bad"]


# --- setup --------------------------------------------------------------------------------

def test_setup(game, rules, card):
    chance = random.Random(3)
    state = resolve_chance(rules.new_initial_state(), chance)
    assert sorted(state.mage_area) == sorted(c.id for c in game.cards_of("mage"))
    assert [len(line) for line in state.lines] == [2, 2, 2]
    assert all(8 <= rules.rank[c] <= 10 for line in state.lines for c in line)
    assert [state.deck_size(k) for k in range(3)] == [7, 7, 7]
    assert len(state.city) == game.param("city_deck_cards") == 17
    assert rules.king in state.city and sum(rules.rank[c] == 7 for c in state.city) == 7
    assert state.current_player() == 0 and legal(state) == sorted(("prince", c) for c in rules.princes)
    act(state, ("prince", card("prince", "coffin")))
    assert state.current_player() == 1 and len(legal(state)) == 2
    act(state, ("prince", card("prince", "medal")), ("prince", card("prince", "hourglass")))
    resolve_chance(state, chance)
    assert card("prince", "coffin") in state.lines[0]
    # Turn 1, phase 1: one face-down arrival from each enemy deck.
    assert state.turn == 1 and all(state.arrival) and not state.revealed
    assert [state.deck_size(k) for k in range(3)] == [6, 6, 6]
    assert state.phase == R.SCOUT and state.current_player() == 0


def test_deck_order_stacks_every_shuffle(game, rules):
    order = [c.id for c in game.cards]
    state = resolve_chance(rules.new_initial_state(order), random.Random(0))
    pool = [c for c in order if c in rules.pool]
    assert state.lines[0] == [pool[0], pool[3]] and state.lines[1] == [pool[1], pool[4]]
    enemies = [c for c in order if c in rules.enemies]
    assert state.enemy_known[0][-1] == enemies[0] and state.enemy_known[1][-1] == enemies[7]
    city = [c for c in order if c in pool[6:] or c in rules.city_extra]
    assert state.city.cards() == city and state.city.choices() == 1   # a stacked city deck: top known


# --- the phases -----------------------------------------------------------------------------

def test_scouting_taps_a_card_and_reveals_an_arrival(rules, card):
    state = start(rules, card)
    tap = state.lines[0][0]
    act(state, ("scout", tap, 1))
    assert tap in state.tapped and state.arrival[1] in state.revealed
    assert state.acted[0]
    # Seat 1 has used its chosen action: it is not asked again this turn.
    skip_to(state, R.SORTIE)
    assert state.current_player() != 0


def test_win_stays_and_fights_the_next_arrival_of_its_deck(rules, card):
    elite = card("ally_elite", "banner")
    bandit, veteran = card("bandit", "sword"), card("enemy_veteran", "sword")
    state = arranged(rules, card, lines={0: [elite]}, arrivals=[bandit, None, None], enemy_decks=[[veteran], [], []])
    skip_to(state, R.SORTIE, 0)
    act(state, ("sortie", elite, 0))
    skip_to(state, R.RESCUE)
    assert bandit in state.enemy_dead and state.intercept[0] == elite and state.owner[0] == 0
    # Next turn the elite stays in front of deck 1 and fights its new arrival (the top of deck 1).
    skip_to(state, R.SCOUT)
    assert state.arrival[0] == veteran
    skip_to(state, R.RESCUE)
    assert veteran in state.enemy_dead and state.intercept[0] == elite   # 10 + 5 = 15


def test_mutual_and_loss(rules, card):
    recruit, volunteer = card("recruit", "skull"), card("volunteer", "sword")
    b1, b2 = card("bandit", "sword"), card("bandit", "skull")
    state = arranged(rules, card, lines={0: [recruit], 1: [volunteer]}, arrivals=[b1, b2, None])
    skip_to(state, R.SORTIE, 0)
    act(state, ("sortie", recruit, 0), ("sortie", volunteer, 1))
    assert recruit in state.ally_dead and b1 in state.enemy_dead                 # 8 + 6 = 14
    assert volunteer in state.ally_dead and b2 in state.enemy_retreat            # 7 + 6 = 13
    assert state.intercept == [None, None, None]


def test_cannot_sortie_where_an_ally_is_engaged_or_nothing_arrived(rules, card):
    elite, veteran = card("ally_elite", "banner"), card("ally_veteran", "shield")
    state = arranged(rules, card, lines={0: [elite], 1: [veteran]}, arrivals=[card("bandit", "sword"), card("bandit", "skull"), None])
    skip_to(state, R.SORTIE, 0)
    act(state, ("sortie", elite, 0))
    assert state.current_player() == 1
    assert sorted(a[2] for a in legal(state) if a[0] == "sortie") == [1]


def test_damage_flips_city_cards_for_each_unengaged_arrival(rules, card):
    top = [card("volunteer", "sword"), card("volunteer", "skull")]
    state = arranged(rules, card, arrivals=[card("bandit", "sword"), card("bandit", "skull"), None], city_top=top)
    before = len(state.city)
    skip_to(state, R.RESCUE)
    assert state.damage == top and len(state.city) == before - 2
    assert card("bandit", "sword") in state.enemy_retreat and state.arrival == [None, None, None]


def test_city_deck_empty_by_damage_loses(rules, card):
    # Exactly three cards in the city deck (the other allies have fallen): three arrivals empty it.
    city = [card("volunteer", "sword"), card("volunteer", "skull"), card("recruit", "skull")]
    state = arranged(rules, card, arrivals=[card("bandit", "sword"), card("bandit", "skull"), card("bandit", "shield")],
                     city=city)
    assert len(state.city) == 3
    skip_to(state, R.RESCUE)
    assert state.is_terminal()
    result = state.result()
    assert result.success is False and result.ending == "defeat:city-deck-empty" and result.winners == ()


def test_rescue_takes_the_top_city_card_and_can_empty_the_deck(rules, card):
    top, last = card("recruit", "skull"), card("volunteer", "sword")
    state = arranged(rules, card, arrivals=[None, None, None], city=[top, last])
    skip_to(state, R.RESCUE, 0)
    act(state, ("rescue",))
    assert top in state.lines[0] and top not in state.tapped
    assert len(state.city) == 1
    assert state.current_player() == 1
    act(state, ("rescue",))
    assert state.is_terminal() and state.result().ending == "defeat:city-deck-empty"


def test_temporary_retreat_is_free_and_rally_untaps(rules, card):
    elite, veteran = card("ally_elite", "banner"), card("ally_veteran", "shield")
    state = arranged(rules, card, lines={0: [veteran]}, arrivals=[card("berserker", "sword"), card("bandit", "skull"), None],
            intercept={0: (elite, 0)})
    act(state, ("scout", veteran, 0))                  # reveals the berserker: 10 + 2 = 12 would lose
    skip_to(state, R.RETREAT, 0)
    assert ("retreat", elite) in legal(state)
    act(state, ("retreat", elite))
    assert elite in state.lines[0] and elite in state.tapped and state.intercept[0] is None
    # Seat 1 already scouted this turn, so its return to the line comes next turn.
    skip_to(state, R.RALLY, 0)
    assert state.turn == 2
    act(state, ("rally",))
    assert not ({elite, veteran} & state.tapped)
    skip_to(state, R.SORTIE)
    assert state.current_player() != 0


def test_the_king_retreats_by_himself_and_can_sortie_again(rules, card):
    king = rules.king
    state = arranged(rules, card, lines={0: [king]}, arrivals=[card("bandit", "sword"), None, None])
    skip_to(state, R.SORTIE, 0)
    act(state, ("sortie", king, 0))
    skip_to(state, R.RESCUE)
    assert state.intercept[0] == king and card("bandit", "sword") in state.enemy_dead   # 13 + 6: win
    skip_to(state, R.RALLY)
    assert king in state.lines[0] and king in state.tapped and king not in state.intercept


def test_victory_when_the_king_meets_the_slaughter_king(rules, card):
    king, sk = rules.king, rules.slaughter_king
    volunteers = [card("volunteer", s) for s in ("sword", "skull")]
    state = arranged(rules, card, lines={0: [king, *volunteers]}, arrivals=[sk, None, None])
    skip_to(state, R.SORTIE, 0)
    act(state, ("sortie", king, 0))                    # the Slaughter King is still face down
    assert state.is_terminal()
    result = state.result()
    assert result.success is True and result.winners == (0, 1, 2) and not result.draw
    assert king in state.ally_dead and sk in state.enemy_dead
    expected = rules.ending_score([c for line in state.lines for c in line] + state.city.cards(), 0)
    assert result.scores == (expected,) * 3
    assert result.ending == R.ending_for(rules.game, expected)["id"]


def test_medal_prince_all_out_defence(rules, card):
    medal = card("prince", "medal")
    berserker, guard, bandit = card("berserker", "sword"), card("royal_guard", "sword"), card("bandit", "sword")
    city_before = None
    state = arranged(rules, card, lines={0: [medal]}, arrivals=[berserker, guard, bandit])
    city_before = len(state.city)
    skip_to(state, R.SORTIE, 0)
    assert ("sortie", medal, 1, "declare") in legal(state)
    act(state, ("sortie", medal, 1, "declare"))
    # Nobody can sortie any more this turn; combat runs after the sortie phase.
    assert state.phase == R.RESCUE
    assert berserker in state.enemy_retreat                         # 11 + 2 = 13: retreats
    assert guard in state.enemy_dead and bandit in state.enemy_dead  # 14 and 17: fall
    assert medal in state.ally_dead and len(state.city) == city_before   # no damage


def test_covenant_brings_the_mage_and_restores_the_city(rules, card):
    prince = card("prince", "hourglass")
    mage = card("mage", "hourglass")
    bandit = card("bandit", "sword")
    damaged = [card("volunteer", "sword"), rules.king]
    state = arranged(rules, card, lines={1: [prince]}, arrivals=[bandit, None, None], damage=damaged)
    city_before = len(state.city)
    skip_to(state, R.SORTIE, 1)
    act(state, ("sortie", prince, 0, "declare"))
    skip_to(state, R.RESCUE)
    assert bandit in state.enemy_dead                     # 11 + 6 = 17: he wins, and falls anyway
    assert prince in state.ally_dead and mage in state.lines[1] and mage not in state.mage_area
    assert not state.damage and len(state.city) == city_before + 2 and rules.king in state.city
    assert not state.is_terminal()


def test_king_in_damage_without_covenant_loses(rules, card):
    fallen = [card("prince", suit) for suit in ("hourglass", "coffin")]
    state = arranged(rules, card, lines={1: [], 2: []}, ally_dead=fallen,
                     arrivals=[card("bandit", "sword"), None, None], city_top=[rules.king])
    skip_to(state, R.RESCUE)
    assert state.is_terminal() and state.result().ending == "defeat:king-lost"


def test_king_in_damage_with_a_covenant_left_continues(rules, card):
    state = arranged(rules, card, arrivals=[card("bandit", "sword"), None, None], city_top=[rules.king])
    skip_to(state, R.RESCUE)
    assert rules.king in state.damage and not state.is_terminal()


def test_regroup_when_an_enemy_deck_is_empty(rules, card):
    enemies = sorted(rules.enemies)
    state = arranged(rules, card, enemy_decks=[enemies[0:7], enemies[7:14], []], enemy_retreat=enemies[14:])
    assert state.deck_size(2) == 0
    skip_to(state, R.RESCUE)
    skip_to(state, R.SCOUT)     # through rescue, regroup and the next arrival
    assert not state.is_terminal() and state.turn == 2
    assert not state.enemy_retreat               # everything was shuffled back into the decks
    sizes = [state.deck_size(k) + (1 if state.arrival[k] else 0) for k in range(3)]
    assert max(sizes) - min(sizes) <= 1
    assert sum(sizes) + len(state.enemy_dead) == 21


def test_one_chosen_action_per_turn(rules, card):
    state = arranged(rules, card, arrivals=[card("bandit", "sword"), None, None])
    act(state, ("scout", state.lines[0][0], 0))
    while not state.is_terminal() and state.turn == 1:
        if state.current_player() == 0:
            assert all(a[0] in ("none", "retreat") for a in legal(state))
        state.apply(("none",))
        resolve_chance(state, CHANCE)


# --- whole games --------------------------------------------------------------------------

def test_random_simulation(rules):
    for seed in range(200):
        random_game(rules, 500 + seed)


def test_sweep_passes(game):
    results = random_sim_sweep(game, games_per_count=10)
    assert [r.id for r in results] == ["random-sim-3p"] and results[0].ok, results


def test_seeded_determinism(rules):
    a, ra = random_game(rules, 4242)
    b, rb = random_game(rules, 4242)
    assert a.history == b.history and ra == rb


def test_greedy_team_sometimes_wins(rules):
    wins = 0
    for seed in range(60):
        bots = [R.GreedyPolicy(rules)] * 3
        state = play(rules.new_initial_state(), bots, random.Random(seed), random.Random(-seed))
        state.check_invariants()
        result = state.result()
        low, high = rules.score_range()
        assert low <= result.scores[0] <= high
        wins += bool(result.success)
    assert 0 < wins < 60


def test_setup_checks_still_hold(game):
    results = R.setup_checks(game)
    assert {r.id for r in results} >= {"setup-princes", "setup-initial-deal", "setup-city-deck", "setup-enemy-decks"}
    assert all(r.ok for r in results)
