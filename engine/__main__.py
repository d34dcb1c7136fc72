"""``python -m engine``: the ``engine`` command without its installed script."""

from engine.cli import main

main()
