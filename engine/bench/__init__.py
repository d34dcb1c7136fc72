"""The engine's benchmarks, each an ``engine bench`` subcommand that prints a median of several runs.

The group itself is in :mod:`engine.cli` (it also names the encoder and self-play benchmarks of
the packages above the engine); ``timing`` holds the shared measuring and reporting helpers.
"""
