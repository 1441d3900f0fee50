"""Limits on what a game folder may ask for: each a named constant, each far above what a real
game needs (the bundled games use a few per cent of each), so that a hostile or broken file
is refused with a message instead of hanging or exhausting memory."""

from __future__ import annotations

# Files
MAX_FILE_BYTES = 4 * 1024 * 1024  # any one YAML, Markdown or spreadsheet file read from a game folder
MAX_UNPACKED_BYTES = 32 * 1024 * 1024  # an xlsx/ods workbook's parts once unzipped (a zip bomb stops here)
MAX_SHEET_ROWS = 10_000  # rows of a card-list sheet (one per card type or card, blank rows included)
MAX_SHEET_COLUMNS = 200  # columns of a card-list sheet (ohanatsumi exports 30)
MAX_YAML_NODES = 200_000  # values in one YAML file after alias expansion (ohanatsumi's cards: ~3,000)
MAX_YAML_DEPTH = 40  # nesting of mappings and lists
# Game data
MAX_CARDS = 2_000  # physical cards in one game (ohanatsumi: 130)
MAX_CARD_TYPES = 500
MAX_PLAYERS = 20
MAX_TEXT_CHARS = 4_000  # one card or rule text
MAX_ID_CHARS = 40  # card, type and game ids: short enough for every file system's name limit
MAX_INT = 1_000_000  # any whole number in the data without a tighter declared range
# Geometry
MIN_CARD_MM = 20.0
MAX_CARD_MM = 300.0  # a card's width or height (tarot is 120 mm)
MAX_IMAGE_PIXELS = 40_000_000  # one raster image drawn or written (a 10x7 TTS sheet is ~8.5 Mpx)
MAX_FONT_BYTES = 32 * 1024 * 1024  # one font file of a game folder; IPAex Gothic is 6 MB, a full CJK font 20 MB
MAX_ART_BYTES = 32 * 1024 * 1024  # one art or icon file (PNG, JPEG, SVG); full-bleed 600 dpi art is ~10 MB
MAX_SVG_SEGMENTS = 250_000  # path segments (coordinate pairs) of one SVG art or icon file: converting one
# costs about 10 s per million, and a detailed traced illustration has some tens of thousands
MAX_FACE_SEGMENTS = 1_000_000  # path segments of the SVG art and icons one card face draws, each use counted:
# a rasteriser (the PNG and TTS outputs) redraws a form at every use; the bundled faces draw a few hundred
# Templates
MAX_TEMPLATE_OUTPUT = 1_000_000  # characters one template may produce
MAX_TEMPLATE_RANGE = 10_000  # range() inside a template
MAX_TEMPLATE_SECONDS = 10.0  # wall time of one template render in the main thread
