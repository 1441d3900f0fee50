"""The public engine API: everything a rules plugin may import, and nothing else.

A game's rules are an installed distribution that declares an entry point in the group
``cardgen.engines`` (``crazy-eights = crazy_eights_rules:Rules``) naming a `Rules` subclass.
A plugin imports **only** from this module (``from cardgen.engine.api import ...``) and from
`cardgen.testing` in its tests; every other module of cardgen is private and may change
without notice. The names below keep their meaning across cardgen's minor versions.

What a plugin writes:

- a `Rules` subclass: ``engine_id``, ``max_actions`` (the termination bound), ``action_type``
  (its `Action` subclass), ``new_initial_state()``, ``score_range()`` and ``action_kinds()``
  (every action kind with the ordered domain of each argument; `ActionSpace` numbers them);
- a `State` subclass, usually on `TableState`: cards live in `Table` zones with a declared
  `Visibility`, and the observations are derived from them, so a hidden card cannot leak by a
  forgotten mask; draws from a shuffled pile are chance nodes by construction
  (`TableState.draw`). `TurnOrder`, `PhaseCycle`, `ScoringTable`, `winners` and `choose_n`
  are the bookkeeping most games repeat;
- on the `Rules` class (what cardgen reads off the class the entry point names):
  ``PARAMETERS`` (a `Map` of the schema types below: the rule numbers game.yaml must give; the
  loader refuses a missing or out-of-range one at its line), ``POLICIES`` (name -> factory
  ``Rules -> Policy``; "random" is always there), and optionally ``setup_checks(game)`` /
  ``claim_checks(game)`` (static methods returning `CheckResult`s: setup arithmetic, the claims
  the rules make) for ``cardgen check``.

Policies (bots) see only an `Observation` and the legal actions (see `Policy`); chance is
never theirs: a state's chance nodes list their outcomes and the driver (`play`) draws them
from one seeded random source.
"""

from __future__ import annotations

from ..io.schema import Bool, Dict, Int, List, Map, Num, OneOf, Spec, Str
from ..model import Card, CheckResult, Game
from .bots import FirstPolicy, Policy, RandomPolicy
from .choices import choose_n
from .core import (CHANCE, CHANCE_PHASE, OVER, TERMINAL, Action, ActionSpace, ChoiceState, Deck, GameResult,
                   IllegalAction, InvariantError, Observation, Rules, State, play, resolve_chance, sample_chance)
from .scoring import ScoringTable, winners
from .turns import PhaseCycle, TurnOrder, rotate
from .zones import Table, TableState, Visibility, Zone

__all__ = [
    # rules, states and actions
    "Rules", "State", "ChoiceState", "TableState", "Action", "ActionSpace", "GameResult", "Observation",
    "CHANCE", "TERMINAL", "OVER", "CHANCE_PHASE", "IllegalAction", "InvariantError",
    # chance and driving a game
    "Deck", "sample_chance", "resolve_chance", "play",
    # building blocks
    "Table", "Zone", "Visibility", "TurnOrder", "PhaseCycle", "rotate", "ScoringTable", "winners", "choose_n",
    # bots
    "Policy", "RandomPolicy", "FirstPolicy",
    # parameters (the schema types of PARAMETERS) and checks/claims
    "Spec", "Map", "Dict", "Int", "Num", "Bool", "Str", "List", "OneOf", "CheckResult",
    # the game data a Rules is built from
    "Game", "Card",
]
