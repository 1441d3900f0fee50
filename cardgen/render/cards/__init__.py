"""One card face from a layout: boxes, icons, text, the faces of a game, PNG and TTS images."""
