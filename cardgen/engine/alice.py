"""Detective Alice (探偵アリス): the solitaire and its two-player "versus" variant.

Every number comes from card_data/alice (game.yaml `parameters`, card fields); the source is
../shared/seeds/003_2918f06676cfb10a.txt and every reading of it is a `decisions:` entry.

Turn structure (one player, or the two players alternating whole turns in versus):

* investigation phase — draw the top card of your deck, or play an investigation card from
  your memo to the record as if drawn. A drawn investigation card goes to the record or, when
  there is room, the memo. A suspect Alice drawn here triggers the solution check; failing it,
  or drawing the Detective or the Nuisance, puts her in the memo (a full memo first discards
  one of its investigation cards). Three Alices in the memo lose; an empty deck at the start
  of the phase loses.
* event phase — optionally use the event of one memo card; afterwards an investigation card
  is discarded and an Alice is shuffled back into the deck.

Actions are short strings (YAML-friendly, sortable): ``draw``, ``play:AL07``, ``record``,
``memo``, ``discard:AL07`` (make room), ``pass``, ``event:AL07``, ``target:AL07`` (the
record card an event discards), ``swap:AL07`` (swap that record card with its right
neighbour), ``recover:AL07`` (discard to deck bottom), ``order:AL07,AL12,AL01`` (the peeked
cards, top first); versus adds ``profile:AL01``, ``keep``/``change`` (the once-a-game
profile change) and ``force:AL04``/``noforce``. Steps that offer only one possibility are
carried out automatically and never appear as actions.

Hidden information: the deck order and, in versus, the opponent's profile and the card a
player has just drawn (until it is revealed). The opponent is shown a `profile:` move as
``profile:?``, the cards an event peeks at (chance ``draw:AL07:peek``) as ``draw:?``, and an
`order:` move (it names the peeked cards) as ``order:?``. A drawn Alice is ``draw:?alice``
until it is revealed (decision versus-private-look); every other drawn card is revealed at
once. Policies below only read the public zones, the acting player's own profile and pending
card, and the known card list.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any, Callable, Mapping, Sequence

from ..io.schema import Bool, Int, List, Map, OneOf, Str
from ..model import CheckResult, Game
from . import core
from .core import GameResult, InvariantError
from .position import PositionBuilder, PositionError, checked_state, position_deck

# phases
SETUP_PROFILE = "profile"
INVESTIGATE = "investigate"
PLACE = "place"
MAKE_ROOM = "make_room"
PROFILE_CHANGE = "profile_change"
FORCE = "force"
EVENT = "event"
TARGET = "target"
OVER = core.OVER

ALICE_KINDS = ("suspect", "detective", "nuisance")


class Act(core.Action):
    """An alice move: draw, play:<card>, record, memo, discard:<card>, pass, event:<card>,
    target:<card>, swap:<card>, recover:<card>, order:<card>:<card>:..., profile:<card>, keep,
    change, force:<card>, noforce; chance: draw:<card> (the top card of the deck) and
    draw:<card>:peek (the top card looked at by an event)."""

    __slots__ = ()
    TEXT_KINDS = frozenset({"draw", "play", "discard", "event", "target", "swap", "recover", "order",
                            "profile", "force", "peek"})


def A(kind: str, *args) -> Act:
    return Act(kind, args)


DRAW_A, RECORD_A, MEMO_A, PASS_A = A("draw"), A("record"), A("memo"), A("pass")
KEEP_A, CHANGE_A, NOFORCE_A = A("keep"), A("change"), A("noforce")
KNOWN_EVENTS = (
    "discard_record_colour", "discard_record_last", "swap_adjacent", "record_last_to_memo",
    "peek_reorder", "scout_top", "recover_discard", "reveal_top_to_memo",
    "discard_record_colour_all",
)
ICONS = ("place", "weapon", "motive")

# Every rule parameter this module (and the rulebook and sheets) reads. String settings list
# only what the engine implements; the loader refuses anything else at its line. What a range
# cannot say (link bonus rows out of order, a memo limit below the Alices that lose) is
# `parameter_problems`: a failing setup check with the parameter's location.
PARAMETERS = Map({
    "deck": Str(("all_cards_shuffled_together",)),
    "memo_limit": Int(1, 20),
    "alices_in_memo_to_lose": Int(1, 20),
    "lose_on_empty_deck": Bool(),
    "memo_play_instead_of_draw": Str(("investigation_only",)),
    "solve": Map({"requires_icons": List(Str(ICONS), 1, len(ICONS)), "same_colour_consecutive": Bool(),
                  "only_suspect_drawn_in_investigation_phase": Bool()}),
    "events_per_event_phase": Int(0, 10),
    "event_may_pass": Bool(),
    "used_investigation_card_to": Str(("discard",)),
    "used_alice_card_to": Str(("deck_reshuffle",)),
    "used_card_frees_slot_during_event": Bool(),
    # the peeked cards are put back in one decision among their k! orders: beyond 5 (120
    # orders) a single decision would list millions
    "peek_count": Int(1, 5),
    "max_investigation_phases": Int(1, 1000),
    "points_per_record_card": Int(0, 100),
    "link_order": List(Str(ICONS), 1, len(ICONS)),
    "link_cyclic": Bool(),
    "link_any_start": Bool(),
    "link_bonus": List(Map({"min": Int(1, 100), "max": Int(1, 100), "bonus": Int(0, 1000)}), 1, 50),
    "versus": Map({
        "players": Int(2, 2),
        "sets": Int(1, 2),
        "profile_from_own_alice_cards": Bool(),
        "profile_removed_from_deck": Bool(),
        "profile_changes_allowed": Int(0, 100),
        "private_look_before_reveal": Bool(),
        "shared_solve_check": Bool(),
        "forced_event_on_alice_draw": OneOf((Bool(), Str(("optional", "always")))),
        "suspect_profile_points_per_same_colour_card": Int(0, 100),
        "nuisance_win_suspects_in_a_memo": Int(1, 20),
        "tie": Str(("draw",)),
    }),
})


def parameter_problems(game: Game) -> list[tuple[str, str]]:
    """(parameter, what is wrong) for what the declared ranges cannot say; empty when consistent."""
    p = game.param
    out: list[tuple[str, str]] = []
    rows = p("link_bonus")
    bad = [f"{r['min']}..{r['max']}" for r in rows if r["min"] > r["max"]]
    if bad:
        out.append(("link_bonus", f"link_bonus rows {', '.join(bad)}: min must not exceed max"))
    elif any(b["min"] <= a["max"] for a, b in zip(rows, rows[1:])):
        shown = ", ".join(f"{r['min']}..{r['max']}" for r in rows)
        out.append(("link_bonus", f"link_bonus rows must be in increasing order without overlaps ({shown})"))
    order = p("link_order")
    if len(set(order)) != len(order):
        out.append(("link_order", f"link_order {order} names an icon twice; name each once"))
    icons = p("solve")["requires_icons"]
    if len(set(icons)) != len(icons):
        out.append(("solve", f"solve.requires_icons {icons} names an icon twice; name each once"))
    if p("memo_limit") < p("alices_in_memo_to_lose"):
        # an Alice always goes to the memo, making room only by discarding an investigation
        # card: a memo full of Alices that have not yet lost has no room for the next one
        out.append(("memo_limit", f"memo_limit {p('memo_limit')} is below alices_in_memo_to_lose "
                                  f"{p('alices_in_memo_to_lose')}: a memo full of Alices would have no room for "
                                  f"the next; raise memo_limit or lower alices_in_memo_to_lose"))
    vs = p("versus")
    # the engine implements these rules one way only (the profile is a card taken out of the
    # player's own deck; the drawn card is looked at privately; both records count for a solve)
    for name in ("profile_from_own_alice_cards", "profile_removed_from_deck", "private_look_before_reveal",
                 "shared_solve_check"):
        if not vs[name]:
            out.append(("versus", f"versus.{name} false is not implemented by the alice engine; set it to true"))
    if vs["sets"] != vs["players"]:
        out.append(("versus", f"versus.sets {vs['sets']} must equal versus.players {vs['players']} (each player has a set)"))
    return out


class Rules(core.Rules):
    """Detective Alice for one player ("solo") or two ("versus", each with their own set)."""

    engine_id = "alice"
    PARAMETERS = PARAMETERS
    player_counts = (1, 2)
    variants = ("solo", "versus")
    variant_players = {"solo": (1,), "versus": (2,)}
    max_actions = 5_000
    action_type = Act
    cooperative = True        # the solitaire reports success; each instance sets its own (versus: False)

    @classmethod
    def game_variants(cls, game: Game | None) -> dict[str, tuple[int, ...]]:
        """solo: one player; versus: the player count game.yaml's versus parameters give."""
        if game is None:
            return dict(cls.variant_players)
        return {"solo": (1,), "versus": (game.param("versus")["players"],)}

    @classmethod
    def supports(cls, players: int, variant: str, game: Game | None = None) -> bool:
        """Whether this player count plays this variant (solo: 1 player, versus: 2)."""
        return players in cls.game_variants(game).get(variant, ())

    @classmethod
    def default_variant(cls, players: int, game: Game | None = None) -> str:
        return "solo" if players == 1 else "versus"

    def __init__(self, game: Game, players: int = 1, variant: str | None = None) -> None:
        if variant is None or variant == "standard":
            variant = self.default_variant(players)
        super().__init__(game, players, variant)
        if players not in self.variant_players[variant]:
            raise ValueError(f"alice: variant {variant!r} is for {self.variant_players[variant]} players, not {players}")
        self.cooperative = variant == "solo"
        problems = parameter_problems(game)
        if problems:
            name, message = problems[0]
            raise ValueError(f"{game.where(name) or game.where('game.yaml')}: {message}")
        p = game.param
        self.memo_limit: int = p("memo_limit")
        self.alices_to_lose: int = p("alices_in_memo_to_lose")
        self.lose_on_empty_deck: bool = bool(p("lose_on_empty_deck"))
        solve = p("solve")
        self.solve_icons = tuple(solve["requires_icons"])
        self.events_per_phase: int = p("events_per_event_phase")
        self.event_may_pass: bool = bool(p("event_may_pass"))
        # used_investigation_card_to, used_alice_card_to and memo_play_instead_of_draw have one
        # value each in PARAMETERS: the one the engine implements.
        self.max_turns: int = p("max_investigation_phases")
        self.peek_count: int = p("peek_count")
        self.points_per_record_card: int = p("points_per_record_card")
        self.link_order = tuple(p("link_order"))
        self.link_cyclic: bool = bool(p("link_cyclic"))
        self.link_any_start: bool = bool(p("link_any_start"))
        self.link_bonus = [(row["min"], row["max"], row["bonus"]) for row in p("link_bonus")]
        vs = p("versus")
        self.sets: int = vs["sets"] if variant == "versus" else 1
        self.profile_changes: int = vs["profile_changes_allowed"]
        self.profile_removed: bool = bool(vs["profile_removed_from_deck"])
        self.forced_events: bool = vs["forced_event_on_alice_draw"] not in (False, "no", "never")
        self.suspect_points: int = vs["suspect_profile_points_per_same_colour_card"]
        self.nuisance_suspects: int = vs["nuisance_win_suspects_in_a_memo"]
        # per-card arrays, indexed by position in game.cards
        cards = game.cards
        self.ids: list[str] = [c.id for c in cards]
        self.index: dict[str, int] = {c.id: i for i, c in enumerate(cards)}
        self.kind: list[str] = [c.get("kind") for c in cards]
        self.colour: list[str] = [c.get("colour") for c in cards]
        self.icon: list[str | None] = [c.get("icon") for c in cards]
        self.event: list[str] = [c.get("event") for c in cards]
        self.event_colour: list[str | None] = [c.get("event_colour") for c in cards]
        self.is_alice: list[bool] = [k in ALICE_KINDS for k in self.kind]
        self.draw_act: list[Act] = [A("draw", cid) for cid in self.ids]
        # an event's look at the deck top, draw:<card>:peek: its hidden label must not say what
        # an investigation draw's says (the kind of card, decision versus-private-look)
        self.peek_act: list[Act] = [A("draw", cid, "peek") for cid in self.ids]
        self.is_suspect: list[bool] = [k == "suspect" for k in self.kind]
        for i, ev in enumerate(self.event):
            if ev not in KNOWN_EVENTS:
                raise ValueError(f"{cards[i].location}: alice engine: card {self.ids[i]} has unknown event {ev!r}; "
                                 f"the engine knows {', '.join(KNOWN_EVENTS)}")
        # link successor by icon (None = the chain stops)
        order = self.link_order
        self.link_next: dict[str, str | None] = {}
        for k, icon in enumerate(order):
            nxt = order[(k + 1) % len(order)] if (self.link_cyclic or k + 1 < len(order)) else None
            self.link_next[icon] = nxt
        self.alices: list[int] = [i for i, a in enumerate(self.is_alice) if a]
        self.investigations: list[int] = [i for i, a in enumerate(self.is_alice) if not a]

    def max_game_length(self) -> int:
        """Each seat has at most `max_investigation_phases` turns (then the case goes cold). A
        turn is: draw or play (a choice) and the drawn card (a draw); then placing it (a choice)
        or, for an Alice, the profile change (a choice), the opponent's forced event (a choice
        and one event's effects) and making room (a choice); then up to
        `events_per_event_phase` events (the choice, and a target, or `peek_count` draws and
        their order, or one draw) and a pass. Versus adds one profile choice per seat."""
        event_effects = max(1, self.peek_count + 1)
        alice = 1 + (1 + event_effects) + 1
        turn = 2 + max(1, alice) + self.events_per_phase * (1 + event_effects) + 1
        return self.players * (1 + self.max_turns * turn)

    def action_kinds(self) -> dict[str, tuple[tuple, ...]]:
        cards = tuple(sorted(set(self.ids)))
        # the peeked cards put back in a chosen order: one to peek_count card arguments
        order = (cards, *[(None, *cards)] * (self.peek_count - 1))
        return {"draw": ((None, *cards), (None, "peek")), "record": (), "memo": (), "pass": (), "keep": (),
                "change": (), "noforce": (), "profile": (cards,), "play": (cards,), "force": (cards,),
                "discard": (cards,), "event": (cards,), "target": (cards,), "swap": (cards,),
                "recover": (cards,), "order": order}

    # ---- scoring helpers (also used by checks and policies) --------------------------------

    def link_length(self, record: Sequence[int]) -> int:
        """Longest stretch of adjacent record cards following the link order (colour ignored)."""
        icon = self.icon
        nxt = self.link_next
        first = self.link_order[0]
        best = cur = 0
        prev = None
        for c in record:
            ic = icon[c]
            if prev is not None and cur and nxt.get(prev) == ic:
                cur += 1
            elif self.link_any_start or ic == first:
                cur = 1
            else:
                cur = 0
            prev = ic
            if cur > best:
                best = cur
        return best

    def link_bonus_for(self, length: int) -> int:
        for low, high, bonus in self.link_bonus:
            if low <= length <= high:
                return bonus
        if self.link_bonus and length > self.link_bonus[-1][1]:
            return self.link_bonus[-1][2]
        return 0

    def solved(self, record: Sequence[int], colour: str) -> bool:
        """True if the record has a run of `colour` cards that holds every required icon."""
        need = self.solve_icons
        seen: set = set()
        col = self.colour
        icon = self.icon
        for c in record:
            if col[c] == colour:
                seen.add(icon[c])
                if len(seen) >= len(need) and all(n in seen for n in need):
                    return True
            else:
                seen = set()
        return False

    def solo_score(self, record: Sequence[int]) -> int:
        return len(record) * self.points_per_record_card + self.link_bonus_for(self.link_length(record))

    def versus_score(self, record: Sequence[int], profile: int | None) -> int:
        bonus = self.link_bonus_for(self.link_length(record))
        if profile is not None and self.is_suspect[profile]:
            colour = self.colour[profile]
            return bonus + self.suspect_points * sum(1 for c in record if self.colour[c] == colour)
        return bonus

    def max_link(self) -> int:
        """Longest link the investigation cards can make (icons are finite)."""
        counts = Counter(self.icon[c] for c in self.investigations)
        best = 0
        starts = self.link_order if self.link_any_start else self.link_order[:1]
        for start in starts:
            left = dict(counts)
            icon, n = start, 0
            while icon is not None and left.get(icon, 0) > 0:
                left[icon] -= 1
                n += 1
                icon = self.link_next[icon]
            best = max(best, n)
        return best

    def score_range(self) -> tuple[int, int]:
        top_bonus = max((b for _, _, b in self.link_bonus), default=0)
        if self.variant == "solo":
            return 0, len(self.investigations) * self.points_per_record_card + top_bonus
        per_colour = max(Counter(self.colour[c] for c in self.investigations).values())
        return 0, per_colour * self.suspect_points + top_bonus

    # ---- setup ---------------------------------------------------------------------------

    def new_initial_state(self, deck_order: Sequence[str] | None = None) -> "State":
        """Each set shuffled into its deck (an unordered multiset: each draw is a chance node);
        `deck_order` gives the decks in order instead (top first), one set after another."""
        n = len(self.ids)
        decks: list[core.Deck] = []
        if deck_order is not None:
            order = [self.index[i] for i in deck_order]
            if len(order) != n * self.sets:
                raise ValueError(f"alice: deck_order must list {n * self.sets} cards ({self.sets} set(s) of {n}), got {len(order)}")
            for s in range(self.sets):
                part = order[s * n:(s + 1) * n]
                if sorted(part) != list(range(n)):
                    raise ValueError(f"alice: deck_order set {s + 1} is not exactly one of each card")
                decks.append(core.Deck.stacked(part))
        else:
            for _ in range(self.sets):
                decks.append(core.Deck(range(n)))
        return State(self, decks)

    def from_position(self, data: Mapping[str, Any]) -> "State":
        return _alice_state(self, data)


