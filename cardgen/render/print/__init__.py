"""Putting faces on paper: imposition (simplex, duplex, gutterfold), crop marks, print-shop PDFs, tuck boxes."""
