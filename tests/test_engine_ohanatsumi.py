"""Going to Pick Flowers: rounds, restroom breaks, boss checks, next-round order, endings."""

from __future__ import annotations

import random

import pytest

from cardgen.engine import ohanatsumi as oh
from cardgen.engine.bots import make_policy
from cardgen.engine.harness import random_game
from cardgen.engine.simulate import play
from cardgen.load import load_game


@pytest.fixture(scope="module")
def game():
    return load_game("ohanatsumi")


def events_with(game, urge):
    return [c.id for c in game.cards if c.get("deck") == "event" and c.get("urge") == urge]


def flowers(game, kind):
    return [c.id for c in game.cards if c.get("flower") == kind]


def quest(game, type_id, limit):
    return next(c.id for c in game.cards_of(type_id) if c.get("urge_limit") == limit)


def stacked(game, quests=(), events=(), flower_cards=()):
    """Every card once, top first: the given quests, events and flowers first within their decks."""
    first = list(quests) + list(events) + list(flower_cards)
    return first + [c.id for c in game.cards if c.id not in first]


def hold_until(state, phase):
    """Answer 'hold' to every restroom question until the state reaches `phase`."""
    while state.phase == oh.DECLARE and phase != oh.DECLARE:
        state.apply("hold")
    assert state.phase == phase, state.phase


# ---- the worked example ----------------------------------------------------------------------

def test_next_round_order_worked_example():
    # A: success, no break, 3 opened; B: failed, 6; C: success + break, 2; D: failed, 2;
    # E: success + break, 3  ->  A, D, B, C, E (the source's example)
    A, B, C, D, E = range(5)
    status = {A: oh.SUCCESS_NO_BREAK, B: oh.FAILED, C: oh.SUCCESS_BREAK, D: oh.FAILED, E: oh.SUCCESS_BREAK}
    opened = {A: 3, B: 6, C: 2, D: 2, E: 3}
    groups = {oh.SUCCESS_NO_BREAK: 0, oh.FAILED: 1, oh.SUCCESS_BREAK: 2}
    order = oh.next_round_order([A, B, C, D, E], [status[p] for p in range(5)], [opened[p] for p in range(5)], groups)
    assert order == [A, D, B, C, E]


def test_worked_example_played_through_the_engine(game):
    """Five players play the source's example round; the engine reaches A, D, B, C, E."""
    rules = oh.Rules(game, 5)
    assert rules.group_rank == {oh.SUCCESS_NO_BREAK: 0, oh.FAILED: 1, oh.SUCCESS_BREAK: 2}
    qa = quest(game, "quest_egg", 8)        # A: 3 events, limit 8: 3 urge, success, no break
    qb = quest(game, "quest_escort", 8)     # B: 6 events, limit 8: 12 urge, accident
    qc = quest(game, "quest_herbs", 5)      # C: 2 events, limit 5: success, then a break
    qd = quest(game, "quest_herbs", 3)      # D: 2 events, limit 3: 4 urge, accident
    qe = quest(game, "quest_egg", 5)        # E: 3 events, limit 5: success, then a break
    ones, twos = events_with(game, 1), events_with(game, 2)
    ev = ones[0:3] + twos[0:6] + ones[3:5] + twos[6:8] + ones[6:9]
    s = rules.new_state(random.Random(0), stacked(game, [qa, qb, qc, qd, qe], ev))
    for seat, q in enumerate([qa, qb, qc, qd]):
        assert s.phase == oh.CHOOSE and s.current_player() == seat
        s.apply(f"take:{q}")
    assert s.quest[4] == rules.index[qe]    # the last quest goes to E without a choice
    # opening cards: decline every break on the road
    hold_until(s, oh.AFTER)
    assert [sum(o) for o in s.opened] == [3, 6, 2, 2, 3]
    assert s.urge == [[3], [12], [2], [4], [3]]
    # boss checks from the fewest opened cards: C (2), D (2), A (3), E (3), B (6)
    assert s.boss == [2, 3, 0, 4, 1]
    assert s.current_player() == 2
    s.apply("restroom")                     # C goes after her success
    assert s.current_player() == 0          # D failed without a question; A is next
    s.apply("skip")
    assert s.current_player() == 4
    s.apply("restroom")
    # B's accident ends the round; cleanup; the next round's order
    assert s.order == [0, 3, 1, 2, 4]       # A, D, B, C, E
    assert s.phase == oh.CHOOSE and s.current_player() == 0 and s.round == 2
    assert s.urge == [[3], [0], [0], [0], [0]]
    assert [len(d) for d in s.done] == [1, 0, 1, 0, 1]
    assert sorted(s.qdiscard) == sorted(rules.index[q] for q in (qb, qd))
    assert len(s.fdown) == 2                # the post-success flower cards, face down
    assert all(not row for rows in s.rows for row in rows)
    assert len(s.edeck) == len(rules.events)   # every event is back under the deck
    rest_top = next(c.id for c in game.cards if c.get("deck") == "event" and c.id not in ev)
    assert s.edeck[-1] == rules.index[rest_top]   # and the untouched rest is still on top
    assert set(s.edeck[:len(ev)]) == {rules.index[c] for c in ev}
    s.check_invariants()


