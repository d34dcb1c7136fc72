"""The tests' GTP peers: the library's one client (:mod:`training.gtp_client`) and its GNU Go command line.

Imported by the rules tests that check legality, scoring and handicap against
GNU Go; the client itself, with its deadlines and pipelining, is the library's.
"""

from __future__ import annotations

from training.gtp_client import GTPClient, GTPError, GTPTimeout, gnugo_argv

__all__ = ["GTPClient", "GTPError", "GTPTimeout", "gnugo_argv"]
