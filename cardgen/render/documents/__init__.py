"""Documents: rulebooks, standard-deck sheets, playtest kits and balance reports, and the page kit they share."""