class State(core.ChoiceState):
    __slots__ = (
        "rules", "history", "hidden_moves", "draw_for", "peeked", "peek_want", "n", "decks", "records", "memos", "discards", "profiles",
        "changes_left", "phase", "turn", "actor", "pending", "events_used", "ev_card", "ev_owner",
        "ev_forced", "options", "turns", "_legal", "ending", "culprit", "loser", "winners_", "drawn_at",
        "profile_at",
    )

    def __init__(self, rules: Rules, decks: list[core.Deck]) -> None:
        self.rules = rules
        self.history = []
        self.hidden_moves = {}
        self.draw_for = (0, "investigate")
        self.peeked: list[int] = []          # cards an event is showing its owner (peek_reorder)
        self.peek_want = 0
        self.n = rules.sets
        self.decks = decks
        self.records: list[list[int]] = [[] for _ in decks]
        self.memos: list[list[int]] = [[] for _ in decks]
        self.discards: list[list[int]] = [[] for _ in decks]
        self.profiles: list[int | None] = [None for _ in decks]
        self.changes_left = [rules.profile_changes for _ in decks]
        self.turns = [0 for _ in decks]     # investigation phases started, per seat
        self.turn = 0
        self.actor = 0
        self.pending: int | None = None     # the card being resolved this investigation phase
        # versus: history indices of the pending Alice draw and of each seat's profile pick, the
        # moves the opponent is shown once the card is revealed (decision versus-private-look)
        self.drawn_at: int | None = None
        self.profile_at: list[int | None] = [None for _ in decks]
        self.events_used = 0
        self.ev_card: int | None = None
        self.ev_owner = 0
        self.ev_forced = False
        self.options: list[str] = []        # legal actions of the current decision
        self._legal: list[str] | None = None
        self.ending: str | None = None
        self.culprit: str | None = None
        self.loser: int | None = None
        self.winners_: tuple[int, ...] = ()
        if rules.variant == "versus":
            self.phase = SETUP_PROFILE
            self.actor = 0
            self._ask(SETUP_PROFILE, [A("profile", rules.ids[c]) for c in sorted(set(self.decks[0].cards())) if rules.is_alice[c]])
        else:
            self._start_investigation(0)

    # ---- core API --------------------------------------------------------------------------

    def _apply(self, action) -> None:
        self._legal = None
        phase = self.phase
        r = self.rules
        kind, args = action
        if phase == core.CHANCE_PHASE:
            self._drawn(r.index[args[0]])
        elif phase == EVENT:
            if kind == "pass":
                self._end_turn(self.turn)
            else:
                self._use_event(self.turn, r.index[args[0]], forced=False)
        elif phase == PLACE:
            p = self.turn
            card = self.pending
            self.pending = None
            if kind == "record":
                self.records[p].append(card)
            else:
                self.memos[p].append(card)
            self._start_event(p)
        elif phase == INVESTIGATE:
            p = self.turn
            if kind == "draw":
                self._draw(p)
            else:
                card = r.index[args[0]]
                self.memos[p].remove(card)
                self.records[p].append(card)
                self._start_event(p)
        elif phase == TARGET:
            self._resolve_target(action)
        elif phase == MAKE_ROOM:
            p = self.turn
            card = r.index[args[0]]
            self.memos[p].remove(card)
            self.discards[p].append(card)
            self._place_alice(p, self.pending)
        elif phase == PROFILE_CHANGE:
            p = self.turn
            card = self.pending
            if kind == "change":
                self.changes_left[p] -= 1
                card, self.profiles[p] = self.profiles[p], card
                self.pending = card
                # the old profile is shown as the card drawn; the draw itself (now the profile) never is
                self.reveal(i for i in (self.profile_at[p],) if i is not None)
                self.drawn_at = None
            self._offer_force(p, card)
        elif phase == FORCE:
            p = self.turn
            if kind == "noforce":
                self._resolve_alice(p, self.pending)
            else:
                self._use_event(1 - p, r.index[args[0]], forced=True)
        elif phase == SETUP_PROFILE:
            p = self.actor
            card = r.index[args[0]]
            self.profiles[p] = card
            self.hidden_moves[len(self.history) - 1] = (p,)     # the profile is secret
            self.profile_at[p] = len(self.history) - 1
            if r.profile_removed:
                self.decks[p].remove(card)
            if p + 1 < self.n:
                self.actor = p + 1
                self._ask(SETUP_PROFILE, [A("profile", r.ids[c]) for c in sorted(set(self.decks[p + 1].cards())) if r.is_alice[c]])
            else:
                self._start_investigation(0)
        else:  # pragma: no cover
            raise core.IllegalAction(f"no action is legal in phase {phase}")

    # ---- chance ----------------------------------------------------------------------------

    def _chance(self, p: int, purpose: str, then_phase: str | None = None) -> None:
        """Draw the top card of seat p's deck (a chance node unless the top is known)."""
        self.draw_for = (p, purpose)
        self.phase = core.CHANCE_PHASE
        self._legal = None

    def chance_size(self) -> int:
        return self.decks[self.draw_for[0]].choices()

    def chance_at(self, i: int) -> Act:
        return self.draw_action(self.decks[self.draw_for[0]].candidate(i))

    def chance_deck(self) -> core.Deck | None:
        return self.decks[self.draw_for[0]] if self.phase == core.CHANCE_PHASE else None

    def draw_action(self, card: int) -> Act:
        return (self.rules.peek_act if self.draw_for[1] == "peek" else self.rules.draw_act)[card]

    def hidden_label(self, action) -> str:
        """decision versus-private-look: the opponent of a player who draws knows at once whether
        it is an Alice (only an Alice can be kept back for a profile change; an investigation
        card is shown at once), so a hidden investigation draw is ``draw:?alice``; a peek
        (``draw:AL07:peek``) is a plain ``draw:?`` whatever the card."""
        if action.kind == "draw" and len(action.args) == 1:
            return "draw:?alice" if self.rules.is_alice[self.rules.index[action.args[0]]] else "draw:?investigation"
        return action.kind + ":?"

    def _drawn(self, card: int) -> None:
        p, purpose = self.draw_for
        self.decks[p].take(card)
        # versus: a drawn card is shown to the opponent after its owner's private look, at once
        # for an investigation card and a scouted or revealed card, after the profile change and
        # the forced event for an investigation draw of an Alice (see _resolve_alice); a peek is
        # never shown
        if self.n > 1 and (purpose == "peek" or (purpose == "investigate" and self.rules.is_alice[card])):
            self.hidden_moves[len(self.history) - 1] = (p,)
            if purpose == "investigate":
                self.drawn_at = len(self.history) - 1
        if purpose == "investigate":
            self._investigated(p, card)
        elif purpose == "peek":
            self.peeked.append(card)
            if len(self.peeked) < self.peek_want and self.decks[p]:
                self._chance(p, "peek")
                return
            top = self.peeked
            if len(top) <= 1:
                self.decks[p].put_on_top(top)
                self.peeked = []
                self._finish_event()
            else:
                ids = self.rules.ids
                self.actor = p
                self._ask(TARGET, sorted({Act("order", tuple(ids[c] for c in perm)) for perm in itertools.permutations(top)}))
        elif purpose == "scout":
            r = self.rules
            if r.is_alice[card]:
                self.decks[p].put_under([card], ordered=True)
            else:
                self.memos[p].append(card)
            self._finish_event()
        else:  # reveal: the top card goes to the memo whatever it is
            self.memos[p].append(card)
            self._finish_event()

    # ---- flow ------------------------------------------------------------------------------

    def _ask(self, phase: str, options: list[str]) -> None:
        self.phase = phase
        self.options = options
        self._legal = None

    def _start_investigation(self, p: int) -> None:
        r = self.rules
        self.turn = self.actor = p
        self.events_used = 0
        if self.turns[p] >= r.max_turns:
            self._finish("cold-case")      # decision turn-limit
            return
        self.turns[p] += 1
        if not self.decks[p] and r.lose_on_empty_deck:
            self._lose(p, "deck-empty")
            return
        ids = r.ids
        plays = [A("play", ids[c]) for c in self.memos[p] if not r.is_alice[c]]
        if not self.decks[p]:
            if plays:       # only reachable when an empty deck does not lose
                self._ask(INVESTIGATE, plays)
            else:
                self._lose(p, "deck-empty")
            return
        if plays:
            plays.append(DRAW_A)
            self._ask(INVESTIGATE, plays)
        else:
            self._draw(p)

    def _draw(self, p: int) -> None:
        self._chance(p, "investigate")

    def _investigated(self, p: int, card: int) -> None:
        r = self.rules
        if not r.is_alice[card]:
            if len(self.memos[p]) >= r.memo_limit:
                self.records[p].append(card)
                self._start_event(p)
            else:
                self.pending = card
                self._ask(PLACE, [MEMO_A, RECORD_A])
            return
        self.pending = card
        if self.n > 1 and self.changes_left[p] > 0 and self.profiles[p] is not None:
            self._ask(PROFILE_CHANGE, [CHANGE_A, KEEP_A])
            return
        self._offer_force(p, card)

    def _offer_force(self, p: int, card: int) -> None:
        r = self.rules
        if self.n > 1 and r.forced_events:
            opp = 1 - p
            targets = [A("force", r.ids[c]) for c in self.memos[opp] if r.is_alice[c]]
            if targets:
                targets.append(NOFORCE_A)
                self.actor = p
                self._ask(FORCE, targets)
                return
        self._resolve_alice(p, card)

    def _resolve_alice(self, p: int, card: int) -> None:
        r = self.rules
        self.actor = p
        if self.drawn_at is not None:      # step (3) of versus-forced-event-timing: the Alice is shown
            self.reveal((self.drawn_at,))
            self.drawn_at = None
        if r.is_suspect[card]:
            colour = r.colour[card]
            if any(r.solved(rec, colour) for rec in self.records):
                # solved: she is the culprit and stays in play, beside the record
                self.pending = card
                self.culprit = colour
                self._finish("solved")
                return
        self._place_alice(p, card)

    def _place_alice(self, p: int, card: int) -> None:
        r = self.rules
        memo = self.memos[p]
        self.pending = card
        if len(memo) >= r.memo_limit:
            room = [c for c in memo if not r.is_alice[c]]
            if len(room) > 1:
                self.actor = p
                self._ask(MAKE_ROOM, [A("discard", r.ids[c]) for c in room])
                return
            if not room:  # pragma: no cover - impossible while memo_limit >= alices_to_lose
                raise InvariantError("a full memo of Alice cards should already have lost")
            memo.remove(room[0])
            self.discards[p].append(room[0])
        self.pending = None
        memo.append(card)
        if sum(1 for c in memo if r.is_alice[c]) >= r.alices_to_lose:
            self._lose(p, "three-alices")
            return
        self._start_event(p)

    def _start_event(self, p: int) -> None:
        self.actor = p
        r = self.rules
        memo = self.memos[p]
        if not memo or self.events_used >= r.events_per_phase:
            self._end_turn(p)
            return
        opts = [A("event", r.ids[c]) for c in memo]
        if r.event_may_pass:
            opts.append(PASS_A)
        self._ask(EVENT, opts)

    def _end_turn(self, p: int) -> None:
        self._start_investigation((p + 1) % self.n)

    # ---- events ----------------------------------------------------------------------------

    def _use_event(self, owner: int, card: int, forced: bool) -> None:
        """Resolve the event of `card` from `owner`'s memo (forced: made to by the opponent)."""
        r = self.rules
        self.memos[owner].remove(card)       # decision event-slot: it leaves the memo at once
        self.ev_card = card
        self.ev_owner = owner
        self.ev_forced = forced
        if not forced:
            self.events_used += 1
        self.actor = owner
        kind = r.event[card]
        ids = r.ids
        record = self.records[owner]
        deck = self.decks[owner]
        if kind == "discard_record_colour":
            colour = r.event_colour[card]
            targets = sorted({c for c in record if r.colour[c] == colour})
            self._event_choice([A("target", ids[c]) for c in targets])
        elif kind == "discard_record_colour_all":
            colour = r.event_colour[card]
            gone = [c for c in record if r.colour[c] == colour]
            record[:] = [c for c in record if r.colour[c] != colour]
            self.discards[owner].extend(gone)
            self._finish_event()
        elif kind == "discard_record_last":
            if record:
                self.discards[owner].append(record.pop())
            self._finish_event()
        elif kind == "swap_adjacent":
            self._event_choice([A("swap", ids[c]) for c in record[:-1]])
        elif kind == "record_last_to_memo":
            if record:
                self.memos[owner].append(record.pop())
            self._finish_event()
        elif kind == "peek_reorder":
            # the top cards are drawn one by one (chance, seen by their owner) and put back in
            # the order the owner chooses
            if len(deck) <= 1:
                self._finish_event()
            else:
                self.peeked = []
                self.peek_want = min(r.peek_count, len(deck))
                self._chance(owner, "peek")
        elif kind == "scout_top":
            if deck:
                self._chance(owner, "scout")
            else:
                self._finish_event()
        elif kind == "reveal_top_to_memo":
            # decision event-kinds: the top card goes to the memo whatever it is (an Alice too;
            # no solution check). The card being used has left the memo, so there is room.
            if deck:
                self._chance(owner, "reveal")
            else:
                self._finish_event()
        elif kind == "recover_discard":
            targets = sorted(set(self.discards[owner]))
            self._event_choice([A("recover", ids[c]) for c in targets])
        else:  # pragma: no cover
            raise InvariantError(f"unknown event {kind}")

    def _event_choice(self, options: list[str]) -> None:
        if not options:
            self._finish_event()
        elif len(options) == 1:
            self._resolve_target(options[0])
        else:
            self._ask(TARGET, options)

    def _resolve_target(self, action) -> None:
        r = self.rules
        owner = self.ev_owner
        head, args = action
        if head == "target":
            card = r.index[args[0]]
            self.records[owner].remove(card)
            self.discards[owner].append(card)
        elif head == "swap":
            rec = self.records[owner]
            i = rec.index(r.index[args[0]])
            rec[i], rec[i + 1] = rec[i + 1], rec[i]
        elif head == "recover":
            card = r.index[args[0]]
            self.discards[owner].remove(card)
            self.decks[owner].put_under([card], ordered=True)
        elif head == "order":
            self.decks[owner].put_on_top([r.index[x] for x in args])
            self.peeked = []
            if self.n > 1:      # it names the peeked cards, which only their owner saw
                self.hidden_moves[len(self.history) - 1] = (owner,)
        self._finish_event()

    def _finish_event(self) -> None:
        r = self.rules
        card = self.ev_card
        owner = self.ev_owner
        self.ev_card = None
        if r.is_alice[card]:
            self.decks[owner].shuffle_in([card])     # shuffled back: the deck is unordered again
        else:
            self.discards[owner].append(card)
        if sum(1 for c in self.memos[owner] if r.is_alice[c]) >= r.alices_to_lose:
            self._lose(owner, "three-alices")     # an event put a third Alice in the memo
            return
        if self.ev_forced:
            self.ev_forced = False
            self._resolve_alice(self.turn, self.pending)
        else:
            self._start_event(owner)

    # ---- endings ---------------------------------------------------------------------------

    def _lose(self, p: int, reason: str) -> None:
        self.loser = p
        self._finish(reason)

    def _finish(self, ending: str) -> None:
        if self.drawn_at is not None:      # a forced event lost the game: the drawn Alice is shown
            self.reveal((self.drawn_at,))
            self.drawn_at = None
        self.ending = ending
        self.phase = OVER
        self.options = []
        self._legal = []
        if self.n == 1:
            self.winners_ = (0,) if ending == "solved" else ()
            return
        self.winners_ = self._versus_winners()

    def _versus_winners(self) -> tuple[int, ...]:
        """decision versus-end: a player who meets a loss condition (empty deck, three Alices in
        the memo) loses: 「山が尽きるか、メモに３枚アリスが溜まると敗北」. The one exception is the
        source's: a Nuisance profile wins when a memo holds three suspect Alices, even her own.
        Otherwise whoever meets their profile's win condition wins (both: a draw); if nobody
        does, the scores decide among the players who have not lost."""
        r = self.rules
        three_suspects = any(sum(1 for c in m if r.is_suspect[c]) >= r.nuisance_suspects for m in self.memos)
        nuisance = [p for p in range(self.n) if r.kind[self.profiles[p]] == "nuisance"]
        loser = self.loser
        if loser in nuisance and three_suspects:
            loser = None                   # the Nuisance's exception: her own memo makes her win, not lose
        met = []
        for p in range(self.n):
            prof = self.profiles[p]
            kind = r.kind[prof]
            if kind == "nuisance" and three_suspects:
                met.append(p)
                continue
            if p == loser:
                continue                   # a player who meets a loss condition loses
            if kind == "suspect":
                ok = self.culprit is not None and self.culprit == r.colour[prof]
            elif kind == "detective":
                ok = loser is not None and loser != p
            else:
                ok = False
            if ok:
                met.append(p)
        if met:
            return tuple(met)
        alive = [p for p in range(self.n) if p != loser]
        scores = self.scores()
        best = max(scores[p] for p in alive)
        return tuple(p for p in alive if scores[p] == best)

    def scores(self) -> tuple[int, ...]:
        r = self.rules
        if self.n == 1:
            return (r.solo_score(self.records[0]) if self.ending == "solved" else 0,)
        return tuple(r.versus_score(self.records[p], self.profiles[p]) for p in range(self.n))

    def public_view(self) -> dict:
        """What both players see (seats numbered from 1): records, memos, discards, deck sizes,
        the turn counts, the event being resolved, and the ending."""
        r = self.rules
        ids = r.ids
        solo = self.n == 1
        return {
            "seats": [{"seat": p + 1, "deck": len(self.decks[p]), "record": [ids[c] for c in self.records[p]],
                       "memo": [ids[c] for c in self.memos[p]], "discard": [ids[c] for c in self.discards[p]],
                       "profile_changes_left": self.changes_left[p] if not solo else 0,
                       "deck_known_bottom": [ids[c] for c in self._known_bottom(p)]}
                      for p in range(self.n)],
            "turn": self.turn + 1, "turns": list(self.turns),
            # versus: the drawn Alice is shown only after the profile change and the forced event
            "pending": ids[self.pending] if self.pending is not None and (solo or self.phase in (PLACE, MAKE_ROOM, OVER)) else None,
            "event": {"card": ids[self.ev_card], "seat": self.ev_owner + 1} if self.ev_card is not None else None,
            "ending": self.ending, "culprit": self.culprit,
            "loser": self.loser + 1 if self.loser is not None else None,
        }

    def _known_bottom(self, p: int) -> list[int]:
        layers = self.decks[p].layers
        if len(layers) > 1 and layers[-1][0]:
            return layers[-1][1][:]
        return []

    def private_view(self, seat: int) -> dict:
        r = self.rules
        ids = r.ids
        out: dict = {"profile": ids[self.profiles[seat]] if seat < self.n and self.profiles[seat] is not None else None,
                     "deck_cards": sorted(ids[c] for c in self.decks[seat].cards()) if seat < self.n else [],
                     "drawn": ids[self.pending] if self.pending is not None and self.turn == seat else None,
                     "peeked": [ids[c] for c in self.peeked] if self.ev_owner == seat else []}
        return out

    def summary(self) -> dict:
        out = super().summary()
        out["profiles"] = [self.rules.ids[c] if c is not None else None for c in self.profiles]
        return out

    def result(self) -> GameResult:
        if self.phase != OVER:
            raise core.IllegalAction("the game is not over")
        r = self.rules
        details: dict = {
            "record_sizes": [len(rec) for rec in self.records],
            "links": [r.link_length(rec) for rec in self.records],
            "culprit": self.culprit,
        }
        if self.n > 1:
            details["profiles"] = [r.ids[c] if c is not None else None for c in self.profiles]
            details["loser"] = self.loser
        success = self.ending == "solved" if self.n == 1 else None
        return GameResult(self.scores(), self.winners_, len(self.history), success, self.ending, details,
                          core.count_decisions(self.history))

    # ---- zones and invariants ----------------------------------------------------------------

    def zones(self) -> Mapping[str, list[str]]:
        ids = self.rules.ids
        out: dict[str, list[str]] = {}
        for p in range(self.n):
            pre = f"p{p}." if self.n > 1 else ""
            out[pre + "deck"] = [ids[c] for c in self.decks[p].cards()]
            out[pre + "record"] = [ids[c] for c in self.records[p]]
            out[pre + "memo"] = [ids[c] for c in self.memos[p]]
            out[pre + "discard"] = [ids[c] for c in self.discards[p]]
            out[pre + "profile"] = [ids[self.profiles[p]]] if self.profiles[p] is not None else []
        held = []
        if self.pending is not None:
            held.append((self.turn, self.pending))
        if self.ev_card is not None:
            held.append((self.ev_owner, self.ev_card))
        held.extend((self.ev_owner, c) for c in self.peeked)
        for p in range(self.n):
            pre = f"p{p}." if self.n > 1 else ""
            out[pre + "in_play"] = [ids[c] for owner, c in held if owner == p]
        return out

    def check_invariants(self) -> None:
        """Card conservation per set: each player's zones hold exactly one copy of every card."""
        if self.n == 1:
            super().check_invariants()
        else:
            zones = self.zones()
            expected = Counter(self.rules.ids)
            for p in range(self.n):
                seen: Counter[str] = Counter()
                for name, cards in zones.items():
                    if name.startswith(f"p{p}."):
                        seen.update(cards)
                if seen != expected:
                    raise InvariantError(f"card conservation broken in set {p + 1}: missing {sorted((expected - seen).elements())[:6]}, extra {sorted((seen - expected).elements())[:6]}")
        r = self.rules
        for p in range(self.n):
            if len(self.memos[p]) > r.memo_limit:
                raise InvariantError(f"memo of seat {p} holds {len(self.memos[p])} cards, limit {r.memo_limit}")
            if any(r.is_alice[c] for c in self.records[p]):
                raise InvariantError("an Alice card is in the record")
            if any(r.is_alice[c] for c in self.discards[p]):
                raise InvariantError("an Alice card is in the discard pile")

    def describe(self, action) -> str:
        return f"seat {self.actor}: {action}" if isinstance(action, str) else repr(action)

    # ---- what a player may know ------------------------------------------------------------

    def unseen(self, p: int) -> list[int]:
        """Cards seat `p` cannot see (their deck, as a multiset; the order is hidden)."""
        return list(self.decks[p])


