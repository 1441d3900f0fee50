"""Rendering: card faces (card.py, layout.py, icons.py), sheets, print-shop files, PNGs, rulebooks."""
