"""Hostile clients for the front ends: fuzzed input, and the check that every command got one answer, in order.

A :class:`Script` is what a client sends: each fuzzed line followed by a
*probe*, a valid command whose answer is known (GTP ``protocol_version``,
Gomocup ``ABOUT``, a JSON ``query_version`` action), so that whatever comes
between two probes' answers answers the one fuzzed line between them; then a
few valid commands whose answers must be right (a move on the board, an
analysis of the position). Fuzzed lines mix valid commands, commands with
random arguments, valid commands with random edits, random bytes and hostile
lines (over-long, control characters, invalid UTF-8, deep JSON, NaN); none
ends the conversation (``quit``, ``END``).

:meth:`FrontEnd.check` reads a front end's output against its script: a
command the protocol answers must get exactly one well-formed answer before
the next probe's (echoing its id), one it does not answer (an empty line, a
``BOARD`` line, a JSON query's results come later) none; JSON analyses are
counted by query id and turn. ``engine bench fuzz`` sends 100,000 fuzzed
lines into each real process; the tests drive the sessions in process, with
hypothesis as the random source (:func:`make_script` takes any
:class:`random.Random`).
"""

from bench.fuzz.analysis_client import AnalysisFuzz
from bench.fuzz.gomocup_client import GomocupFuzz
from bench.fuzz.gtp_client import GtpFuzz
from bench.fuzz.process import ProcessReport, engine_argv, fuzz_process
from bench.fuzz.script import FrontEnd, Script, Verdict, make_script, mutate

__all__ = ["Script", "Verdict", "FrontEnd", "GtpFuzz", "GomocupFuzz", "AnalysisFuzz", "make_script", "mutate",
           "ProcessReport", "fuzz_process", "engine_argv"]