# ==== policies ================================================================================

from .bots import RandomPolicy  # noqa: E402  (the shared Policy protocol and the uniform bot)


class _Seen:
    """What a seat knows, read from its Observation (the heuristic's working view)."""

    def __init__(self, obs: core.Observation, rules: Rules) -> None:
        index = rules.index
        pub, own = obs.public, obs.private
        seats = pub["seats"]
        self.phase = obs.phase
        self.actor = obs.seat
        self.records = [[index[c] for c in s["record"]] for s in seats]
        self.memos = [[index[c] for c in s["memo"]] for s in seats]
        self.discards = [[index[c] for c in s["discard"]] for s in seats]
        self.profiles = [index[own["profile"]] if p == obs.seat and own["profile"] else None for p in range(len(seats))]
        drawn = own["drawn"] or pub["pending"]
        self.pending = index[drawn] if drawn else None
        self.ev_owner = pub["event"]["seat"] - 1 if pub["event"] else obs.seat
        self._deck = [index[c] for c in own["deck_cards"]]

    def unseen(self, p: int) -> list[int]:
        return list(self._deck)


class HeuristicPolicy:
    """A sensible detective: builds one same-colour run at a time, keeps off-colour cards in the
    memo, returns Alices to the deck before they pile up, and uses events to fix the record.

    It reads only public zones (records, memos, discards), its own profile, the card it has
    just drawn and the cards an event shows it, and the set's card list. It never reads the
    deck order or the opponent's profile.
    """

    name = "heuristic"

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._cache: dict[tuple, float] = {}

    # -- evaluation ---------------------------------------------------------------------------

    def _target_colours(self, state: State, p: int) -> list[str]:
        """Colours worth building, best first: suspect still drawable, or our profile's colour."""
        r = self.rules
        prof = state.profiles[p]
        if prof is not None and r.is_suspect[prof]:
            return [r.colour[prof]]
        in_memo = {r.colour[c] for c in state.memos[p] if r.is_suspect[c]}
        cols = [r.colour[c] for c in r.alices if r.is_suspect[c]]
        return [c for c in cols if c not in in_memo] + [c for c in cols if c in in_memo]

    def _tail(self, record: list[int]) -> tuple[str | None, set]:
        r = self.rules
        if not record:
            return None, set()
        colour = r.colour[record[-1]]
        icons: set = set()
        for c in reversed(record):
            if r.colour[c] != colour:
                break
            icons.add(r.icon[c])
        return colour, icons

    def _value(self, state: State, p: int, record: list[int], memo: list[int]) -> float:
        """Static value of a (hypothetical) record and memo for seat p: a function of the record,
        the memo and the seat's profile alone, so it is remembered (a search agent's rollouts
        meet the same ones again and again)."""
        prof = state.profiles[p]
        key = (prof, tuple(record), tuple(memo))
        cache = self._cache
        value = cache.get(key)
        if value is None:
            if len(cache) >= 200_000:
                cache.clear()
            value = cache[key] = self._evaluate(prof, record, memo)
        return value

    def _evaluate(self, prof: int | None, record: list[int], memo: list[int]) -> float:
        r = self.rules
        if prof is not None and r.is_suspect[prof]:
            targets = {r.colour[prof]: 1.0}
        else:
            # a solved colour is worth less while her suspect sits in the memo (she cannot be drawn)
            targets = {r.colour[c]: (0.6 if c in memo else 1.0) for c in r.alices if r.is_suspect[c]}
        value = 0.0
        solved = set()
        for colour, weight in targets.items():
            if r.solved(record, colour):
                value += 10.0 * weight
                solved.add(colour)
        colour, icons = self._tail(record)
        if colour is not None:
            if colour in targets and colour not in solved:
                value += 3.0 * targets[colour] * len(icons & set(r.solve_icons))
            elif colour not in targets:
                value -= 1.0
        value += 0.3 * len(record) + 0.5 * r.link_bonus_for(r.link_length(record))
        alices = sum(1 for c in memo if r.is_alice[c])
        if alices >= r.alices_to_lose:
            value -= 100.0
        elif alices == r.alices_to_lose - 1:
            value -= 6.0
        else:
            value -= 1.5 * alices
        for c in memo:
            if not r.is_alice[c] and colour is not None and r.colour[c] == colour and r.icon[c] not in icons:
                value += 1.0
        return value

    # -- choice ------------------------------------------------------------------------------

    def choose(self, obs: core.Observation, legal: list, rng: random.Random):
        if len(legal) == 1:
            return legal[0]
        return self.choose_state(_Seen(obs, self.rules), legal, rng)

    def choose_state(self, state: "State | _Seen", legal: list, rng: random.Random):
        """The same choice read from a state (or a `_Seen`): the fast path for a search agent's
        rollouts, which play on a state the agent sampled itself (never the real game's). It
        reads the same fields `_Seen` offers: phase, actor, records, memos, discards, the
        actor's own profile, pending, ev_owner and unseen(p)."""
        if len(legal) == 1:
            return legal[0]
        r = self.rules
        phase = state.phase
        p = state.actor
        record = state.records[p]
        memo = state.memos[p]
        if phase == SETUP_PROFILE:
            # a suspect profile gives same-colour points; pick the first suspect offered
            sus = [a for a in legal if r.is_suspect[r.index[a.args[0]]]]
            return rng.choice(sus or legal)
        if phase == PLACE:
            card = state.pending
            a = self._value(state, p, record + [card], memo)
            b = self._value(state, p, record, memo + [card]) - 0.5 * (len(memo) + 1 >= r.memo_limit)
            return RECORD_A if a >= b else MEMO_A
        if phase == INVESTIGATE:
            best, best_v = DRAW_A, self._value(state, p, record, memo) + 0.4
            for a in legal:
                if a.kind == "play":
                    c = r.index[a.args[0]]
                    m = list(memo)
                    m.remove(c)
                    v = self._value(state, p, record + [c], m)
                    if v > best_v:
                        best, best_v = a, v
            return best
        if phase == MAKE_ROOM:
            colour, icons = self._tail(record)
            def keep(a: Act) -> tuple:
                c = r.index[a.args[0]]
                return (r.colour[c] == colour and r.icon[c] not in icons, r.colour[c] in self._target_colours(state, p), a)
            return min(legal, key=keep)
        if phase == EVENT:
            return self._choose_event(state, p, legal)
        if phase == TARGET:
            return self._choose_target(state, legal)
        if phase == PROFILE_CHANGE:
            return self._profile_change(state, p)
        if phase == FORCE:
            return self._force(state, p, legal)
        return rng.choice(legal)

    def _force(self, state: State, p: int, legal: list[str]) -> str:
        """Force an opponent's Alice event only to break a solved run of a colour that is not ours
        (forcing also helps them: the Alice leaves their memo)."""
        r = self.rules
        opp = 1 - p
        prof = state.profiles[p]
        mine = r.colour[prof] if prof is not None and r.is_suspect[prof] else None
        record = state.records[opp]
        threats = [c for c in {r.colour[x] for x in record} if c != mine and r.solved(record, c)]
        if not threats:
            return NOFORCE_A
        for a in legal:
            if a.kind == "noforce":
                continue
            c = r.index[a.args[0]]
            kind = r.event[c]
            if kind == "discard_record_colour":
                col = r.event_colour[c]
                options = [self._without(record, x) for x in record if r.colour[x] == col]
            elif kind == "discard_record_last" and record:
                options = [record[:-1]]
            elif kind == "discard_record_colour_all":
                options = [[x for x in record if r.colour[x] != r.event_colour[c]]]
            else:
                continue
            # the opponent picks the target: it must break every threat whatever they choose
            if options and all(not any(r.solved(o, t) for t in threats) for o in options):
                return a
        return NOFORCE_A

    def _profile_change(self, state: State, p: int) -> str:
        """Keep or change the profile for the Alice just drawn (only she and our profile are known)."""
        r = self.rules
        drawn, prof = state.pending, state.profiles[p]

        def culprit(card: int) -> str | None:
            if r.is_suspect[card] and any(r.solved(rec, r.colour[card]) for rec in state.records):
                return r.colour[card]
            return None

        keep_culprit, change_culprit = culprit(drawn), culprit(prof)
        mine = r.colour[prof] if r.is_suspect[prof] else None
        if keep_culprit is not None:
            if keep_culprit == mine:
                return KEEP_A                     # she is our culprit: win now
            # she would be named, and not ours: take her as our profile instead if that names nobody
            return CHANGE_A if change_culprit is None else KEEP_A
        if change_culprit is not None:
            return KEEP_A                         # changing would name our old profile as the culprit
        if r.is_suspect[drawn]:
            def progress(colour: str | None) -> int:
                if colour is None:
                    return -1
                best = cur = 0
                seen: set = set()
                for c in state.records[p]:
                    if r.colour[c] == colour:
                        seen.add(r.icon[c])
                        cur = len(seen)
                    else:
                        seen, cur = set(), 0
                    best = max(best, cur)
                return best + sum(1 for c in state.records[p] if r.colour[c] == colour) // 3
            if progress(r.colour[drawn]) > progress(mine):
                return CHANGE_A
        return KEEP_A

    def _choose_event(self, state: State, p: int, legal: list[str]) -> str:
        r = self.rules
        record = state.records[p]
        memo = state.memos[p]
        alices = [c for c in memo if r.is_alice[c]]
        base = self._value(state, p, record, memo)
        best, best_v = PASS_A, base
        for a in legal:
            if a.kind == "pass":
                continue
            c = r.index[a.args[0]]
            m = list(memo)
            m.remove(c)
            kind = r.event[c]
            rec = record
            v_gain = 0.0
            if kind == "discard_record_colour":
                col = r.event_colour[c]
                cands = [x for x in record if r.colour[x] == col]
                if cands:
                    rec = max((self._without(record, x) for x in cands), key=lambda rr: self._value(state, p, rr, m))
            elif kind == "discard_record_last" and record:
                rec = record[:-1]
            elif kind == "discard_record_colour_all":
                rec = [x for x in record if r.colour[x] != r.event_colour[c]]
            elif kind == "record_last_to_memo" and record:
                rec = record[:-1]
                m = m + [record[-1]]
            elif kind == "swap_adjacent" and len(record) > 1:
                rec = max((self._swapped(record, i) for i in range(len(record) - 1)), key=lambda rr: self._value(state, p, rr, m))
            elif kind == "scout_top":
                v_gain = 0.6
            elif kind == "peek_reorder":
                v_gain = 0.5
            elif kind == "recover_discard":
                v_gain = 0.1 if state.discards[p] else 0.0
            if kind == "reveal_top_to_memo":
                # the deck as a multiset is known: weigh an Alice against an investigation card
                deck = state.unseen(p)
                p_alice = sum(1 for x in deck if r.is_alice[x]) / len(deck) if deck else 0.0
                some_alice = next((x for x in deck if r.is_alice[x]), None)
                v_alice = self._value(state, p, rec, m + [some_alice]) if some_alice is not None else 0.0
                v = p_alice * v_alice + (1 - p_alice) * (self._value(state, p, rec, m) + 0.6)
            else:
                v = self._value(state, p, rec, m) + v_gain
            if r.is_alice[c]:
                v += 0.5            # getting an Alice back into the deck keeps her drawable
            else:
                v -= 0.8            # an investigation card in the memo is worth keeping
            if v > best_v + 1e-9:
                best, best_v = a, v
        if best.kind == "pass" and len(alices) >= r.alices_to_lose - 1:
            # danger: use any Alice event rather than risk a third
            for a in legal:
                if a.kind != "pass" and r.is_alice[r.index[a.args[0]]]:
                    return a
        return best

    def _choose_target(self, state: State, legal: list[str]) -> str:
        r = self.rules
        p = state.ev_owner
        record = state.records[p]
        memo = state.memos[p]
        head = legal[0].kind
        if head == "target":
            return max(legal, key=lambda a: (self._value(state, p, self._without(record, r.index[a.args[0]]), memo), a))
        if head == "swap":
            return max(legal, key=lambda a: (self._value(state, p, self._swapped(record, record.index(r.index[a.args[0]])), memo), a))
        if head == "recover":
            targets = self._target_colours(state, p)
            return max(legal, key=lambda a: (r.colour[r.index[a.args[0]]] in targets, a))
        if head == "order":
            # drawn first: a suspect whose colour is solved, then useful investigation cards; Alices last
            colour, icons = self._tail(record)

            def rank(c: int) -> float:
                if r.is_suspect[c] and r.solved(record, r.colour[c]):
                    return 3.0
                if r.is_alice[c]:
                    return -3.0
                if r.colour[c] == colour and r.icon[c] not in icons:
                    return 2.0
                return 0.0

            def key(a: Act):
                cards = [r.index[x] for x in a.args]
                return (tuple(rank(c) for c in cards), a)

            return max(legal, key=key)
        return legal[0]

    @staticmethod
    def _without(record: list[int], card: int) -> list[int]:
        out = list(record)
        out.remove(card)
        return out

    @staticmethod
    def _swapped(record: list[int], i: int) -> list[int]:
        out = list(record)
        out[i], out[i + 1] = out[i + 1], out[i]
        return out


