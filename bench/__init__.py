"""Measurement: the workloads of ``engine bench ...``, timed as medians of several runs, each returning its
figures as a dict, and the front ends' hostile clients (:mod:`bench.fuzz`).

A layer of its own above the ones it measures (the rules core, search, network, front ends and training), so it
may import any of them and none of them imports it. ``engine bench ...`` (:mod:`engine.cli.bench`) runs the
workloads and prints the figures; ``timing`` holds the shared measuring helpers.
"""
