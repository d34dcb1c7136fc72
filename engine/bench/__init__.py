"""The engine's benchmarks: workloads timed as medians of several runs, each returning its figures as a dict.

``engine bench ...`` (:mod:`engine.cli.bench`) runs them and prints the figures;
``timing`` holds the shared measuring helpers.
"""