POLICIES: dict[str, Callable[[Rules], object]] = {
    "random": RandomPolicy,
    "heuristic": HeuristicPolicy,
}


# ==== checks ==================================================================================

def setup_checks(game: Game) -> list[CheckResult]:
    """Composition arithmetic: the link table covers every reachable link, solutions exist."""
    here = game.where
    problems = parameter_problems(game)
    if problems:
        return [CheckResult(f"parameter-{name}", False, message, here(name) or here("game.yaml")) for name, message in problems]
    try:
        rules = Rules(game, 1, "solo")
    except ValueError as exc:
        return [CheckResult("setup", False, f"the solo game cannot be set up: {exc}", here("game.yaml"))]
    out: list[CheckResult] = []
    longest = rules.max_link()
    table = rules.link_bonus
    top = table[-1][1] if table else 0
    out.append(CheckResult(
        "link-table-covers", longest <= top,
        f"longest possible link {longest} cards (icons {dict(Counter(rules.icon[c] for c in rules.investigations))}); the bonus table reaches {top}",
        here("link_bonus"),
    ))
    gaps = [f"{a[1]}→{b[0]}" for a, b in zip(table, table[1:]) if b[0] != a[1] + 1]
    increasing = all(b[2] >= a[2] for a, b in zip(table, table[1:]))
    out.append(CheckResult(
        "link-table-contiguous", not gaps and increasing,
        "link bonus rows run without gaps and never decrease" if not gaps and increasing else f"gaps {gaps}, non-decreasing {increasing}",
        here("link_bonus"),
    ))
    suspects = [c for c in rules.alices if rules.is_suspect[c]]
    unsolvable = []
    for s in suspects:
        colour = rules.colour[s]
        icons = {rules.icon[c] for c in rules.investigations if rules.colour[c] == colour}
        if not all(i in icons for i in rules.solve_icons):
            unsolvable.append(rules.ids[s])
    first = next((c.location for c in game.cards if unsolvable and c.id == unsolvable[0]), here("cards.yaml"))
    out.append(CheckResult(
        "suspects-solvable", not unsolvable and bool(suspects),
        f"{len(suspects)} suspects, each colour has investigation cards with every crime icon" if not unsolvable else f"no full icon set for {unsolvable}",
        first,
    ))
    alices = len(rules.alices)
    out.append(CheckResult(
        # how the memo limit relates to the Alices that lose is parameter_problems' to say
        "memo-limit", rules.alices_to_lose <= alices,
        f"memo limit {rules.memo_limit}, {rules.alices_to_lose} Alices lose, {alices} Alice cards in the deck",
        here("alices_in_memo_to_lose"),
    ))
    lo, hi = rules.score_range()
    out.append(CheckResult(
        "score-range", hi == len(rules.investigations) * rules.points_per_record_card + max(b for _, _, b in table),
        f"solo scores {lo}–{hi}: {len(rules.investigations)} record cards + top link bonus",
        here("link_bonus"),
    ))
    return out


