"""cardgen: print-and-play card games from YAML, with a rules engine that checks them."""

__version__ = "0.1.0"