# ---- road and boss ---------------------------------------------------------------------------

def test_restroom_resets_urge_and_elf_adds(game):
    rules = oh.Rules(game, 1)
    q = quest(game, "quest_escort", 11)               # 6 events
    twos = events_with(game, 2)
    s = rules.new_state(random.Random(0), stacked(game, [q], twos[:6], [flowers(game, "restroom")[0], flowers(game, "elf")[0]]))
    s.apply(f"take:{q}")
    assert s.phase == oh.DECLARE and s.urge == [[2]]
    assert s.legal_actions() == ["hold", "restroom"]
    s.apply("restroom")
    # next turn the restroom card opens (urge 0) with no question after a flower card
    # (decision restroom-timing); the turn after opens an event (+2) and asks again
    assert s.phase == oh.DECLARE and s.opened == [[3]] and s.urge == [[0 + 2]]
    s.apply("restroom")                               # this time an elf: +1, then the next event
    assert s.opened == [[5]] and s.urge == [[2 + 1 + 2]]
    assert s.rows[0][0][1] == rules.index[flowers(game, "restroom")[0]]
    hold_until(s, oh.AFTER)                           # 11 <= 11: success
    assert s.urge == [[11]] and s.breaks == [2]


def test_no_break_just_before_the_boss(game):
    rules = oh.Rules(game, 1)
    q = quest(game, "quest_herbs", 5)                 # 2 events
    s = rules.new_state(random.Random(0), stacked(game, [q], events_with(game, 1)[:2]))
    s.apply(f"take:{q}")
    assert s.phase == oh.DECLARE                      # after the first event: one event left
    s.apply("hold")
    # the second event is the last: no question, straight to the boss (success: urge 2 <= 5)
    assert s.phase == oh.AFTER and s.opened == [[2]] and s.urge == [[2]]


def test_boss_limit_is_at_most(game):
    rules = oh.Rules(game, 2)
    ok = quest(game, "quest_egg", 6)
    bad = quest(game, "quest_egg", 5)
    s = rules.new_state(random.Random(0), stacked(game, [ok, bad], events_with(game, 2)[:6]))
    s.apply(f"take:{ok}")                             # seat 0; seat 1 gets the last quest automatically
    hold_until(s, oh.AFTER)
    assert s.urge == [[6], [6]]
    # seat 0: 6 <= 6 succeeds; seat 1: 6 > 5 is an accident
    assert s.current_player() == 0
    s.apply("skip")
    assert s.round == 2
    assert [len(d) for d in s.done] == [1, 0]
    assert s.urge == [[6], [0]]
    assert s.accidents == [0, 1]
    assert s.order == [0, 1]


