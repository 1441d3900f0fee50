"""Bots: policies over observations and legal actions.

A policy is any object with `choose(observation, legal_actions, rng) -> action` that returns
one of `legal_actions`. It is given only what its seat may know (a `core.Observation`: plain
data, no way back to the state, the deck or another seat's hand) and draws its own randomness
from the `rng` it is given, never from the chance source, so that a record replays the same
chance events whatever the policies did. A policy that reads nothing but the legal actions sets
`needs_observation = False` and is given None instead of an observation (the fast path of
random play). Each engine's Rules class offers `POLICIES`, a mapping from a name to a
factory `Rules -> Policy`; "random" is always there.
"""

from __future__ import annotations

import random
from typing import Callable, Mapping, Protocol, Sequence, runtime_checkable

from .core import Action, Observation, Rules


@runtime_checkable
class Policy(Protocol):
    name: str

    def choose(self, observation: Observation | None, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        """Return one of `legal_actions`."""
        ...


class RandomPolicy:
    """Uniform over the legal actions."""

    name = "random"
    needs_observation = False

    def __init__(self, rules: Rules | None = None) -> None:
        self.rules = rules

    def choose(self, observation, legal_actions, rng: random.Random) -> Action:
        return legal_actions[int(rng.random() * len(legal_actions))]


class FirstPolicy:
    """Always the first legal action: deterministic, useful in tests."""

    name = "first"
    needs_observation = False

    def __init__(self, rules: Rules | None = None) -> None:
        self.rules = rules

    def choose(self, observation, legal_actions, rng: random.Random) -> Action:
        return legal_actions[0]


PolicyFactory = Callable[[Rules], Policy]


def policy_names(engine: type[Rules]) -> list[str]:
    """The bots an engine (its Rules class) declares in POLICIES, and random."""
    return sorted({"random", *engine.POLICIES})


def make_policy(engine: type[Rules], name: str, rules: Rules) -> Policy:
    """Build the named bot of an engine (its Rules class); 'random' and 'first' work for every game."""
    table: Mapping[str, PolicyFactory] = {"random": RandomPolicy, "first": FirstPolicy, **engine.POLICIES}
    try:
        factory = table[name]
    except KeyError:
        raise KeyError(f"no policy {name!r} for {rules.game.id}; choose from {', '.join(sorted(table))}") from None
    policy = factory(rules)
    if not getattr(policy, "name", None):
        try:
            policy.name = name  # type: ignore[misc]
        except AttributeError:
            pass
    return policy
