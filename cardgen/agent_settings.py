"""What each generic agent's first setting counts, and its default: the one table that
`cardgen.engine.agents` parses policy names with and `cardgen.words` prints them by.

It sits below both (plain data, no imports) so that the interface words need not import the engine.
"""

from __future__ import annotations

DEFAULT_ITERATIONS = 200
DEFAULT_SAMPLES = 64           # rollout: sampled futures per decision
# Each agent and what its first setting counts, with its default: search iterations per move, or
# (the rollout agent) sampled futures per decision. words.policy_label prints the count by it.
COUNTS = {"ismcts": ("iterations", DEFAULT_ITERATIONS), "ismcts-keep": ("iterations", DEFAULT_ITERATIONS),
          "rollout": ("samples", DEFAULT_SAMPLES), "openspiel-ismcts": ("iterations", DEFAULT_ITERATIONS),
          "openspiel-mcts": ("iterations", DEFAULT_ITERATIONS)}


def counted(kind: str) -> str:
    """What an agent's first setting counts ("iterations" or "samples"); "iterations" for any other name."""
    return COUNTS[kind][0] if kind in COUNTS else "iterations"
