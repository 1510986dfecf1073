"""Hidden-partner research (five-handed): labelled datasets, a learned belief, and the partner benchmark."""
