"""Crazy Eights for cardgen, written on the public engine API (`cardgen.engine.api`) only.

The rules (after Hoyle): each player is dealt a hand (`hand_size` in game.yaml: 7 cards with two
players, 5 with more); the next card of the stock is turned up to start the discard pile. In
turn, a player plays a card of the suit to follow or of the rank on top of the pile; an eight
is wild and its player names the suit to follow. Instead of playing, a player may take one
card from the stock, then play or pass; with the stock empty, a player who cannot or will not
play passes. The first to empty their hand wins; if the stock is empty and every player passes
in a row, the game is blocked and the lowest count of penalty points in hand wins. A winner
scores what each other player's hand is worth more than theirs (the card field `points`:
eights 50, court cards 10, aces 1, the others their rank).

Moves, written ``kind:arg`` in records: ``play:<card>`` (an eight: ``play:<card>:<suit>``),
``take``, ``pass``; chance: ``draw:<card>`` (seen only by the player whose hand it joins, by
everyone when it starts the discard pile).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, Sequence

from cardgen.engine.api import (Action, CheckResult, Dict, Game, GameResult, Int, Map, Observation, Rules,
                                ScoringTable, TableState, TurnOrder, Visibility, winners)

SUITS = ("clubs", "diamonds", "hearts", "spades")
EIGHT = 8


class Move(Action):
    """A Crazy Eights move: play:<card>[:<suit>], take, pass; chance: draw:<card>."""

    __slots__ = ()
    TEXT_KINDS = frozenset({"draw", "play"})


TAKE = Move("take")
PASS = Move("pass")


class State(TableState):
    """A hand of Crazy Eights: a face-down stock, one hidden hand per seat, a face-up discard pile."""

    rules: "CrazyEights"

    def __init__(self, rules: "CrazyEights") -> None:
        super().__init__(rules)
        self.table.pile("stock", rules.card_ids)
        self.hands = self.table.hands(rules.players)
        self.discard = self.table.add("discard", Visibility.PUBLIC)
        self.turn = TurnOrder(rules.players)
        self.suit: str | None = None   # the suit to follow: the top card's, or the one an eight named
        self.took = False              # the player to act has taken a card this turn
        self.passes = 0                # passes in a row since the stock ran out
        for hand in self.hands:
            self.draw("stock", hand, rules.hand_size)
        self.draw("stock", "discard")  # the starter, face up

    @property
    def stock_left(self) -> int:
        return len(self.table["stock"])

    def after_draws(self) -> None:
        if self.suit is None:          # the starter is up (an eight as starter: its own suit)
            self.suit = self.rules.suit[self.discard.top()]
        self.ask_turn()

    def ask_turn(self) -> None:
        seat = self.turn.seat
        options = self.playable(seat)
        if not self.took and self.stock_left:
            options.append(TAKE)
        else:
            options.append(PASS)
        self.ask(seat, options)

    def playable(self, seat: int) -> list[Move]:
        """The plays open to `seat`: any eight (naming each suit), else a card of the suit to
        follow or of the top card's rank."""
        rules = self.rules
        top_rank = rules.rank[self.discard.top()]
        out: list[Move] = []
        for card in set(self.hands[seat]):
            if rules.rank[card] == EIGHT:
                out.extend(Move("play", (card, suit)) for suit in SUITS)
            elif rules.suit[card] == self.suit or rules.rank[card] == top_rank:
                out.append(Move("play", (card,)))
        return out

    def play(self, move: Action) -> None:
        seat = self.turn.seat
        if move.kind == "take":
            self.took = True
            self.passes = 0
            return self.draw("stock", self.hands[seat])   # then ask_turn again, after the draw
        self.took = False
        if move.kind == "pass":
            self.passes += 1
            if not self.stock_left and self.passes >= self.rules.players:
                return self.end()      # blocked: nobody can or will play
        else:
            card = move.args[0]
            self.table.move(card, self.hands[seat], self.discard)
            self.suit = move.args[1] if len(move.args) > 1 else self.rules.suit[card]
            self.passes = 0
            if not len(self.hands[seat]):
                return self.end()
        self.turn.advance()
        self.ask_turn()

    def public_facts(self) -> dict[str, Any]:
        return {"suit": self.suit, "took": self.took, "passes": self.passes}

    def hand_points(self) -> list[int]:
        return [self.rules.points.score(hand) for hand in self.hands]

    def result(self) -> GameResult:
        points = self.hand_points()
        best = winners(points, lowest_wins=True)
        scores = tuple(sum(max(0, other - mine) for other in points) if seat in best else 0
                       for seat, mine in enumerate(points))
        went_out = any(not len(hand) for hand in self.hands)
        return GameResult(scores, best, len(self.history), ending="out" if went_out else "blocked",
                          details={"hand_points": points}, decisions=self.decisions())

    def decisions(self) -> int:
        chance = sum(1 for move in self.history if move.kind == "draw")
        return len(self.history) - chance