# --- positions (cardgen.engine.position reads the file; this builds the state) ---

def _alice_state(rules: Any, data: Mapping[str, Any]) -> core.State:
    """A position of this game (see cardgen.engine.position): phase investigate|event|place; to_act
    (whose turn); zones record, memo, discard {seat: [...]} (solo: a list), profile {seat: card};
    decks deck {seat: [...]} (solo: a list); counters turns {seat: investigation phases already
    played}, changes_left {seat: n}, events_used; pending card (the card being placed). Each seat's
    set is complete: its cards not placed are in its deck."""
    b = PositionBuilder(rules, data, ["investigate", "event", "place"],
                 zones={"record", "memo", "discard", "profile"}, decks={"deck"},
                 counters={"turns", "changes_left", "events_used"}, pending={"card"}, copies=rules.sets)
    n = rules.sets
    solo = n == 1
    s = rules.new_initial_state()
    s.history = []
    s.hidden_moves = {}
    ix = rules.index

    def per_seat(key: str) -> dict[int, Any]:
        value = b.get("zones" if key != "deck" else "decks", key)
        if solo and isinstance(value, list):
            return {0: value}
        return b.per_seat(("zones" if key != "deck" else "decks", key), value, n)

    sets: list[Counter] = [Counter({c: 1 for c in rules.ids}) for _ in range(n)]

    def take(path: tuple, p: int, cards: Any) -> list[int]:
        out = []
        for i, c in enumerate(b.cards(path, cards)):
            if not sets[p][c]:
                raise PositionError(path + (i,), f"{c} is placed twice in seat {p + 1}'s set")
            sets[p][c] -= 1
            out.append(ix[c])
        return out

    s.records = [[] for _ in range(n)]
    s.memos = [[] for _ in range(n)]
    s.discards = [[] for _ in range(n)]
    for key, attr in (("record", "records"), ("memo", "memos"), ("discard", "discards")):
        for p, cards in per_seat(key).items():
            getattr(s, attr)[p] = take(("zones", key, p + 1), p, cards)
    for p, card in b.per_seat(("zones", "profile"), b.get("zones", "profile"), n).items():
        got = take(("zones", "profile", p + 1), p, [card])[0]
        if not rules.is_alice[got]:
            raise PositionError(("zones", "profile", p + 1), f"{card} is not an Alice card")
        s.profiles[p] = got
    pending = None
    if b.has("pending", "card"):
        p = b.to_act or 0
        pending = take(("pending", "card"), p, [b.get("pending", "card")])[0]
    tops = per_seat("deck")
    decks = []
    for p in range(n):
        top_ids, rest_ids = b.deck(("decks", "deck", p + 1), tops.get(p))
        for c in top_ids + rest_ids:
            if not sets[p][c]:
                raise PositionError(("decks", "deck", p + 1), f"{c} is placed twice in seat {p + 1}'s set")
            sets[p][c] -= 1
        top = [ix[c] for c in top_ids]
        rest = [ix[c] for c in rest_ids] + [ix[c] for c in sorted(sets[p].elements())]
        decks.append(position_deck(top, rest))
    s.decks = decks
    for p, v in b.per_seat(("counters", "turns"), b.get("counters", "turns"), n).items():
        s.turns[p] = b.number(("counters", "turns", p + 1), v, 0, rules.max_turns)
    for p, v in b.per_seat(("counters", "changes_left"), b.get("counters", "changes_left"), n).items():
        s.changes_left[p] = b.number(("counters", "changes_left", p + 1), v, 0, 100)
    if not solo and any(prof is None for prof in s.profiles):
        raise PositionError(("zones", "profile"), "versus: give each seat's profile card")
    seat = b.to_act or 0
    s.pending = None
    s.ev_card = None
    s.peeked = []
    s.ending = None
    s.culprit = None
    s.loser = None
    s.winners_ = ()
    s._legal = None
    if sum(1 for c in s.memos[seat] if rules.is_alice[c]) >= rules.alices_to_lose:
        raise PositionError(("zones", "memo"), f"{rules.alices_to_lose} Alices in a memo have already lost")
    if len(s.memos[seat]) > rules.memo_limit:
        raise PositionError(("zones", "memo"), f"a memo holds at most {rules.memo_limit} cards")
    if b.phase == "investigate":
        s._start_investigation(seat)
    elif b.phase == "event":
        s.turn = s.actor = seat
        s.events_used = b.number(("counters", "events_used"), b.get("counters", "events_used", 0), 0, 100)
        s._start_event(seat)
    else:
        if pending is None or rules.is_alice[pending]:
            raise PositionError(("pending", "card"), "phase place needs the investigation card being placed")
        s.turn = s.actor = seat
        s.events_used = 0
        s.pending = pending
        s._ask(PLACE, [MEMO_A, RECORD_A])
    return checked_state(s)


# What cardgen reads off the Rules class that the entry point names (see cardgen.registry).
Rules.POLICIES = POLICIES
Rules.setup_checks = staticmethod(setup_checks)
