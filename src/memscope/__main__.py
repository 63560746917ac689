"""Allows ``python -m memscope``."""

from memscope.cli import main

main()
