"""Game records and boards as text: SGF files (``sgf``) and ASCII diagrams (``diagram``)."""
