"""Protocol front ends over the engine: GTP for GUIs and match tools, Gomocup for Gomoku managers, KataGo's JSON
analysis protocol for KaTrain and batch analysis.

Run a GTP session over any binary streams::

    from engine import PlayerConfig
    from gtp import FrontEndConfig, serve
    config = FrontEndConfig(size=9, player=PlayerConfig(visits=400, threat_guard=True))
    serve(config, sys.stdin.buffer, sys.stdout.buffer)

Modules: ``protocol`` (the GTP codec; no engine import), ``registry`` (the
command table), ``session`` (streams, reader thread, dispatch, streamed
analysis), ``commands`` / ``analysis`` / ``kata`` / ``rawnn`` / ``gogui`` (the handlers),
``params`` (KataGo's runtime parameters onto the config), ``state`` (configuration, game, player,
clocks), ``timecontrol``, ``errors`` (engine exceptions to GTP messages), ``gomocup`` (the Piskvork protocol),
``kata_json`` / ``kata_config`` / ``kata_session`` (KataGo's JSON analysis protocol: codec, config, session).
The commands that start them (``engine gtp``, ``engine gomocup``, ``engine analysis``) are in
:mod:`engine.cli.play`. Names load lazily, so importing ``gtp`` is cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy import lazy_getattr

if TYPE_CHECKING:
    from gtp.commands import build_registry, serve
    from gtp.gomocup import play_gomocup
    from gtp.kata_config import AnalysisConfig
    from gtp.kata_session import AnalysisSession
    from gtp.protocol import GtpError
    from gtp.registry import Registry
    from gtp.session import Session
    from gtp.state import EngineState, FrontEndConfig
    from gtp.timecontrol import TimeControl, TimeSettings

__all__ = [
    "FrontEndConfig", "EngineState", "serve", "build_registry", "Session", "Registry", "GtpError", "TimeControl",
    "TimeSettings", "play_gomocup", "AnalysisConfig", "AnalysisSession",
]

__getattr__ = lazy_getattr(__name__, __file__)
