"""A small trick-taking engine on the public API, and copies of it with one bug seeded each:
what tests/test_testing_kit.py runs the kit on.

Each player is dealt 3 cards of tests/fixtures/kitgame (hidden hands); in turn each plays one
face up, the highest power takes the trick (the first played wins a tie) and leads the next;
after three tricks, most tricks wins.
"""

from __future__ import annotations

from pathlib import Path

from cardgen.engine.api import Action, GameResult, Rules, ScoringTable, TableState, TurnOrder, Visibility, winners
from cardgen.testing import load_game

GAME_FOLDER = Path(__file__).parent / "fixtures" / "kitgame"
HAND = 3


class Act(Action):
    __slots__ = ()
    TEXT_KINDS = frozenset({"draw", "play"})


class TrickState(TableState):
    def __init__(self, rules: "TrickRules") -> None:
        super().__init__(rules)
        self.table.pile("stock", rules.card_ids)
        self.hands = self.table.hands(rules.players)
        self.trick = self.table.add("trick", Visibility.PUBLIC)
        self.won = self.table.add("won", Visibility.PUBLIC)
        self.played_by: list[int] = []
        self.tricks = [0] * rules.players
        self.turn = TurnOrder(rules.players)
        for hand in self.hands:
            self.draw("stock", hand, HAND)

    def after_draws(self) -> None:
        self.ask_next()

    def ask_next(self) -> None:
        seat = self.turn.seat
        self.ask(seat, [Act("play", (card,)) for card in self.hands[seat]])

    def play(self, action: Action) -> None:
        seat = self.turn.seat
        self.table.move(action.arg, self.hands[seat], self.trick)
        self.played_by.append(seat)
        if len(self.trick) < self.rules.players:
            self.turn.advance()
            return self.ask_next()
        power = self.rules.power
        best = max(range(len(self.trick)), key=lambda i: (power[self.trick.cards[i]], -i))
        winner = self.played_by[best]
        self.tricks[winner] += 1
        for card in list(self.trick):
            self.table.move(card, self.trick, self.won)
        self.played_by = []
        self.turn.seat = winner
        if not len(self.hands[winner]):
            return self.end()
        self.ask_next()

    def public_facts(self) -> dict:
        return {"tricks": list(self.tricks)}

    def result(self) -> GameResult:
        scores = tuple(self.tricks)
        return GameResult(scores, winners(scores), len(self.history))


class TrickRules(Rules):
    engine_id = "kitgame"
    max_actions = 200
    action_type = Act
    state_class: type[TrickState] = TrickState

    def __init__(self, game, players: int, variant: str = "standard") -> None:
        super().__init__(game, players, variant)
        self.power = ScoringTable.from_field(game, "power")
        self.card_ids = sorted(card.id for card in game.cards)

    def new_initial_state(self, deck_order=None) -> TrickState:
        return self.state_class(self)

    def score_range(self) -> tuple[int, int]:
        return (0, HAND)

    def action_kinds(self):
        return {"play": (self.card_ids,), "draw": (self.card_ids,)}


# --- one bug each -------------------------------------------------------------------------------

class LeakedHand(TrickState):
    """Shows every hand to everyone (a view written by hand that forgot to mask)."""

    def public_facts(self) -> dict:
        return {**super().public_facts(), "hands": [hand.listed() for hand in self.hands]}


class LateLeak(TrickState):
    """Shows the hand of whoever took the last trick: no leak right after the deal, one later."""

    def public_facts(self) -> dict:
        shown = {} if not any(self.tricks) else {"leader": self.hands[self.turn.seat].listed()}
        return {**super().public_facts(), **shown}


class LostCard(TrickState):
    """Drops a card each time a trick is taken."""

    def play(self, action: Action) -> None:
        super().play(action)
        if len(self.won) and not len(self.trick):
            self.won.cards.pop()


class SharedClone(TrickState):
    """A clone that shares the trick counts with its original."""

    def clone(self) -> "SharedClone":
        new = super().clone()
        new.tricks = self.tricks
        return new


class NinetyPercent(TrickState):
    """Chance probabilities that sum to 0.9."""

    def chance_outcomes(self):
        return [(action, p * 0.9) for action, p in super().chance_outcomes()]


class Endless(TrickState):
    """Never ends: when the hands are empty the cards are shuffled back and dealt again."""

    def end(self) -> None:
        self.table["stock"].cards.shuffle_in(list(self.won))
        self.won.cards.clear()
        self.tricks = [0] * self.rules.players
        for hand in self.hands:
            self.draw("stock", hand, HAND)


BUGS = {"leaked hand": LeakedHand, "late leak": LateLeak, "lost card": LostCard, "shared clone": SharedClone,
        "probabilities 0.9": NinetyPercent, "never ends": Endless}


def make_rules(players: int = 3, state_class: type[TrickState] = TrickState):
    """A factory of fresh Rules for the kit (with `state_class` for the seeded bugs)."""
    game = load_game(str(GAME_FOLDER))

    def make() -> TrickRules:
        rules = TrickRules(game, players)
        rules.state_class = state_class
        return rules

    return make
