"""Everything that reads a game folder: the one schema reader (YAML with positions and limits),
path resolution inside the folder or the bundled templates, and the one Jinja sandbox.

A game folder is untrusted input; nothing outside this package opens a file a game names.
"""
