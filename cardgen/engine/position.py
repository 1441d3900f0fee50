"""Positions: a described situation of a game that a test, `replay --from` or a designer starts from.

A position is YAML (or the same data as a dict, for `Rules.from_position(data)`):

    game: llll               # the game id (or folder)
    players: 3
    variant: standard        # optional
    phase: ally              # the pending decision (each game's names below)
    to_act: 1                # the seat to decide, numbered from 1 (optional where the rules find it)
    zones:    {...}          # face-up and private zones: card ids
    decks:    {...}          # face-down piles: a list is a known order, top first;
                             # {unordered: [...]} is a shuffled pile (each draw a chance node)
    counters: {...}          # numbers the rules keep (round, action points, urges ...)
    pending:  {...}          # details of the pending decision (the auction, ...)

Every physical card is in exactly one zone: a card the position does not place goes to the
game's main face-down pile (shuffled, under any cards listed in known order), so a position
names only what matters. Seats are numbered from 1 everywhere in a position, slots from 1.

Per game (keys not listed are refused):

- llll: phase pick|bid|raise|take|ally|noble|deal; zones set_aside, castle (one entry per slot,
  null for an empty slot), face_down (castle slots dealt face down), allies {seat: [...]},
  scores {seat: [...]}, secret (face-down score cards), tapped; decks deck; counters round,
  ap [per seat], won [seats], passed [seats], first_passer, last_winner, princess_uses
  {card: n}; pending slot, high_bid, high_bidder, in_auction [seats], noble_user.
- requiem: phase prince|scout|retreat|rally|sortie|rescue (to_act optional: the first seat
  with a choice is asked, as the rules do); zones lines {seat: [...]}, tapped, arrival [per
  slot], revealed, interception {slot: [seat, card]}, mage_area, princes, damage,
  enemy_retreat, enemy_dead, ally_dead; decks city, enemy_decks [per slot, top first];
  counters turn, acted [seats], defence (slot), covenants {prince: seat}. Unplaced allies go
  to the city deck, unplaced enemies into the enemy decks (shuffled, dealt round-robin).
- alice: phase investigate|event|place; to_act (whose turn); zones record, memo, discard
  {seat: [...]} (solo: a list), profile {seat: card}; decks deck {seat: [...]} (solo: a
  list); counters turns {seat: investigation phases already played}, changes_left {seat: n},
  events_used; pending card (the card being placed). Each seat's set is complete: its cards
  not placed are in its deck.
- ohanatsumi: phase round (a round starts: quests are revealed) | adventure (cards are
  opened in turn order); zones offer, quest {seat: card}, rows {seat: [[...] per character]},
  opened {seat: [n per character]}, completed {seat: [...]}, held {seat: [...]},
  quest_discard, flower_discard, flower_discard_face_down; decks quest_deck, event_deck,
  flower_deck; counters round, final, urge {seat: [per character]}, order [seats],
  status {seat: ...}, last_fame {seat: n}, accidents {seat: n}, breaks {seat: n}.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..errors import DataError
from ..io import limits
from ..io.reader import SchemaReader, display_path
from ..io.schema import Int, Str, validate
from ..load import load_game
from . import core

TOP_KEYS = {"game", "players", "variant", "phase", "to_act", "zones", "decks", "counters", "pending"}
SECTIONS = ("zones", "decks", "counters", "pending")


class PositionError(ValueError):
    """A position that does not describe a state of its game; `path` names the key (for the line)."""

    def __init__(self, path: tuple, message: str) -> None:
        super().__init__(f"{'.'.join(map(str, path))}: {message}" if path else message)
        self.path = path
        self.message = message


class PositionFileError(DataError):
    """A position file that cannot be read (file, line and column)."""


# --- reading ------------------------------------------------------------------------------------

def load_position(path: str | Path) -> tuple[Any, core.State, dict]:
    """Read a position file and build its state: (rules, state, data). Problems are raised as
    PositionFileError at the file, line and column of the key that is wrong."""
    path = Path(path)
    shown = display_path(path)
    r = SchemaReader()
    node = r.read(path, shown)
    _raise(r)
    entries = r.mapping(node, "position", {"game", "players"}, TOP_KEYS)
    _raise(r)
    assert entries is not None
    data: dict[str, Any] = {}
    for name, (_, value) in entries.items():
        if name == "game":
            data[name] = validate(r, value, Str(), "game")
        elif name == "players":
            data[name] = validate(r, value, Int(1, limits.MAX_PLAYERS), "players")
        elif name in ("variant", "phase"):
            data[name] = validate(r, value, Str(), name)
        elif name == "to_act":
            data[name] = validate(r, value, Int(1, limits.MAX_PLAYERS), "to_act")
        else:
            if r.mapping(value, name, set(), None) is not None:
                data[name] = r.plain(value)
    _raise(r)
    try:
        game = load_game(data["game"])
    except DataError as exc:
        r.error(entries["game"][1], f"the position's game '{data['game']}' cannot be loaded: {exc.problems[0]}")
        _raise(r)
    from . import engine_module
    module = engine_module(game)
    if module is None or not hasattr(module, "Rules"):
        r.error(entries["game"][1], f"{game.id} has no rules engine, so it has no positions")
        _raise(r)
    try:
        rules = module.Rules(game, data["players"], data.get("variant", "standard"))
    except ValueError as exc:
        at = entries["variant"][1] if "variant" in entries else entries["players"][1]
        r.error(at, f"{game.id} cannot be set up for this position: {exc}")
        _raise(r)
    try:
        state = rules.from_position(data)
    except PositionError as exc:
        r.error(_node_at(node, exc.path) or node, f"position: {exc}")
        _raise(r)
    return rules, state, data


def _raise(r: SchemaReader) -> None:
    if r.problems:
        raise PositionFileError(list(r.problems))


def _node_at(node: Any, path: tuple) -> Any:
    """The YAML node at a key path (as deep as it exists)."""
    import yaml
    found = node
    for key in path:
        if isinstance(found, yaml.MappingNode):
            nxt = next((v for k, v in found.value if str(k.value) == str(key)), None)
        elif isinstance(found, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(found.value):
            nxt = found.value[key]
        else:
            nxt = None
        if nxt is None:
            return found
        found = nxt
    return found


# --- shared checks -------------------------------------------------------------------------------

class _Builder:
    """Reads a position's sections for one game, tracking which physical cards are placed."""

    def __init__(self, rules: Any, data: Mapping[str, Any], phases: Iterable[str], zones: Iterable[str],
                 decks: Iterable[str], counters: Iterable[str], pending: Iterable[str] = (),
                 copies: int = 1) -> None:
        if not isinstance(data, Mapping):
            raise PositionError((), "a position must be a mapping with game, players, phase, zones, decks ...")
        self.rules = rules
        self.data = data
        unknown = sorted(set(map(str, data)) - TOP_KEYS)
        if unknown:
            raise PositionError((unknown[0],), f"unknown key; allowed: {', '.join(sorted(TOP_KEYS))}")
        game = rules.game
        if "game" in data and data["game"] not in (game.id, str(getattr(game, "root", ""))):
            pass  # a folder path names the game too; the caller chose the Rules
        if "players" in data and data["players"] != rules.players:
            raise PositionError(("players",), f"is {data['players']}, but these rules are for {rules.players}")
        if "variant" in data and data["variant"] != rules.variant:
            raise PositionError(("variant",), f"is {data['variant']!r}, but these rules play {rules.variant!r}")
        self.phases = tuple(phases)
        phase = data.get("phase", self.phases[0])
        if phase not in self.phases:
            raise PositionError(("phase",), f"'{phase}' is not a phase of {game.id}; choose from {', '.join(self.phases)}")
        self.phase = phase
        allowed = {"zones": set(zones), "decks": set(decks), "counters": set(counters), "pending": set(pending)}
        self.sections: dict[str, Mapping[str, Any]] = {}
        for name in SECTIONS:
            section = data.get(name) or {}
            if not isinstance(section, Mapping):
                raise PositionError((name,), "must be a mapping")
            for key in section:
                if key not in allowed[name]:
                    raise PositionError((name, key), f"unknown key; allowed: {', '.join(sorted(allowed[name])) or 'none'}")
            self.sections[name] = section
        self.known = Counter({card.id: copies for card in game.cards})
        self.placed: Counter = Counter()
        to_act = data.get("to_act")
        if to_act is not None and not (isinstance(to_act, int) and 1 <= to_act <= rules.players):
            raise PositionError(("to_act",), f"must be a seat from 1 to {rules.players}")
        self.to_act = None if to_act is None else to_act - 1

    def get(self, section: str, key: str, default: Any = None) -> Any:
        return self.sections[section].get(key, default)

    def has(self, section: str, key: str) -> bool:
        return key in self.sections[section]

    # values

    def cards(self, path: tuple, value: Any, place: bool = True) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise PositionError(path, "must be a list of card ids")
        out = []
        for i, card in enumerate(value):
            if not isinstance(card, str) or card not in self.known:
                raise PositionError(path + (i,), f"'{card}' is not a card of {self.rules.game.id}")
            if place:
                self.placed[card] += 1
                if self.placed[card] > self.known[card]:
                    raise PositionError(path + (i,), f"{card} is placed more than once; every card is in one zone")
            out.append(card)
        return out

    def deck(self, path: tuple, value: Any) -> tuple[list[str], list[str]]:
        """(known top cards, top first; shuffled cards) of a deck entry."""
        if value is None:
            return [], []
        if isinstance(value, Mapping):
            extra = set(value) - {"top", "unordered"}
            if extra:
                raise PositionError(path, "a deck is a list (top first) or {top: [...], unordered: [...]}")
            return self.cards(path + ("top",), value.get("top")), self.cards(path + ("unordered",), value.get("unordered"))
        return self.cards(path, value), []

    def seat(self, path: tuple, value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= self.rules.players:
            raise PositionError(path, f"must be a seat from 1 to {self.rules.players}")
        return value - 1

    def seats(self, path: tuple, value: Any) -> list[int]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise PositionError(path, "must be a list of seats (numbered from 1)")
        return [self.seat(path + (i,), v) for i, v in enumerate(value)]

    def per_seat(self, path: tuple, value: Any, n: int | None = None) -> dict[int, Any]:
        """{seat: value} from a mapping keyed by seats from 1, or a list with one entry a seat."""
        if value is None:
            return {}
        if isinstance(value, list):
            if n is not None and len(value) != n:
                raise PositionError(path, f"must list one entry per seat ({n})")
            return dict(enumerate(value))
        if not isinstance(value, Mapping):
            raise PositionError(path, "must be a mapping of seat (from 1) to a value, or a list per seat")
        return {self.seat(path + (k,), _int_key(k)): v for k, v in value.items()}

    def number(self, path: tuple, value: Any, low: int = 0, high: int = limits.MAX_INT) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise PositionError(path, f"must be a whole number from {low} to {high}")
        return value

    def unplaced(self) -> list[str]:
        return sorted((self.known - self.placed).elements())


def _int_key(k: Any) -> Any:
    if isinstance(k, str) and k.isdigit():
        return int(k)
    return k


def _deck(top: list, rest: list) -> core.Deck:
    deck = core.Deck(rest)
    deck.put_on_top(top)
    return deck


# --- llll ----------------------------------------------------------------------------------------

def llll_state(rules: Any, data: Mapping[str, Any]) -> core.State:
    from . import llll as L
    phases = {"pick": L.PICK, "bid": L.BID, "raise": L.RAISE, "take": L.TAKE, "ally": L.ALLY, "noble": L.NOBLE, "deal": L.DEAL}
    b = _Builder(rules, data, ["ally", "pick", "bid", "raise", "take", "noble", "deal"],
                 zones={"set_aside", "castle", "face_down", "allies", "scores", "secret", "tapped"},
                 decks={"deck"},
                 counters={"round", "ap", "won", "passed", "first_passer", "last_winner", "princess_uses"},
                 pending={"slot", "high_bid", "high_bidder", "in_auction", "noble_user"})
    n = rules.players
    s = L.State(rules, core.Deck(), deal=False)
    s.aside = b.cards(("zones", "set_aside"), b.get("zones", "set_aside"))
    castle = b.get("zones", "castle")
    if castle is not None:
        if not isinstance(castle, list) or len(castle) != n:
            raise PositionError(("zones", "castle"), f"must list {n} slots (a card id or null each)")
        for i, c in enumerate(castle):
            s.castle[i] = b.cards(("zones", "castle", i), c)[0] if c is not None else None
    if b.has("zones", "face_down"):
        slots = b.get("zones", "face_down") or []
        s.hidden = [False] * n
        for i, k in enumerate(slots):
            s.hidden[b.number(("zones", "face_down", i), k, 1, n) - 1] = True
    elif any(c is not None for c in s.castle):
        s.hidden = [i >= n - rules.face_down for i in range(n)]
    for seat, cards in b.per_seat(("zones", "allies"), b.get("zones", "allies"), n).items():
        s.allies[seat] = b.cards(("zones", "allies", seat + 1), cards)
    for seat, cards in b.per_seat(("zones", "scores"), b.get("zones", "scores"), n).items():
        s.scores[seat] = b.cards(("zones", "scores", seat + 1), cards)
    s.secret = set(b.cards(("zones", "secret"), b.get("zones", "secret"), place=False))
    for c in s.secret:
        owner = next((p for p in range(n) if c in s.scores[p]), None)
        if owner is None:
            raise PositionError(("zones", "secret"), f"{c} is not a score card")
        s.peeked[owner].add(c)
    in_play = {c for a in s.allies for c in a}
    s.tapped = set(b.cards(("zones", "tapped"), b.get("zones", "tapped"), place=False))
    for c in s.tapped:
        if c not in in_play:
            raise PositionError(("zones", "tapped"), f"{c} is not an ally in play")
    top, rest = b.deck(("decks", "deck"), b.get("decks", "deck"))
    s.deck = _deck(top, rest + b.unplaced())
    s.round = b.number(("counters", "round"), b.get("counters", "round", 1), 1, rules.rounds)
    ap = b.get("counters", "ap")
    if ap is not None:
        s.ap = [b.number(("counters", "ap", i), v) for i, v in b.per_seat(("counters", "ap"), ap, n).items()] \
            if isinstance(ap, list) else [b.number(("counters", "ap"), ap.get(p + 1, rules.start_ap)) for p in range(n)]
    for p in b.seats(("counters", "won"), b.get("counters", "won")):
        s.won[p] = True
    for p in b.seats(("counters", "passed"), b.get("counters", "passed")):
        s.passed[p] = True
    if b.has("counters", "first_passer"):
        s.first_passer = b.seat(("counters", "first_passer"), b.get("counters", "first_passer"))
    elif any(s.passed):
        s.first_passer = s.passed.index(True)
    if b.has("counters", "last_winner"):
        s.last_winner = b.seat(("counters", "last_winner"), b.get("counters", "last_winner"))
    uses = b.get("counters", "princess_uses") or {}
    s.princess_uses = {b.cards(("counters", "princess_uses"), [c], place=False)[0]: b.number(("counters", "princess_uses", c), k)
                       for c, k in uses.items()}
    s.after_deal = L.ALLY
    s.aside_left = 0
    phase = phases[b.phase]
    current = b.to_act if b.to_act is not None else 0
    if phase == L.DEAL:
        s.castle = [None] * n
        s.after_deal = L.PICK
        s._deal_castle()
        if s.phase != L.DEAL:
            raise PositionError(("decks", "deck"), f"holds too few cards to deal a castle of {n}")
        s.after_deal = L.PICK if s.round == 1 and not any(s.won) else L.ALLY
        s.history = []
        return _checked(s)
    if phase in (L.PICK, L.BID, L.RAISE, L.TAKE):
        if phase != L.PICK:
            slot = b.number(("pending", "slot"), b.get("pending", "slot", 0), 1, n) - 1
            if s.castle[slot] is None:
                raise PositionError(("pending", "slot"), "the auctioned slot is empty")
            s.slot = slot
            s.high_bid = b.number(("pending", "high_bid"), b.get("pending", "high_bid", 0))
            s.high_bidder = b.seat(("pending", "high_bidder"), b.get("pending", "high_bidder", current + 1)) \
                if phase != L.BID else current
            auction = b.get("pending", "in_auction")
            s.in_auction = [False] * n
            for p in (b.seats(("pending", "in_auction"), auction) if auction is not None else [q for q in range(n) if not s.won[q]]):
                s.in_auction[p] = True
        s.phase = phase
        s.current = current
        if phase == L.PICK and s.won.count(False) == 1:
            s._start_auction(current)
    elif phase == L.NOBLE:
        s.noble_user = b.seat(("pending", "noble_user"), b.get("pending", "noble_user"))
        s.phase = phase
        s.current = current
        if len(s.scores[current]) < 2:
            raise PositionError(("to_act",), "the Noble's target chooses among two or more score cards")
    else:
        s.phase = L.ALLY
        s.current = current
        s._settle_ally_turn()
    return _checked(s)


def _checked(state: core.State) -> core.State:
    try:
        state.check_invariants()
    except core.InvariantError as exc:
        raise PositionError(("zones",), str(exc)) from None
    return state


# --- requiem ---------------------------------------------------------------------------------------

def requiem_state(rules: Any, data: Mapping[str, Any]) -> core.State:
    from . import requiem as Q
    phases = {"scout": Q.SCOUT, "retreat": Q.RETREAT, "rally": Q.RALLY, "sortie": Q.SORTIE, "rescue": Q.RESCUE, "prince": Q.PRINCE}
    b = _Builder(rules, data, ["scout", "retreat", "rally", "sortie", "rescue", "prince"],
                 zones={"lines", "tapped", "arrival", "revealed", "interception", "mage_area", "princes", "damage",
                        "enemy_retreat", "enemy_dead", "ally_dead"},
                 decks={"city", "enemy_decks"},
                 counters={"turn", "acted", "defence", "covenants"})
    n = rules.players
    slots = rules.slots
    s = Q.State(rules, None, setup=False)
    s.pool = core.Deck()
    s.enemy = core.Deck()
    s.enemy_count = [0] * slots
    s.mage_area = []
    s.princes = []
    for seat, cards in b.per_seat(("zones", "lines"), b.get("zones", "lines"), n).items():
        s.lines[seat] = b.cards(("zones", "lines", seat + 1), cards)
    arrival = b.get("zones", "arrival")
    if arrival is not None:
        if not isinstance(arrival, list) or len(arrival) != slots:
            raise PositionError(("zones", "arrival"), f"must list {slots} slots (an enemy card or null each)")
        s.arrival = [b.cards(("zones", "arrival", k), c)[0] if c is not None else None for k, c in enumerate(arrival)]
    inter = b.get("zones", "interception") or {}
    if not isinstance(inter, Mapping):
        raise PositionError(("zones", "interception"), "must map a slot (from 1) to [seat, card]")
    for k, entry in inter.items():
        slot = b.number(("zones", "interception", k), _int_key(k), 1, slots) - 1
        if not isinstance(entry, list) or len(entry) != 2:
            raise PositionError(("zones", "interception", k), "must be [seat, card]")
        s.owner[slot] = b.seat(("zones", "interception", k, 0), entry[0])
        s.intercept[slot] = b.cards(("zones", "interception", k, 1), [entry[1]])[0]
    for name, attr in (("mage_area", "mage_area"), ("princes", "princes"), ("damage", "damage"),
                       ("enemy_retreat", "enemy_retreat"), ("enemy_dead", "enemy_dead"), ("ally_dead", "ally_dead")):
        setattr(s, attr, b.cards(("zones", name), b.get("zones", name)))
    in_lines = {c for line in s.lines for c in line}
    s.tapped = set(b.cards(("zones", "tapped"), b.get("zones", "tapped"), place=False))
    for c in s.tapped:
        if c not in in_lines:
            raise PositionError(("zones", "tapped"), f"{c} is not in a line")
    s.revealed = set(b.cards(("zones", "revealed"), b.get("zones", "revealed"), place=False))
    for c in s.revealed:
        if c not in s.arrival:
            raise PositionError(("zones", "revealed"), f"{c} is not an arrival")
    city_top, city_rest = b.deck(("decks", "city"), b.get("decks", "city"))
    decks = b.get("decks", "enemy_decks")
    if decks is not None:
        if not isinstance(decks, list) or len(decks) != slots:
            raise PositionError(("decks", "enemy_decks"), f"must list {slots} decks (top first)")
        for k, d in enumerate(decks):
            s.enemy_known[k] = b.cards(("decks", "enemy_decks", k), d)[::-1]
    rest = b.unplaced()
    if b.phase == "prince" and not b.has("zones", "princes"):
        s.princes = [c for c in rules.princes if c in rest]
    if not b.has("zones", "mage_area"):
        s.mage_area = [c for c in rules.mages if c in rest and c not in s.princes]
    taken = set(s.princes) | set(s.mage_area)
    enemies = [c for c in rest if rules.side[c] == "enemy"]
    s.city = _deck(city_top, city_rest + [c for c in rest if rules.side[c] != "enemy" and c not in taken])
    s.enemy = core.Deck(enemies)
    s.enemy_count = [len(range(k, len(enemies), slots)) for k in range(slots)]
    s.turn = b.number(("counters", "turn"), b.get("counters", "turn", 1), 0)
    for p in b.seats(("counters", "acted"), b.get("counters", "acted")):
        s.acted[p] = True
    if b.has("counters", "defence"):
        s.defence = b.number(("counters", "defence"), b.get("counters", "defence"), 1, slots) - 1
    cov = b.get("counters", "covenants") or {}
    s.covenants = {c: b.seat(("counters", "covenants", c), v) for c, v in cov.items()}
    phase = phases[b.phase]
    s.phase = phase
    if phase == Q.PRINCE:
        s.current = b.to_act if b.to_act is not None else 0
    elif b.to_act is not None:
        s.current = b.to_act
        if len(s._actions(b.to_act, phase)) <= 1 and phase != Q.RETREAT:
            raise PositionError(("to_act",), f"seat {b.to_act + 1} has no choice in phase {phase}")
    else:
        s._next_seat(0)
    s.history = []
    return _checked(s)


# --- alice -------------------------------------------------------------------------------------------

def alice_state(rules: Any, data: Mapping[str, Any]) -> core.State:
    from . import alice as AL
    b = _Builder(rules, data, ["investigate", "event", "place"],
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
        decks.append(_deck(top, rest))
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
        s._ask(AL.PLACE, [AL.MEMO_A, AL.RECORD_A])
    return _checked(s)


# --- ohanatsumi --------------------------------------------------------------------------------------

def ohanatsumi_state(rules: Any, data: Mapping[str, Any]) -> core.State:
    from . import ohanatsumi as O
    b = _Builder(rules, data, ["round", "adventure"],
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
    s.qdeck, s.edeck, s.fdeck = (_deck(*decks[k]) for k in ("quest_deck", "event_deck", "flower_deck"))
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
    statuses = (None, O.SUCCESS_NO_BREAK, O.FAILED, O.SUCCESS_BREAK)
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
        s.phase = O.CHOOSE
        s._start_round()
        s._run()
    else:
        s.phase = O.CHOOSE
        s.adv = 0
        s.queue = [("call", "_adventure")]
        s._run()
    return _checked(s)