def test_flower_deck_empty_means_no_breaks(game):
    rules = oh.Rules(game, 1)
    s = rules.new_state(random.Random(0))
    s.fdiscard.extend(s.fdeck)
    s.fdeck.clear()
    s.apply(s.legal_actions()[0])
    while not s.is_terminal():
        assert s.phase == oh.CHOOSE, s.phase           # never a restroom question
        s.apply(s.legal_actions()[0])
    s.check_invariants()


# ---- solo ------------------------------------------------------------------------------------

def test_solo_two_on_offer_and_one_after_a_break(game):
    rules = oh.Rules(game, 1)
    q1, q2 = quest(game, "quest_herbs", 5), quest(game, "quest_egg", 5)
    q3 = quest(game, "quest_goblins", 8)
    s = rules.new_state(random.Random(0), stacked(game, [q1, q2, q3], events_with(game, 1)[:10]))
    assert s.legal_actions() == sorted([f"take:{q1}", f"take:{q2}"])
    s.apply(f"take:{q1}")
    assert rules.index[q2] in s.qdiscard              # the other quest, discarded face up
    hold_until(s, oh.AFTER)
    s.apply("restroom")
    # next round: only one quest, taken without a choice
    assert s.round == 2 and s.quest[0] == rules.index[q3]
    assert s.phase == oh.DECLARE
    s.check_invariants()


def test_final_round_some_players_sit_out_and_no_cleanup(game):
    rules = oh.Rules(game, 3)                         # 20 quests: six rounds of 3, then 2 left
    s = rules.new_state(random.Random(4))
    policy = make_policy(oh, "first", rules)
    while not s.is_terminal():
        if s.round == 7 and s.phase == oh.CHOOSE:
            assert len(s.offer) == 2 and s.final
        s.apply(policy.choose(s, random.Random(0)))
    assert s.round == 7
    # the final round's rows were not cleaned up; exactly one seat had no quest
    with_rows = [p for p in range(3) if s.rows[p][0]]
    assert len(with_rows) == 2
    s.check_invariants()


def test_end_tiebreaks(game):
    rules = oh.Rules(game, 3)
    s = rules.new_state(random.Random(0))
    s.phase = oh.OVER
    f = {q: rules.back_fame[q] for q in rules.quests}
    by_fame = sorted(rules.quests, key=lambda q: f[q])
    # seat 0: 6 fame in two quests; seat 1: 6 fame in one quest; seat 2: 6 in one, done in the last round
    two = next((a, b) for a in by_fame for b in by_fame if a < b and f[a] + f[b] == 6)
    one = [q for q in by_fame if f[q] == 6 and q not in two]
    s.done = [list(two), [one[0]], [one[1]]]
    s.status = [None, None, oh.SUCCESS_NO_BREAK]
    s.last_fame = [0, 0, 6]
    res = s.result()
    assert res.scores == (6, 6, 6) and res.winners == (2,)          # final-round fame
    s.status = [None, None, None]
    assert s.result().winners == (1, 2)                              # then fewer quests; then a tie


# ---- two characters --------------------------------------------------------------------------

class Dice:
    def __init__(self, rolls, rng):
        self.rolls, self.rng = list(rolls), rng

    def randrange(self, n):
        return self.rolls.pop(0) - 1

    def shuffle(self, x):
        self.rng.shuffle(x)