class CrazyEights(Rules):
    """Crazy Eights for 2 to 5 players (the game folder says which counts it offers)."""

    engine_id = "crazy-eights"
    action_type = Move
    max_actions = 2_000          # every take empties the stock and every play a hand: far less
    PARAMETERS = Map({"hand_size": Dict(Int(2, 5), Int(1, 20), max_items=4)})

    def __init__(self, game: Game, players: int, variant: str = "standard") -> None:
        super().__init__(game, players, variant)
        sizes = game.param("hand_size")
        if players not in sizes:
            raise ValueError(f"{game.where('hand_size')}: crazy-eights: hand_size gives no hand for {players} "
                             f"players; add `{players}: <cards>`")
        self.hand_size: int = sizes[players]
        self.card_ids = sorted(card.id for card in game.cards)
        self.rank = {card.id: card.get("rank") for card in game.cards}
        self.suit = {card.id: card.get("suit") for card in game.cards}
        self.points = ScoringTable.from_field(game, "points")
        if players * self.hand_size + 1 > len(self.card_ids):
            raise ValueError(f"{game.where('hand_size')}: crazy-eights: {players} hands of {self.hand_size} and a "
                             f"starter need {players * self.hand_size + 1} cards, the deck has {len(self.card_ids)}")

    def new_initial_state(self, deck_order: Sequence[str] | None = None) -> State:
        if deck_order is not None:
            raise ValueError("crazy-eights deals from a shuffled deck; give a seed, not a deck order")
        return State(self)

    def score_range(self) -> tuple[int, int]:
        return (0, (self.players - 1) * self.points.worst(len(self.card_ids)))

    def action_kinds(self) -> dict[str, tuple[Sequence[Any], ...]]:
        return {"play": (self.card_ids, (None, *SUITS)), "take": (), "pass": (), "draw": (self.card_ids,)}


class Shedder:
    """Sheds its costliest playable card, keeps eights for when nothing else fits and then names
    the suit it holds most of; takes a card when it cannot play, and passes after that."""

    name = "shedder"

    def __init__(self, rules: CrazyEights) -> None:
        self.rules = rules

    def choose(self, observation: Observation | None, legal: Sequence[Action], rng: random.Random) -> Action:
        rules = self.rules
        plays = [move for move in legal if move.kind == "play"]
        plain = [move for move in plays if len(move.args) == 1]
        if plain:
            return max(plain, key=lambda move: (rules.points[move.args[0]], move))
        if plays:
            assert observation is not None
            hand = [card for zone in observation.private["zones"].values() for card in zone]
            held = Counter(rules.suit[card] for card in hand if rules.rank[card] != EIGHT)
            return max(plays, key=lambda move: (held[move.args[1]], move))
        return legal[0]                # take, or pass when taking is done


def setup_checks(game: Game) -> list[CheckResult]:
    """Every player count game.yaml offers has a hand size, and the deck deals it with a starter."""
    sizes = game.param("hand_size")
    out = []
    for players in game.player_counts:
        size = sizes.get(players)
        ok = size is not None and players * size + 1 <= len(game.cards)
        message = (f"{players} players: hand_size gives no hand size" if size is None else
                   f"{players} players × {size} cards + 1 starter = {players * size + 1} of {len(game.cards)} cards")
        out.append(CheckResult(f"crazy-eights-deal-{players}p", ok, message, game.where("hand_size")))
    return out


CrazyEights.POLICIES = {"shedder": Shedder}
CrazyEights.setup_checks = staticmethod(setup_checks)
__all__ = ["CrazyEights", "State", "Move", "Shedder", "setup_checks"]
