"""Programs for people: the ``euchre`` command line, terminal play and the web table (the top layer)."""
