"""``python -m epistream``: the same as the ``epistream`` console script."""

from epistream.cli import main

main()
