"""Going to Pick Flowers (お花摘み): guild quests, an urge meter and restroom breaks.

Every number comes from card_data/ohanatsumi (game.yaml `parameters`, card fields); the source
is ../shared/seeds/004_270f4261f398bbca.txt and every reading of it is a `decisions:` entry.

A round: reveal quests (as many as players; solo 2, or 1 after a restroom break following a
success); players choose in turn order and draw the quest's event count of face-down event
cards. Adventure: in order, each player opens their leftmost unopened card and takes its urge;
after opening an event card, if another event is still unopened, they may declare a restroom
break (a flower card is slipped in before the next event). When every card is open, boss
checks run from the fewest opened cards: urge at or under the back's limit succeeds and scores
the back's fame (then an optional restroom break: urge 0, a face-down flower card); over the
limit is an accident (quest discarded, urge 0). Next round's order: successes without a break,
failures, successes with a break; within a group, fewer opened cards first. The round whose
reveal empties the quest deck is the last, with no cleanup.

The two-character variant (solo) runs two rows of events, one per character, with their own
urge; the free character goes whenever she likes, the stubborn one only on a persuasion roll.

Actions are strings: ``take:1`` (choose the quest in offer slot 1, 0-based), ``hold`` / ``restroom`` (declaring a break
after opening an event; two characters: ``restroom:<character>`` or ``restroom:both``),
``skip`` / ``restroom`` after a success (same character forms). Steps with one possibility
(a single quest left, opening cards) happen automatically and are not actions.

Hidden information: quest backs (until the boss check), the event and flower decks, and the
face-down flower cards after successes. Policies read only quest fronts, urges, counts of
opened and unopened cards, face-up discards and backs already revealed, and the public
composition from the card list.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, Callable, Mapping, Sequence

from ..io import limits
from ..io.schema import Bool, Int, List, Map, OneOf, Str
from ..model import CheckResult, Game
from . import core
from .core import GameResult, InvariantError
from .position import PositionBuilder, PositionError, checked_state, position_deck

CHOOSE = "choose"
DECLARE = "declare"
AFTER = "after"
OVER = core.OVER



class Act(core.Action):
    """An ohanatsumi move: take:<slot> (the quest in that offer slot, 0-based: a player sees a
    quest's front, never which physical card it is), hold, restroom[:<character>|:both], skip;
    chance: draw:<card> (a quest revealed, an event or flower card dealt face down),
    roll:<face>; automatic: auto-take:<seat>:<slot>."""

    __slots__ = ()
    TEXT_KINDS = frozenset({"draw", "restroom"})


def A(kind: str, *args) -> Act:
    return Act(kind, args)


HOLD_A, SKIP_A, RESTROOM_A = A("hold"), A("skip"), A("restroom")
_DECK_NAME = {"offer": "qdeck", "event": "edeck"}     # other draw steps take from the flower deck

SUCCESS_NO_BREAK = "success_no_restroom"
FAILED = "failed"
SUCCESS_BREAK = "success_restroom"

_URGE = Int(0, 20)
# Every rule parameter this module (and the rulebook and sheets) reads. String settings list
# only what the engine implements; the loader refuses anything else at its line. What a range
# cannot say (event_urge min above max, a free character who is not a character) is
# `parameter_problems`: a failing setup check with the parameter's location.
PARAMETERS = Map({
    "starting_urge": _URGE,
    "event_urge": Map({"min": _URGE, "max": _URGE}),
    "restroom_sets_urge_to": _URGE,
    "elf_urge_default": _URGE,
    "success_if_urge_at_most_limit": Bool(),
    "fail_sets_urge_to": _URGE,
    "after_success_restroom_sets_urge_to": _URGE,
    "urge_carries_over": Bool(),
    "score_from": Str(("back_fame", "fame")),
    "quests_on_offer": Map({"multiplayer": OneOf((Str(("players",)), Int(1, limits.MAX_PLAYERS))),
                            "solo": Int(1, limits.MAX_PLAYERS)}),
    "solo_reveal_after_restroom": Int(1, limits.MAX_PLAYERS),
    "restroom_requires_event_remaining": Bool(),
    "max_flowers_between_events": Int(0, 20),
    "flower_deck_reshuffle": Bool(),
    "event_cleanup": Str(("shuffle_used_under_deck",)),
    "boss_order": Str(("fewer_opened_first",)),
    "next_round_order": Map({
        "groups": List(Str((SUCCESS_NO_BREAK, FAILED, SUCCESS_BREAK)), 1, 3),
        "within_group": Str(("fewer_opened_first",)),
        "ties": Str(("current_turn_order",)),
    }),
    "first_round_order": Str(("most_urgent_player_first",)),
    "final_round": Str(("quest_deck_emptied_by_offer",)),
    "final_round_cleanup": Bool(),
    "end_tiebreak": List(Str(("total_fame", "final_round_fame", "fewer_quests_completed", "tie")), 1, 4),
    "two_character_variant": Map({
        "players": Int(1, 1),
        "characters": List(Str(), 2, 4),
        "event_sets": Int(1, 4),
        "free_character": Str(),
        "stubborn_character": Str(),
        "persuade_die": Int(2, 100),
        "persuade_success_max": Int(0, 100),
        "fail_if_either_has_accident": Bool(),
    }),
})


def parameter_problems(game: Game) -> list[tuple[str, str]]:
    """(parameter, what is wrong) for what the declared ranges cannot say; empty when consistent."""
    p = game.param
    out: list[tuple[str, str]] = []
    urge = p("event_urge")
    if urge["min"] > urge["max"]:
        out.append(("event_urge", f"event_urge.min {urge['min']} is above event_urge.max {urge['max']}"))
    if p("flower_deck_reshuffle"):
        out.append(("flower_deck_reshuffle", "flower_deck_reshuffle: true is not implemented (the source does not rebuild "
                                             "the flower deck); set it to false"))
    groups = p("next_round_order")["groups"]
    if len(set(groups)) != len(groups):
        out.append(("next_round_order", f"next_round_order.groups {groups} names a group twice; name each once"))
    two = p("two_character_variant")
    chars = two["characters"]
    if len(set(chars)) != len(chars):
        out.append(("two_character_variant", f"two_character_variant.characters {chars} names a character twice"))
    if len(chars) != two["event_sets"]:
        out.append(("two_character_variant", f"two_character_variant: {len(chars)} characters but event_sets is "
                                             f"{two['event_sets']}; each character has one row of events"))
    for key in ("free_character", "stubborn_character"):
        if two[key] not in chars:
            out.append(("two_character_variant", f"two_character_variant.{key} '{two[key]}' is not one of the characters ({', '.join(chars)})"))
    if two["persuade_success_max"] > two["persuade_die"]:
        out.append(("two_character_variant", f"two_character_variant.persuade_success_max {two['persuade_success_max']} "
                                             f"is above the die's {two['persuade_die']} faces"))
    decks = Counter(c.get("deck") for c in game.cards)
    for deck in ("quest", "event", "flower"):
        if not decks[deck]:
            out.append(("cards.yaml", f"the game has no {deck} cards; the rules need a quest, an event and a flower deck"))
    return out


def next_round_order(order: Sequence[int], status: Sequence[str | None], opened: Sequence[int],
                     group_rank: Mapping[str, int]) -> list[int]:
    """The source's next-round order: by group (success without a break, failure, success
    with a break, as ranked by `group_rank`), then fewer opened cards, then this round's order."""
    pos = {p: i for i, p in enumerate(order)}
    last = len(group_rank)
    return sorted(order, key=lambda p: (group_rank.get(status[p], last), opened[p], pos[p]))


