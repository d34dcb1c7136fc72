"""Protocol front ends over the engine: GTP for GUIs and match tools, Gomocup for Gomoku managers, KataGo's JSON
analysis protocol for KaTrain and batch analysis.

Run a GTP session over any binary streams::

    from engine import PlayerConfig
    from gtp import FrontEndConfig, serve
    config = FrontEndConfig(size=9, player=PlayerConfig(visits=400, threat_guard=True))
    serve(config, sys.stdin.buffer, sys.stdout.buffer)

Modules: ``protocol`` (the GTP codec; no engine import), ``registry`` (the
command table), ``session`` (streams, reader thread, dispatch, streamed
analysis), ``commands`` / ``analysis`` / ``gogui`` (the handlers),
``state`` (configuration, game, player, clocks), ``timecontrol``, ``errors``
(engine exceptions to GTP messages), ``gomocup`` (the Piskvork protocol),
``kata_json`` / ``kata_config`` / ``kata_session`` (KataGo's JSON analysis protocol: codec, config, session).
The commands that start them (``engine gtp``, ``engine gomocup``, ``engine analysis``) are in
:mod:`engine.cli.play`. Names load lazily, so importing ``gtp`` is cheap.
"""

from __future__ import annotations

from engine.lazy import lazy_getattr

__all__ = ["FrontEndConfig", "EngineState", "serve", "build_registry", "Session", "Registry", "GtpError",
           "TimeControl", "TimeSettings", "play_gomocup", "AnalysisConfig", "AnalysisSession"]

_HOMES = {
    "FrontEndConfig": "gtp.state",
    "EngineState": "gtp.state",
    "serve": "gtp.commands",
    "build_registry": "gtp.commands",
    "Session": "gtp.session",
    "Registry": "gtp.registry",
    "GtpError": "gtp.protocol",
    "TimeControl": "gtp.timecontrol",
    "TimeSettings": "gtp.timecontrol",
    "play_gomocup": "gtp.gomocup",
    "AnalysisConfig": "gtp.kata_config",
    "AnalysisSession": "gtp.kata_session",
}


__getattr__ = lazy_getattr("gtp", _HOMES)