def test_two_character_persuasion_and_either_accident(game):
    rules = oh.Rules(game, 1, "two_character")
    assert rules.characters == ("swordswoman", "mage")
    q = quest(game, "quest_egg", 5)
    rest = flowers(game, "restroom")
    s = rules.new_state(random.Random(0), stacked(game, [q], events_with(game, 1)[:3] + events_with(game, 3)[:3], rest))
    s.apply(f"take:{q}")
    assert len(s.rows[0][0]) == 3 and len(s.rows[0][1]) == 3
    assert s.urge == [[1, 3]]                         # both rows open a card each turn
    assert s.legal_actions() == sorted(["hold", "restroom:both", "restroom:mage", "restroom:swordswoman"])
    s.rng = Dice([3, 2], s.rng)                       # the first persuasion fails, the second works
    s.apply("restroom:swordswoman")
    assert s.rows[0][0][1] in rules.events            # nothing slipped in
    assert s.urge == [[2, 6]]
    s.apply("restroom:both")                          # mage goes; swordswoman persuaded on a 2
    assert len(s.rows[0][0]) == 4 and len(s.rows[0][1]) == 4
    # both restroom cards open next turn (urge 0), then the last events: 1 and 3, both <= 5
    assert s.phase == oh.AFTER and s.urge == [[1, 3]]
    s.apply("skip")
    assert len(s.done[0]) == 1
    # either accident fails the quest; only the one who had it drops to 0 (decision)
    herbs = quest(game, "quest_herbs", 3)
    s2 = rules.new_state(random.Random(0), stacked(game, [herbs], events_with(game, 1)[:1] + events_with(game, 2)[:1] + events_with(game, 3)[:2]))
    s2.apply(f"take:{herbs}")
    hold_until(s2, oh.CHOOSE)                         # failed: no question, next round
    assert s2.accidents == [1] and s2.urge == [[3, 0]] and s2.done == [[]]


# ---- setup checks, simulation, determinism, policies -----------------------------------------

def test_setup_checks_report_supported_players(game):
    results = {r.id: r for r in oh.setup_checks(game)}
    assert all(r.ok for r in results.values()), [r for r in results.values() if not r.ok]
    for p in game.player_counts:
        assert f"event-deck-{p}p" in results
    assert "event-deck-1p-two_character" in results
    events = sum(1 for c in game.cards if c.get("deck") == "event")
    most = max(c.get("events") for c in game.cards if c.get("deck") == "quest")
    sets = game.param("two_character_variant")["event_sets"]
    assert f"supports up to {events // most} player" in results["event-deck-max-players-standard"].message
    assert f"supports up to {events // (most * sets)} player" in results["event-deck-max-players-two_character"].message
    assert "16" in results["event-deck-max-players-standard"].message      # 100 events // 6 (the data's decision players-max)


@pytest.mark.parametrize("players,variant", [(p, "standard") for p in range(1, 6)] + [(1, "two_character")])
def test_random_simulation(game, players, variant):
    rules = oh.Rules(game, players, variant)
    lo, hi = rules.score_range()
    for seed in range(120):
        state, res = random_game(rules, seed)           # invariants after every action
        assert state.is_terminal() and state.legal_actions() == []
        assert all(lo <= x <= hi for x in res.scores) and res.winners
        assert res.length <= rules.max_actions


def test_two_character_is_solo_only(game):
    with pytest.raises(ValueError):
        oh.Rules(game, 2, "two_character")
    assert oh.Rules.supports(1, "two_character", game) and not oh.Rules.supports(3, "two_character", game)




def test_lightest_always_takes_the_fewest_events(game):
    rules = oh.Rules(game, 3)
    policy = make_policy(oh, "lightest", rules)
    prng = random.Random(0)
    for seed in range(20):
        s = rules.new_state(random.Random(seed))
        while not s.is_terminal():
            action = policy.choose(s, prng)
            if s.phase == oh.CHOOSE:
                fewest = min(rules.events_of[q] for q in s.offer)
                assert rules.events_of[rules.index[action[5:]]] == fewest
            s.apply(action)


def test_policies_beat_random_in_solo(game):
    rules = oh.Rules(game, 1)
    mean = {}
    for name in ("random", "balanced"):
        policy = make_policy(oh, name, rules)
        mean[name] = sum(play(rules, [policy], seed).result().scores[0] for seed in range(200)) / 200
    assert mean["balanced"] > mean["random"], mean
