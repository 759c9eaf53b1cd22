"""``python -m epistream.cli``: the same as the ``epistream`` console script."""

from epistream.cli import main

main()