class Rules(core.Rules):
    """Going to Pick Flowers for 1–5 players; "two_character" is the solo two-character variant."""

    engine_id = "ohanatsumi"
    PARAMETERS = PARAMETERS
    player_counts = (1, 2, 3, 4, 5)
    variants = ("standard", "two_character")
    max_actions = 20_000
    action_type = Act
    cooperative = False       # solo is a score attack: fame is the score, no success/failure

    @classmethod
    def game_variants(cls, game: Game | None) -> dict[str, tuple[int, ...]]:
        """standard: every player count of game.yaml; two_character: the player count its
        parameters give (the solo variant)."""
        if game is None:
            return {v: () for v in cls.variants}
        return {"standard": tuple(game.player_counts),
                "two_character": (game.param("two_character_variant")["players"],)}

    def __init__(self, game: Game, players: int, variant: str = "standard") -> None:
        super().__init__(game, players, variant)
        problems = parameter_problems(game)
        if problems:
            name, message = problems[0]
            raise ValueError(f"{game.where(name) or game.where('game.yaml')}: {message}")
        p = game.param
        two = p("two_character_variant")
        if variant == "two_character" and players != two["players"]:
            raise ValueError(f"ohanatsumi: the two-character variant is for {two['players']} player(s), not {players}")
        self.start_urge: int = p("starting_urge")
        self.restroom_to: int = p("restroom_sets_urge_to")
        self.elf_default: int = p("elf_urge_default")
        self.fail_to: int = p("fail_sets_urge_to")
        self.after_success_to: int = p("after_success_restroom_sets_urge_to")
        self.at_most: bool = bool(p("success_if_urge_at_most_limit"))
        self.carry: bool = bool(p("urge_carries_over"))
        offer = p("quests_on_offer")
        self.offer_solo: int = offer["solo"]
        self.offer_multi = offer["multiplayer"]
        self.solo_after_break: int = p("solo_reveal_after_restroom")
        self.need_event_left: bool = bool(p("restroom_requires_event_remaining"))
        self.max_flowers_between: int = p("max_flowers_between_events")
        # flower_deck_reshuffle is refused by parameter_problems; event_cleanup has one value in
        # PARAMETERS: used events are shuffled back under the event deck.
        self.final_cleanup: bool = bool(p("final_round_cleanup"))
        groups = p("next_round_order")["groups"]
        self.group_rank = {name: i for i, name in enumerate(groups)}
        self.score_from: str = p("score_from")
        if variant == "two_character":
            self.characters: tuple[str, ...] = tuple(two["characters"])
            self.sets: int = two["event_sets"]
            self.free_character: str = two["free_character"]
            self.stubborn_character: str = two["stubborn_character"]
            self.die: int = two["persuade_die"]
            self.persuade_max: int = two["persuade_success_max"]
            self.either_accident_fails: bool = bool(two["fail_if_either_has_accident"])
        else:
            self.characters = ("adventurer",)
            self.sets = 1
            self.free_character = "adventurer"
            self.stubborn_character = ""
            self.die = 0
            self.persuade_max = 0
            self.either_accident_fails = True
        if len(self.characters) != self.sets:
            raise ValueError("ohanatsumi: one row of events per character")
        self.stubborn: list[bool] = [c == self.stubborn_character for c in self.characters]
        # decision restroom-timing: in the two-character variant the free character may go at
        # any time (also right after a flower card), while an event remains
        self.free_any_time: list[bool] = [variant == "two_character" and c == self.free_character for c in self.characters]
        # per-card arrays
        cards = game.cards
        self.ids: list[str] = [c.id for c in cards]
        self.index: dict[str, int] = {c.id: i for i, c in enumerate(cards)}
        self.deck_of: list[str] = [c.get("deck") for c in cards]
        self.type_of: list[str] = [c.type_id for c in cards]
        self.events_of: list[int] = [c.get("events") or 0 for c in cards]
        self.front_fame: list[int] = [c.get("fame") or 0 for c in cards]
        self.limit: list[int] = [c.get("urge_limit") if c.get("urge_limit") is not None else -1 for c in cards]
        self.back_fame: list[int] = [c.get(self.score_from) or 0 for c in cards]
        self.is_event: list[bool] = [d == "event" for d in self.deck_of]
        self.draw_act: list[Act] = [A("draw", cid) for cid in self.ids]
        # a quest is dealt front up: a seat that does not see its back still sees its kind
        self.front_label: dict[str, str] = {c.id: f"draw:?{c.type_id}" for c in cards if c.get("deck") == "quest"}
        self.roll_act: list[Act] = [A("roll", k) for k in range(1, max(self.die, 1) + 1)]
        self.is_restroom: list[bool] = [c.get("flower") == "restroom" for c in cards]
        # urge a card adds when opened (events, elves); restrooms set it instead
        self.urge_add: list[int] = [
            (c.get("urge") if c.get("urge") is not None else (self.elf_default if c.get("flower") == "elf" else 0))
            for c in cards
        ]
        self.quests = [i for i, d in enumerate(self.deck_of) if d == "quest"]
        self.first_of_kind: dict[str, int] = {}
        for q in self.quests:
            self.first_of_kind.setdefault(self.type_of[q], q)
        self.events = [i for i, d in enumerate(self.deck_of) if d == "event"]
        self.flowers = [i for i, d in enumerate(self.deck_of) if d == "flower"]
        self.max_quest_events = max(self.events_of[q] for q in self.quests)
        need = self.max_events_per_round(players)
        if need > len(self.events):
            raise ValueError(f"{game.where('cards.yaml')}: ohanatsumi: {players} player(s) may draw {need} event cards in a round but the event deck has {len(self.events)}")
        self.offer_size = self.offer_solo if players == 1 else (players if self.offer_multi == "players" else int(self.offer_multi))

    def max_events_per_round(self, players: int) -> int:
        return players * self.max_quest_events * self.sets

    def max_game_length(self) -> int:
        """Every round reveals at least min(offer, solo offer after a break) quests and quests
        never return to the quest deck, so the rounds are bounded; in a round each player takes
        at most one quest (a choice), is dealt its events (draws), and for each event opened may
        declare a break (a choice) that slips in up to `max_flowers_between_events` flowers (a
        draw and, with the persuasion die, a roll each); after the boss check each character may
        go once more (a choice, a flower, a roll)."""
        per_round_quests = self.offer_size if self.players > 1 else min(self.offer_size, self.solo_after_break or self.offer_size)
        rounds = -(-len(self.quests) // max(per_round_quests, 1))
        roll = 1 if self.die else 0
        events = max((self.events_of[q] for q in self.quests), default=0) * self.sets
        per_player = 1 + events * (1 + 1 + max(self.max_flowers_between, 1) * (1 + roll)) + self.sets * (1 + 1 + roll)
        return rounds * (self.offer_size + self.players * per_player)

    def action_kinds(self) -> dict[str, tuple[tuple, ...]]:
        slots = tuple(range(self.offer_size))
        kinds: dict[str, tuple[tuple, ...]] = {
            "draw": (tuple(sorted(set(self.ids))),), "take": (slots,), "hold": (), "skip": (),
            "auto-take": (tuple(range(self.players)), slots),
            # one character goes (restroom:<name>) or both; a lone character's is bare
            "restroom": ((None, *self.characters, "both"),) if self.sets > 1 else ()}
        if self.die:
            kinds["roll"] = (tuple(range(1, self.die + 1)),)
        return kinds

    def score_range(self) -> tuple[int, int]:
        return 0, sum(self.back_fame[q] for q in self.quests)

    def new_initial_state(self, deck_order: Sequence[str] | None = None) -> "State":
        """The three decks shuffled (unordered multisets: each card revealed or dealt is a chance
        draw); `deck_order` (every card id once, top first) stacks them instead."""
        if deck_order is not None:
            order = [self.index[c] for c in core.check_deck_order(self.game, deck_order)]
            decks = [core.Deck.stacked([c for c in order if self.deck_of[c] == d]) for d in ("quest", "event", "flower")]
        else:
            decks = [core.Deck(self.quests), core.Deck(self.events), core.Deck(self.flowers)]
        return State(self, *decks)

    def from_position(self, data: Mapping[str, Any]) -> "State":
        return _ohanatsumi_state(self, data)


class State(core.ChoiceState):
    __slots__ = (
        "rules", "history", "hidden_moves", "queue", "went_now", "n", "chars", "qdeck", "edeck", "fdeck", "qdiscard", "fdiscard",
        "fdown", "offer", "quest", "rows", "opened", "urge", "done", "held", "status", "went",
        "order", "pick", "adv", "boss", "boss_i", "phase", "actor", "options", "_legal", "final",
        "round", "last_fame", "revealed", "solo_one", "accidents", "breaks", "declare_ok", "cdeck", "drawn_at", "shown",
    )

    def __init__(self, rules: Rules, qdeck: core.Deck, edeck: core.Deck, fdeck: core.Deck) -> None:
        self.rules = rules
        self.history = []
        self.hidden_moves = {}
        # card -> history index of its latest draw: when a card is shown later (an event opened,
        # a quest's back at the boss check), everyone knows that draw from then on
        self.drawn_at: dict[int, int] = {}
        self.shown: list[int | None] = []   # draws of cards opened in past rounds, not yet revealed
        self.queue: list[tuple] = []        # pending steps; a draw or a roll waits for chance
        self.cdeck: str | None = None       # the deck attribute the pending chance node draws from (None: a die)
        self.went_now = False
        n = self.n = rules.players
        c = self.chars = rules.sets
        self.qdeck, self.edeck, self.fdeck = qdeck, edeck, fdeck
        self.qdiscard: list[int] = []
        self.fdiscard: list[int] = []           # face up, public
        self.fdown: list[int] = []              # face down (post-success breaks), never looked at
        self.offer: list[int] = []
        self.quest: list[int | None] = [None] * n
        self.rows: list[list[list[int]]] = [[[] for _ in range(c)] for _ in range(n)]
        self.opened: list[list[int]] = [[0] * c for _ in range(n)]
        self.urge: list[list[int]] = [[rules.start_urge] * c for _ in range(n)]
        self.done: list[list[int]] = [[] for _ in range(n)]    # completed quests (score pile)
        self.held: list[list[int]] = [[] for _ in range(n)]    # face-down flower cards after a success
        self.status: list[str | None] = [None] * n
        self.went: list[bool] = [False] * n
        self.order: list[int] = list(range(n))                 # decision order-ties: seat order in round 1
        self.pick = 0
        self.adv = 0
        self.boss: list[int] = []
        self.boss_i = 0
        self.actor = 0
        self.options: list[str] = []
        self._legal: list[str] | None = None
        self.final = False
        self.round = 0
        self.last_fame: list[int] = [0] * n                    # fame of the quest completed this (last) round
        self.revealed: list[int] = []                          # quest backs seen so far (public)
        self.solo_one = False
        self.accidents = [0] * n
        self.breaks = [0] * n
        self.declare_ok: list[bool] = [False] * c
        self.phase = CHOOSE
        self._start_round()
        self._run()

    # ---- core API --------------------------------------------------------------------------

    def _apply(self, action) -> None:
        self._legal = None
        phase = self.phase
        kind = action[0]
        if phase == core.CHANCE_PHASE:
            self._chance_outcome(action)
            self._run()
        elif phase == DECLARE:
            p = self.actor
            if kind != "hold":
                self._declare(p, action)
            self.queue.append(("call", "_adventure"))
            self._run()
        elif phase == AFTER:
            p = self.actor
            if kind != "skip":
                self._after_break(p, action)
            self.queue.append(("call", "_next_boss"))
            self._run()
        elif phase == CHOOSE:
            self._take(self.actor, self.offer[action[1][0]])
            self._run()
        else:  # pragma: no cover
            raise core.IllegalAction(f"no action is legal in phase {phase}")

    # ---- chance ----------------------------------------------------------------------------

    def _deck_for(self, step: tuple) -> core.Deck:
        what = step[0]
        return self.qdeck if what == "offer" else self.edeck if what == "event" else self.fdeck

    def chance_size(self) -> int:
        name = self.cdeck
        if name is None:
            return self.rules.die
        return getattr(self, name).choices()

    def chance_deck(self) -> core.Deck | None:
        name = self.cdeck
        return getattr(self, name) if name is not None and self.phase == core.CHANCE_PHASE else None

    def draw_action(self, card: int) -> Act:
        return self.rules.draw_act[card]

    def chance_at(self, i: int) -> Act:
        name = self.cdeck
        if name is None:
            return self.rules.roll_act[i]
        return self.rules.draw_act[getattr(self, name).candidate(i)]

    def _reveal_table(self) -> None:
        """Everyone saw the cards opened on the table (this round's, and earlier rounds' noted at
        cleanup in `shown` before they went back under the deck), the quest backs shown at boss
        checks and the face-up flower discard, so those draws are known. Resolved when a seat's
        history is read, not at each card opened, to keep random play fast."""
        drawn_at = self.drawn_at
        if not drawn_at:
            return
        get = drawn_at.get
        out = self.shown
        out.extend(map(get, self.revealed))
        out.extend(map(get, self.fdiscard))
        for p in range(self.n):
            for ch in range(self.chars):
                out.extend(map(get, self.rows[p][ch][:self.opened[p][ch]]))
        self.reveal([i for i in out if i is not None])
        self.shown = []

    def public_history(self, seat: int) -> tuple[str, ...]:
        self._reveal_table()
        return super().public_history(seat)

    def hidden_label(self, action) -> str:
        if action.kind == "draw":
            label = self.rules.front_label.get(action.args[0])
            if label is not None:
                return label
        return action.kind + ":?"

    def _chance_outcome(self, action) -> None:
        r = self.rules
        step = self.queue.pop(0)
        what = step[0]
        if what == "roll":
            _, p, ch, then = step
            if action[1][0] <= r.persuade_max:
                self.queue.insert(0, (then, p, ch))
            return
        card = r.index[action[1][0]]
        getattr(self, self.cdeck).take(card)
        # A quest is revealed front up: everyone sees its kind (in the public view), nobody which
        # physical card (its back) it is; events and flowers are dealt face down.
        at = len(self.history) - 1
        self.hidden_moves[at] = ()
        self.drawn_at[card] = at
        if what == "offer":
            self.offer.append(card)
            return
        _, p, ch = step
        if what == "event":
            self.rows[p][ch].append(card)
        elif what == "row":
            self.rows[p][ch].insert(self.opened[p][ch], card)
            self.breaks[p] += 1
        else:  # held: a face-down flower card after a success
            self.held[p].append(card)
            self.urge[p][ch] = r.after_success_to
            self.went_now = True

    def _run(self) -> None:
        """Carry out the pending steps until one waits for chance (or a decision is asked)."""
        queue = self.queue
        while queue:
            step = queue[0]
            what = step[0]
            if what == "call":
                queue.pop(0)
                getattr(self, step[1])()
                if self.phase in (OVER, CHOOSE, DECLARE, AFTER) and not queue:
                    return
                continue
            if what != "roll" and what != "offer" and what != "event" and not self._deck_for(step):
                queue.pop(0)              # the flower deck ran out: nothing to slip in
                continue
            self.phase = core.CHANCE_PHASE
            self.cdeck = None if what == "roll" else _DECK_NAME.get(what, "fdeck")
            self._legal = None
            return

    # ---- round flow ------------------------------------------------------------------------

    def _ask(self, phase: str, p: int, options: list[str]) -> None:
        self.phase = phase
        self.actor = p
        self.options = options
        self._legal = None

    def _start_round(self) -> None:
        r = self.rules
        self.round += 1
        k = r.offer_size
        if self.n == 1 and self.solo_one:
            k = r.solo_after_break
        self.solo_one = False
        k = min(k, len(self.qdeck))
        self.offer = []
        self.queue.extend([("offer",)] * k)
        self.queue.append(("call", "_after_offer"))

    def _after_offer(self) -> None:
        if not self.qdeck:
            self.final = True
        self.pick = 0
        self._choose_next()

    def _next_pick(self) -> None:
        self.pick += 1
        self._choose_next()

    def _choose_next(self) -> None:
        while self.pick < self.n:
            p = self.order[self.pick]
            if not self.offer:
                self.pick += 1          # the final round may leave a player without a quest
                continue
            if len(self.offer) == 1:      # a single quest left is taken without a choice
                self.history.append(A("auto-take", p, 0))
                self._take(p, self.offer[0])
                return
            self._ask(CHOOSE, p, [A("take", k) for k in range(len(self.offer))])
            return
        # leftovers (solo) are discarded face up
        self.qdiscard.extend(self.offer)
        self.offer = []
        self.adv = 0
        self._adventure()

    def _take(self, p: int, quest: int) -> None:
        """Take the quest and deal its events face down (chance draws), then the next pick."""
        self.offer.remove(quest)
        self.quest[p] = quest
        n_events = self.rules.events_of[quest]
        if len(self.edeck) < n_events * self.chars:  # pragma: no cover - Rules refuses such player counts
            raise InvariantError("the event deck ran out")
        for ch in range(self.chars):
            self.rows[p][ch] = []
            self.opened[p][ch] = 0
            self.queue.extend([("event", p, ch)] * n_events)
        self.queue.append(("call", "_next_pick"))

    def _adventure(self) -> None:
        """Open cards in turn order until someone may declare a break, or every card is open."""
        if self.chars == 1:
            self._adventure_one()
            return
        r = self.rules
        order = self.order
        n = self.n
        rows, opened, urge = self.rows, self.opened, self.urge
        is_event, urge_add, is_restroom = r.is_event, r.urge_add, r.is_restroom
        free_any_time = r.free_any_time
        idle = 0
        while idle < n:
            p = order[self.adv % n]
            self.adv += 1
            prow, popen, purge = rows[p], opened[p], urge[p]
            if self.quest[p] is None or all(popen[ch] >= len(prow[ch]) for ch in range(self.chars)):
                idle += 1
                continue
            idle = 0
            can = False
            ok = self.declare_ok
            for ch in range(self.chars):
                row = prow[ch]
                i = popen[ch]
                ok[ch] = False
                if i >= len(row):
                    continue
                card = row[i]
                popen[ch] = i + 1
                if is_event[card]:
                    purge[ch] += urge_add[card]
                    flowers_here = 0
                elif is_restroom[card]:
                    purge[ch] = r.restroom_to
                    flowers_here = self._flowers_before(row, i + 1)
                else:
                    # an elf: 「まだ次のイベントカードが残っている場合のみ、次ターンでお花摘みに
                    # 行くかどうか選択できる」 -- the player who opened it is asked again at once
                    purge[ch] += urge_add[card]
                    flowers_here = 0
                if free_any_time[ch]:
                    flowers_here = 0     # two characters: the free one goes 「任意のタイミングで」
                # decision restroom-timing: only while an event is still unopened, and at most
                # max_flowers_between_events flower cards between two events (1: only after an event)
                if (i + 1 < len(row) or not r.need_event_left) and flowers_here < r.max_flowers_between:
                    ok[ch] = True
                    can = True
            if can and self.fdeck:
                opts = self._break_options(ok, len(self.fdeck), "hold")
                if opts:
                    self._ask(DECLARE, p, opts)
                    return
        self._start_boss()

    def _adventure_one(self) -> None:
        """`_adventure` for one character a player (every variant but two_character): the same
        rules (see there), without the per-character loops."""
        r = self.rules
        order, n, quest = self.order, self.n, self.quest
        rows, opened, urge = self.rows, self.opened, self.urge
        is_event, urge_add, is_restroom = r.is_event, r.urge_add, r.is_restroom
        need_left, max_between = r.need_event_left, r.max_flowers_between
        adv = self.adv
        idle = 0
        while idle < n:
            p = order[adv % n]
            adv += 1
            row = rows[p][0]
            popen = opened[p]
            i = popen[0]
            if quest[p] is None or i >= len(row):
                idle += 1
                continue
            idle = 0
            card = row[i]
            popen[0] = i + 1
            if is_event[card]:
                urge[p][0] += urge_add[card]
                flowers_here = 0
            elif is_restroom[card]:
                urge[p][0] = r.restroom_to
                flowers_here = self._flowers_before(row, i + 1)
            else:      # an elf: asked again at once (see _adventure)
                urge[p][0] += urge_add[card]
                flowers_here = 0
            ok = (i + 1 < len(row) or not need_left) and flowers_here < max_between
            self.declare_ok[0] = ok
            if ok and self.fdeck:
                self.adv = adv
                self._ask(DECLARE, p, [HOLD_A, RESTROOM_A])
                return
        self.adv = adv
        self._start_boss()

    def _flowers_before(self, row: list[int], end: int) -> int:
        """Flower cards directly before position `end` of a row (since the last event)."""
        is_event = self.rules.is_event
        k = 0
        while end - k - 1 >= 0 and not is_event[row[end - k - 1]]:
            k += 1
        return k

    def _break_options(self, ok: Sequence[bool], flowers: int, no: str) -> list[str]:
        r = self.rules
        no = HOLD_A if no == "hold" else SKIP_A
        if self.chars == 1:
            return [no, RESTROOM_A] if ok[0] and flowers else []
        chars = r.characters
        opts = [A("restroom", chars[ch]) for ch in range(self.chars) if ok[ch]]
        if not opts or not flowers:
            return []
        if len(opts) == self.chars and flowers >= self.chars:
            opts.append(A("restroom", "both"))
        opts.append(no)
        return opts

    def _who(self, action) -> list[int]:
        """Characters named by a restroom action."""
        if self.chars == 1:
            return [0]
        arg = action[1][0]
        if arg == "both":        # the free character takes her card first, then the persuasion roll
            return sorted(range(self.chars), key=lambda ch: self.rules.stubborn[ch])
        return [self.rules.characters.index(arg)]

    def _declare(self, p: int, action) -> None:
        """A flower card slipped in before the next event of each character who goes (the
        stubborn one only on a persuasion roll: a chance node)."""
        for ch in self._who(action):
            if self.rules.stubborn[ch]:
                self.queue.append(("roll", p, ch, "row"))
            else:
                self.queue.append(("row", p, ch))

    def _start_boss(self) -> None:
        order = self.order
        pos = {p: i for i, p in enumerate(order)}
        players = [p for p in order if self.quest[p] is not None]
        players.sort(key=lambda p: (sum(self.opened[p]), pos[p]))
        self.boss = players
        self.boss_i = 0
        self._boss_checks()

    def _boss_checks(self) -> None:
        r = self.rules
        while self.boss_i < len(self.boss):
            p = self.boss[self.boss_i]
            quest = self.quest[p]
            limit = r.limit[quest]
            self.revealed.append(quest)
            urge = self.urge[p]
            accident = [u > limit if r.at_most else u >= limit for u in urge]
            if any(accident):
                self.status[p] = FAILED
                self.accidents[p] += 1
                self.qdiscard.append(quest)
                self.quest[p] = None
                self.last_fame[p] = 0
                for ch in range(self.chars):
                    if accident[ch]:
                        urge[ch] = r.fail_to
            else:
                self.status[p] = SUCCESS_NO_BREAK
                self.done[p].append(quest)
                self.quest[p] = None
                self.last_fame[p] = r.back_fame[quest]
                if self.fdeck:
                    opts = self._break_options([True] * self.chars, len(self.fdeck), "skip")
                    if opts:
                        self._ask(AFTER, p, opts)
                        return
            self.boss_i += 1
        self._end_round()

    def _after_break(self, p: int, action) -> None:
        self.went_now = False
        for ch in self._who(action):
            if self.rules.stubborn[ch]:
                self.queue.append(("roll", p, ch, "held"))
            else:
                self.queue.append(("held", p, ch))

    def _next_boss(self) -> None:
        p = self.actor
        if self.went_now:
            self.went_now = False
            self.status[p] = SUCCESS_BREAK
            self.breaks[p] += 1
        self.boss_i += 1
        self._boss_checks()

    def _end_round(self) -> None:
        r = self.rules
        if self.final:
            self._finish()
            return
        # next round's order (groups, then fewer opened cards, then this round's order)
        self.order = next_round_order(self.order, self.status, [sum(o) for o in self.opened], r.group_rank)
        if self.n == 1 and self.status[0] == SUCCESS_BREAK:
            self.solo_one = True
        # cleanup
        used: list[int] = []
        shown, get = self.shown, self.drawn_at.get
        for p in range(self.n):
            for ch in range(self.chars):
                # noted now: an event put back under the deck may be drawn again (a new index)
                shown.extend(map(get, self.rows[p][ch][:self.opened[p][ch]]))
                for card in self.rows[p][ch]:
                    if r.is_event[card]:
                        used.append(card)
                    else:
                        self.fdiscard.append(card)
                self.rows[p][ch] = []
                self.opened[p][ch] = 0
            self.fdown.extend(self.held[p])
            self.held[p] = []
            self.status[p] = None
            if not r.carry:
                self.urge[p] = [r.start_urge] * self.chars
        self.edeck.put_under(used)       # shuffled among themselves, under the deck
        self._start_round()

    def _finish(self) -> None:
        self.phase = OVER
        self.options = []
        self._legal = []

    # ---- results ---------------------------------------------------------------------------

    def fame(self, p: int) -> int:
        bf = self.rules.back_fame
        return sum(bf[q] for q in self.done[p])

    def result(self) -> GameResult:
        if self.phase != OVER:
            raise core.IllegalAction("the game is not over")
        scores = tuple(self.fame(p) for p in range(self.n))
        # decision end-tiebreak: total fame, fame of the final round's quest, fewer quests completed
        keys = [(scores[p], self.last_fame[p] if self.status[p] in (SUCCESS_NO_BREAK, SUCCESS_BREAK) else 0, -len(self.done[p]))
                for p in range(self.n)]
        best = max(keys)
        winners = tuple(p for p in range(self.n) if keys[p] == best)
        details = {
            "rounds": self.round,
            "quests_completed": [len(d) for d in self.done],
            "accidents": list(self.accidents),
            "restroom_breaks": list(self.breaks),
        }
        return GameResult(scores, winners, len(self.history), None, "quests-exhausted", details,
                          core.count_decisions(self.history))

    # ---- zones -----------------------------------------------------------------------------

    def zones(self) -> Mapping[str, list[str]]:
        ids = self.rules.ids
        out: dict[str, list[str]] = {
            "quest_deck": [ids[c] for c in self.qdeck.cards()],
            "event_deck": [ids[c] for c in self.edeck.cards()],
            "flower_deck": [ids[c] for c in self.fdeck.cards()],
            "quest_discard": [ids[c] for c in self.qdiscard],
            "flower_discard": [ids[c] for c in self.fdiscard],
            "flower_discard_face_down": [ids[c] for c in self.fdown],
            "offer": [ids[c] for c in self.offer],
        }
        for p in range(self.n):
            out[f"p{p}.quest"] = [ids[self.quest[p]]] if self.quest[p] is not None else []
            for ch in range(self.chars):
                out[f"p{p}.row{ch}"] = [ids[c] for c in self.rows[p][ch]]
            out[f"p{p}.completed"] = [ids[c] for c in self.done[p]]
            out[f"p{p}.flowers_face_down"] = [ids[c] for c in self.held[p]]
        return out

    def check_invariants(self) -> None:
        super().check_invariants()
        for p in range(self.n):
            for ch in range(self.chars):
                if self.opened[p][ch] > len(self.rows[p][ch]):
                    raise InvariantError(f"seat {p} opened more cards than its row holds")
                if self.urge[p][ch] < 0:
                    raise InvariantError(f"seat {p} has negative urge")

    def describe(self, action) -> str:
        return f"seat {self.actor}: {action}" if isinstance(action, str) else repr(action)

    def public_view(self) -> dict:
        """What every player sees (seats numbered from 1): quest fronts (the kind; the backs stay
        hidden until the boss check), urges, opened cards, how many cards wait face down."""
        r = self.rules
        ids = r.ids
        seats = []
        for p in range(self.n):
            q = self.quest[p]
            seats.append({
                "seat": p + 1, "quest": r.type_of[q] if q is not None else None,
                "urge": list(self.urge[p]),
                "opened": [[ids[c] for c in self.rows[p][ch][:self.opened[p][ch]]] for ch in range(self.chars)],
                "unopened": [self.unopened(p, ch) for ch in range(self.chars)],
                "completed": [ids[c] for c in self.done[p]], "fame": self.fame(p),
                "flowers_face_down": len(self.held[p]), "status": self.status[p],
                "accidents": self.accidents[p], "restroom_breaks": self.breaks[p],
            })
        return {"round": self.round, "final_round": self.final, "order": [p + 1 for p in self.order],
                "offer": [r.type_of[q] for q in self.offer], "seats": seats,
                "revealed_backs": [ids[c] for c in self.revealed],
                "quest_deck": len(self.qdeck), "event_deck": len(self.edeck), "flower_deck": len(self.fdeck),
                "quest_discard": [ids[c] if c in self.revealed else r.type_of[c] for c in self.qdiscard],
                "flower_discard": [ids[c] for c in self.fdiscard],
                "flower_discard_face_down": len(self.fdown)}

    def private_view(self, seat: int) -> dict:
        # the seat sees its own quest's front (its kind), like everyone else: never its back
        q = self.quest[seat] if seat < self.n else None
        return {"quest": self.rules.type_of[q] if q is not None else None}

    # ---- what a player may know ------------------------------------------------------------

    def unopened(self, p: int, ch: int = 0) -> int:
        return len(self.rows[p][ch]) - self.opened[p][ch]


# ==== policies ================================================================================

from .bots import RandomPolicy  # noqa: E402


class _Knowledge:
    """Public knowledge a player can compute from the card list: event urge distribution."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        counts = Counter(rules.urge_add[e] for e in rules.events)
        total = sum(counts.values())
        step = {u: k / total for u, k in counts.items()}
        self.mean_event = sum(u * p for u, p in step.items())
        # dist[n][s] = probability that n events add exactly s urge (with replacement: close enough)
        dist: list[dict[int, float]] = [{0: 1.0}]
        for _ in range(rules.max_quest_events * 2 + 2):
            prev = dist[-1]
            nxt: dict[int, float] = {}
            for s, ps in prev.items():
                for u, pu in step.items():
                    nxt[s + u] = nxt.get(s + u, 0.0) + ps * pu
            dist.append(nxt)
        # cumulative: cdf[n][x] = P(sum of n events <= x)
        self.cdf: list[list[float]] = []
        top = max(max(d) for d in dist) + 1
        for d in dist:
            acc, row = 0.0, []
            for x in range(top + 1):
                acc += d.get(x, 0.0)
                row.append(acc)
            self.cdf.append(row)
        self.top = top
        by_type: dict[str, list[int]] = {}
        for q in rules.quests:
            by_type.setdefault(rules.type_of[q], []).append(q)
        self.by_type = by_type

    def p_at_most(self, n: int, x: int) -> float:
        """P(n more events add at most x urge)."""
        if x < 0:
            return 0.0
        row = self.cdf[min(n, len(self.cdf) - 1)]
        return row[min(x, self.top)]

    def backs(self, state: State, quest: int) -> list[int]:
        """Copies of this quest's kind whose backs the table has not seen (all copies when every back was seen)."""
        seen = set(state.revealed)
        kind = self.by_type[self.rules.type_of[quest]]
        return [q for q in kind if q not in seen] or list(kind)

    def p_success(self, state: State, quest: int, urges: Sequence[int], remaining: Sequence[int]) -> float:
        """Chance that every character ends at or under the (unknown) limit."""
        backs = self.backs(state, quest)
        lim = self.rules.limit
        total = 0.0
        for b in backs:
            p = 1.0
            for u, n in zip(urges, remaining):
                p *= self.p_at_most(n, lim[b] - u)
            total += p
        return total / len(backs)

    def expected_fame(self, state: State, quest: int, urges: Sequence[int], remaining: Sequence[int]) -> float:
        backs = self.backs(state, quest)
        lim, bf = self.rules.limit, self.rules.back_fame
        total = 0.0
        for b in backs:
            p = 1.0
            for u, n in zip(urges, remaining):
                p *= self.p_at_most(n, lim[b] - u)
            total += p * bf[b]
        return total / len(backs)

    def p_restroom(self, state: State) -> float:
        """Chance the next flower card is a restroom, from the face-up cards (face-down ones unknown)."""
        r = self.rules
        seen = [c for c in state.fdiscard] + [c for p in range(state.n) for ch in range(state.chars)
                                              for c in state.opened_cards[p][ch] if not r.is_event[c]]
        rest = sum(1 for c in r.flowers if r.is_restroom[c]) - sum(1 for c in seen if r.is_restroom[c])
        elves = sum(1 for c in r.flowers if not r.is_restroom[c]) - sum(1 for c in seen if not r.is_restroom[c])
        if rest + elves <= 0:
            return 0.0
        return rest / (rest + elves)


class _Seen:
    """What a seat knows, read from its Observation (the policies' working view)."""

    def __init__(self, obs: core.Observation, rules: Rules) -> None:
        index = rules.index
        pub = obs.public
        self.rules = rules
        self.phase = obs.phase
        self.actor = obs.seat
        seats = pub["seats"]
        self.n = len(seats)
        self.chars = len(seats[0]["urge"])
        self.urge = [s["urge"] for s in seats]
        own = obs.private["quest"]
        first = rules.first_of_kind
        self.quest = [first[own] if p == obs.seat and own else None for p in range(self.n)]
        self.offer = [first[kind] for kind in pub["offer"]]   # one card of each kind stands for it
        self._unopened = [s["unopened"] for s in seats]
        self.opened_cards = [[[index[c] for c in row] for row in s["opened"]] for s in seats]
        self.revealed = [index[c] for c in pub["revealed_backs"]]
        self.fdiscard = [index[c] for c in pub["flower_discard"]]

    def unopened(self, p: int, ch: int = 0) -> int:
        return self._unopened[p][ch]

    def _who(self, action) -> list[int]:
        if self.chars == 1:
            return [0]
        arg = action[1][0]
        if arg == "both":
            return sorted(range(self.chars), key=lambda ch: self.rules.stubborn[ch])
        return [self.rules.characters.index(arg)]


class OhanaPolicy:
    """A parameterised strategy: how to pick a quest, when to take a restroom break on the road,
    and whether to go after a success. Subclasses set the knobs.

    Reads only: quest fronts on offer, its own urge and counts of unopened cards, backs already
    revealed, face-up flower cards, and the public composition from the card list.
    """

    name = "policy"
    road_margin = 0.15        # go on the road when the chance of success rises by this much
    after_urge = 4            # go after a success when urge is at least this
    pick = "expected"         # "lightest", "ratio", "expected"

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.k = _Knowledge(rules)

    def choose(self, obs: core.Observation, legal: list, rng: random.Random):
        if len(legal) == 1:
            return legal[0]
        state = _Seen(obs, self.rules)
        if state.phase == CHOOSE:
            return self.choose_quest(state, legal)
        if state.phase == DECLARE:
            return self.declare(state, legal)
        return self.after_success(state, legal)

    # quest choice --------------------------------------------------------------------------
    def choose_quest(self, state: State, legal: list[str]) -> str:
        r = self.rules
        p = state.actor
        slots = [a.args[0] for a in legal]
        offer = state.offer
        if self.pick == "lightest":
            best = min(slots, key=lambda k: (r.events_of[offer[k]], -r.front_fame[offer[k]], k))
        elif self.pick == "ratio":
            best = max(slots, key=lambda k: (r.front_fame[offer[k]] / r.events_of[offer[k]], r.front_fame[offer[k]], -k))
        else:
            urges = state.urge[p]
            best = max(slots, key=lambda k: (self.k.expected_fame(state, offer[k], urges, [r.events_of[offer[k]]] * state.chars), -k))
        return A("take", best)

    # on the road ---------------------------------------------------------------------------
    def declare(self, state: State, legal: list[str]) -> str:
        r = self.rules
        p = state.actor
        quest = state.quest[p]
        urges = list(state.urge[p])
        rem = [state.unopened(p, ch) for ch in range(state.chars)]
        stay = self.k.p_success(state, quest, urges, rem)
        pr = self.k.p_restroom(state)
        best, best_gain = legal[0] if HOLD_A not in legal else HOLD_A, 0.0
        for a in legal:
            if a == HOLD_A:
                continue
            chars = state._who(a)
            # expected success after the break (restroom: urge 0; elf: +elf urge)
            elf = r.elf_default
            p_go = 0.0
            for outcome_rest in (True, False):
                u2 = list(urges)
                for ch in chars:
                    u2[ch] = r.restroom_to if outcome_rest else u2[ch] + elf
                w = pr if outcome_rest else 1 - pr
                p_go += w * self.k.p_success(state, quest, u2, rem)
            persuade = 1.0
            for ch in chars:
                if r.stubborn[ch]:
                    persuade *= r.persuade_max / r.die
            gain = persuade * (p_go - stay)
            if gain > self.road_margin and gain > best_gain:
                best, best_gain = a, gain
        return best

    # after a success -------------------------------------------------------------------------
    def after_success(self, state: State, legal: list[str]) -> str:
        p = state.actor
        urges = state.urge[p]
        if self.rules.characters == ("adventurer",):
            return RESTROOM_A if urges[0] >= self.after_urge and RESTROOM_A in legal else SKIP_A
        want = [ch for ch in range(state.chars) if urges[ch] >= self.after_urge]
        if not want:
            return SKIP_A
        names = self.rules.characters
        a = A("restroom", "both") if len(want) == state.chars else A("restroom", names[want[0]])
        return a if a in legal else SKIP_A


class LightestPolicy(OhanaPolicy):
    """Always takes the lightest quest (fewest events), keeps first pick: the designer's worry."""

    name = "lightest"
    pick = "lightest"
    road_margin = 0.15
    after_urge = 7


class GreedyPolicy(OhanaPolicy):
    """Takes the best advertised fame per event; rarely stops for a break."""

    name = "greedy"
    pick = "ratio"
    road_margin = 0.35
    after_urge = 8


class CautiousPolicy(OhanaPolicy):
    """Best expected fame, and goes to the restroom whenever it helps at all; always after a success."""

    name = "cautious"
    pick = "expected"
    road_margin = 0.0
    after_urge = 1


class BalancedPolicy(OhanaPolicy):
    """Best expected fame given its urge; a break when it clearly pays; goes after a success when urge is high."""

    name = "balanced"
    pick = "expected"
    road_margin = 0.2
    after_urge = 6


POLICIES: dict[str, Callable[[Rules], object]] = {
    "random": RandomPolicy,
    "lightest": LightestPolicy,
    "greedy": GreedyPolicy,
    "cautious": CautiousPolicy,
    "balanced": BalancedPolicy,
}


# ==== checks ==================================================================================

def rounds_by_players(game: Game) -> dict[int, int]:
    """Rounds a game lasts for each allowed player count when every offer is full: the round
    whose offer empties the quest deck is the last (quests ÷ quests on offer, rounded up).
    Playtest round sheets are sized from it."""
    quests = sum(1 for c in game.cards if c.get("deck") == "quest")
    offer = game.param("quests_on_offer")
    return {p: -(-quests // (offer["solo"] if p == 1 else p)) for p in game.player_counts}


def setup_checks(game: Game) -> list[CheckResult]:
    """How many players the event deck supports, per variant; the decks the rules need."""
    here = game.where
    problems = parameter_problems(game)
    if problems:
        return [CheckResult(f"parameter-{name}", False, message, here(name) or here("game.yaml")) for name, message in problems]
    out: list[CheckResult] = []
    events = [c for c in game.cards if c.get("deck") == "event"]
    quests = [c for c in game.cards if c.get("deck") == "quest"]
    flowers = [c for c in game.cards if c.get("deck") == "flower"]
    most = max(c.get("events") for c in quests)
    two = game.param("two_character_variant")
    urge = game.param("event_urge")
    stray = [c for c in events if not urge["min"] <= (c.get("urge") or 0) <= urge["max"]]
    shown = ", ".join(f"{c.id} ({c.get('urge')})" for c in stray[:6])
    out.append(CheckResult(
        "event-urge", not stray,
        f"every event adds {urge['min']}–{urge['max']} urge" if not stray
        else f"events outside event_urge {urge['min']}–{urge['max']}: {shown}",
        stray[0].location if stray else None,
    ))
    for variant, sets, counts in (("standard", 1, list(game.player_counts)),
                                  ("two_character", two["event_sets"], [two["players"]])):
        supported = len(events) // (most * sets)
        for players in counts:
            need = players * most * sets
            out.append(CheckResult(
                f"event-deck-{players}p" + ("" if variant == "standard" else f"-{variant}"), need <= len(events),
                f"{variant}, {players} player(s): at most {players} × {most} events" + (f" × {sets} rows" if sets > 1 else "")
                + f" = {need} a round, event deck {len(events)} (used events return under the deck at cleanup); "
                f"the event deck supports up to {supported} player(s)",
                None if need <= len(events) else here("two_character_variant" if variant != "standard" else "cards.yaml"),
            ))
        out.append(CheckResult(
            f"event-deck-max-players-{variant}", max(counts) <= supported,
            f"{variant}: the event deck supports up to {supported} player(s); the game allows up to {max(counts)}",
            None if max(counts) <= supported else here("cards.yaml"),
        ))
    rounds = rounds_by_players(game)
    out.append(CheckResult(
        "quest-rounds", all(r >= 2 for r in rounds.values()),
        "rounds when every offer is full (quests ÷ quests on offer): " + ", ".join(f"{p}p {r}" for p, r in rounds.items()),
        None if all(r >= 2 for r in rounds.values()) else here("quests_on_offer"),
    ))
    bad = [c.id for c in quests if c.get("urge_limit") is None or c.get("back_fame") is None or c.get("events") is None]
    out.append(CheckResult("quest-backs", not bad,
                           "every quest has events, an urge limit and a confirmed reward" if not bad else f"incomplete quests: {bad}",
                           next((c.location for c in quests if c.id in bad), None)))
    rest = sum(1 for c in flowers if c.get("flower") == "restroom")
    out.append(CheckResult("flower-deck", rest > 0 and len(flowers) > 0,
                           f"{len(flowers)} flower cards: {rest} restroom, {len(flowers) - rest} elf",
                           None if rest > 0 else here("cards.yaml")))
    return out


# --- positions (cardgen.engine.position reads the file; this builds the state) ---

def _ohanatsumi_state(rules: Any, data: Mapping[str, Any]) -> core.State:
    """A position of this game (see cardgen.engine.position): phase round (a round starts: quests
    are revealed) | adventure (cards are opened in turn order); zones offer, quest {seat: card},
    rows {seat: [[...] per character]}, opened {seat: [n per character]}, completed {seat: [...]},
    held {seat: [...]}, quest_discard, flower_discard, flower_discard_face_down; decks quest_deck,
    event_deck, flower_deck; counters round, final, urge {seat: [per character]}, order [seats],
    status {seat: ...}, last_fame {seat: n}, accidents {seat: n}, breaks {seat: n}."""
    b = PositionBuilder(rules, data, ["round", "adventure"],
                 zones={"offer", "quest", "rows", "opened", "completed", "held", "quest_discard", "flower_discard",
                        "flower_discard_face_down"},
                 decks={"quest_deck", "event_deck", "flower_deck"},
                 counters={"round", "final", "urge", "order", "status", "last_fame", "accidents", "breaks"})
    n = rules.players
    c = rules.sets
    ix = rules.index
    s = rules.new_initial_state()
    s.history = []
    s.hidden_moves = {}
    s.queue = []

    def cards(path: tuple, value: Any) -> list[int]:
        return [ix[x] for x in b.cards(path, value)]

    s.offer = cards(("zones", "offer"), b.get("zones", "offer"))
    s.quest = [None] * n
    for p, q in b.per_seat(("zones", "quest"), b.get("zones", "quest"), n).items():
        if q is not None:
            s.quest[p] = cards(("zones", "quest", p + 1), [q])[0]
    s.rows = [[[] for _ in range(c)] for _ in range(n)]
    for p, rows in b.per_seat(("zones", "rows"), b.get("zones", "rows"), n).items():
        if c == 1 and rows and not isinstance(rows[0], list):
            rows = [rows]
        if not isinstance(rows, list) or len(rows) != c:
            raise PositionError(("zones", "rows", p + 1), f"must list {c} row(s) of cards")
        s.rows[p] = [cards(("zones", "rows", p + 1, ch), row) for ch, row in enumerate(rows)]
    s.opened = [[0] * c for _ in range(n)]
    for p, v in b.per_seat(("zones", "opened"), b.get("zones", "opened"), n).items():
        v = v if isinstance(v, list) else [v]
        if len(v) != c:
            raise PositionError(("zones", "opened", p + 1), f"one number per character ({c})")
        for ch, k in enumerate(v):
            s.opened[p][ch] = b.number(("zones", "opened", p + 1, ch), k, 0, len(s.rows[p][ch]))
    s.done = [[] for _ in range(n)]
    for p, v in b.per_seat(("zones", "completed"), b.get("zones", "completed"), n).items():
        s.done[p] = cards(("zones", "completed", p + 1), v)
    s.held = [[] for _ in range(n)]
    for p, v in b.per_seat(("zones", "held"), b.get("zones", "held"), n).items():
        s.held[p] = cards(("zones", "held", p + 1), v)
    s.qdiscard = cards(("zones", "quest_discard"), b.get("zones", "quest_discard"))
    s.fdiscard = cards(("zones", "flower_discard"), b.get("zones", "flower_discard"))
    s.fdown = cards(("zones", "flower_discard_face_down"), b.get("zones", "flower_discard_face_down"))
    decks = {}
    for name in ("quest_deck", "event_deck", "flower_deck"):
        top, rest = b.deck(("decks", name), b.get("decks", name))
        decks[name] = ([ix[x] for x in top], [ix[x] for x in rest])
    kind = {"quest": "quest_deck", "event": "event_deck", "flower": "flower_deck"}
    for x in b.unplaced():
        decks[kind[rules.deck_of[ix[x]]]][1].append(ix[x])
    s.qdeck, s.edeck, s.fdeck = (position_deck(*decks[k]) for k in ("quest_deck", "event_deck", "flower_deck"))
    for name, deck in (("quest_deck", s.qdeck), ("event_deck", s.edeck), ("flower_deck", s.fdeck)):
        wrong = [rules.ids[x] for x in deck.cards() if kind[rules.deck_of[x]] != name]
        if wrong:
            raise PositionError(("decks", name), f"{wrong[0]} does not belong in the {name.replace('_', ' ')}")
    s.round = b.number(("counters", "round"), b.get("counters", "round", 1), 1)
    s.final = bool(b.get("counters", "final", False))
    for p, v in b.per_seat(("counters", "urge"), b.get("counters", "urge"), n).items():
        v = v if isinstance(v, list) else [v]
        if len(v) != c:
            raise PositionError(("counters", "urge", p + 1), f"one urge per character ({c})")
        s.urge[p] = [b.number(("counters", "urge", p + 1, ch), u, 0, 1000) for ch, u in enumerate(v)]
    if b.has("counters", "order"):
        order = b.seats(("counters", "order"), b.get("counters", "order"))
        if sorted(order) != list(range(n)):
            raise PositionError(("counters", "order"), "must list every seat once")
        s.order = order
    statuses = (None, SUCCESS_NO_BREAK, FAILED, SUCCESS_BREAK)
    for p, v in b.per_seat(("counters", "status"), b.get("counters", "status"), n).items():
        if v not in statuses:
            raise PositionError(("counters", "status", p + 1), f"must be one of {', '.join(map(str, statuses))}")
        s.status[p] = v
    for key, attr in (("last_fame", "last_fame"), ("accidents", "accidents"), ("breaks", "breaks")):
        for p, v in b.per_seat(("counters", key), b.get("counters", key), n).items():
            getattr(s, attr)[p] = b.number(("counters", key, p + 1), v)
    s.revealed = []
    s._legal = None
    if b.phase == "round":
        s.round -= 1
        s.offer, offered = [], s.offer
        if offered:
            raise PositionError(("zones", "offer"), "a round starts by revealing the offer: leave it empty")
        s.phase = CHOOSE
        s._start_round()
        s._run()
    else:
        s.phase = CHOOSE
        s.adv = 0
        s.queue = [("call", "_adventure")]
        s._run()
    return checked_state(s)


# What cardgen reads off the Rules class that the entry point names (see cardgen.registry).
Rules.POLICIES = POLICIES
Rules.setup_checks = staticmethod(setup_checks)
Rules.rounds_by_players = staticmethod(rounds_by_players)
