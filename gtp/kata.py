"""KataGo's GTP extensions beyond analysis (its docs/GTP_Extensions.md): rules, runtime parameters, time systems,
the cache, pondering and the model.

``kata-get-rules`` answers KataGo's JSON rules form (keys sorted, as KataGo writes them)::

    {"friendlyPassOk":true,"hasButton":false,"ko":"SIMPLE","scoring":"AREA","suicide":false,"tax":"NONE",
     "whiteHandicapBonus":"0"}

``tax`` is ``SEKI`` under territory scoring (no points in the eyes of chains in seki) and ``NONE`` under area
scoring; ``whiteHandicapBonus`` is the rules' own (:func:`engine.core.scoring.handicap_bonus_rule`: ``N`` under
Chinese rules, ``N-1`` under AGA's, ``0`` otherwise). ``kata-set-rules`` takes that form or one of KataGo's
shorthand names (``chinese``, ``japanese``, ``tromp-taylor``, ``aga``, ...; :func:`gtp.kata_json.parse_rules`)
and keeps the komi and the game, which is replayed under the new rules; a JSON bonus other than the rules' own,
a button, stone scoring or Spight ko is refused. ``kgs-rules`` takes kgsGtp's four names (``chinese`` is
``chinese-kgs``). Rules are Go's: in
another game these commands are refused.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from engine import EngineError, Rules, handicap_bonus_rule
from gtp.kata_json import model_entry, parse_rules
from gtp.params import PARAMS, ParamError, apply, value_text
from gtp.protocol import SYNTAX_ERROR, GtpError
from gtp.registry import Registry, Request
from gtp.state import EngineState
from gtp.timecontrol import KATA_KINDS, TimeSettings

__all__ = ["rules_form", "register"]

KGS_RULES = {"chinese": "chinese-kgs", "aga": "aga", "japanese": "japanese", "new_zealand": "new-zealand"}
"""kgsGtp's rules names and KataGo's shorthand each stands for."""


def rules_form(rules: Rules, friendly_pass: bool = True) -> dict[str, Any]:
    """Go ``rules`` in KataGo's JSON form (``friendly_pass``: the player passes with dead stones on the board
    and has them removed when scored)."""
    return {"friendlyPassOk": friendly_pass, "hasButton": False, "ko": rules.ko.upper(),
            "scoring": rules.scoring.upper(), "suicide": rules.suicide,
            "tax": "SEKI" if rules.scoring == "territory" else "NONE", "whiteHandicapBonus": handicap_bonus_rule(rules)}


def _go_rules(state: EngineState) -> Rules:
    if state.rules.game != "go":
        raise GtpError(f"rules commands are for go, not {state.rules.game}")
    return state.rules


def _set_rules(state: EngineState, value: object, text: str) -> str:
    """Play on under the rules ``value`` (a shorthand name or KataGo's JSON object), komi and game kept."""
    current = _go_rules(state)
    friendly = state.config.player.remove_dead_stones
    if isinstance(value, dict) and value.get("friendlyPassOk", friendly) != friendly:
        raise GtpError(f"Unknown rules '{text}', friendlyPassOk {str(not friendly).lower()} is not supported: "
                       f"the player {'removes' if friendly else 'keeps'} dead stones when it scores")
    try:
        rules, bonus = parse_rules(value, current.size)
    except EngineError as exc:
        raise GtpError(f"Unknown rules '{text}', {exc}") from None
    if isinstance(value, dict) and "whiteHandicapBonus" in value and bonus != handicap_bonus_rule(rules):
        raise GtpError(f"Unknown rules '{text}', whiteHandicapBonus {bonus} is not supported with these rules: "
                       f"they give {handicap_bonus_rule(rules)}")
    rules = replace(rules, komi=current.komi, move_cap=current.move_cap)
    try:
        state.with_rules(rules)
    except EngineError as exc:
        raise GtpError(f"the game so far is not legal under {text}: {exc}") from None
    return ""


def kata_get_rules(state: EngineState, request: Request) -> str:
    if request.args:
        raise GtpError(f"Expected no arguments for kata-get-rules but got '{' '.join(request.args)}'")
    form = rules_form(_go_rules(state), state.config.player.remove_dead_stones)
    return json.dumps(form, separators=(",", ":"), sort_keys=True)


def kata_set_rules(state: EngineState, request: Request) -> str:
    """``kata-set-rules NAME`` or ``kata-set-rules {JSON}``."""
    text = " ".join(request.args)
    if not text:
        raise GtpError(f"{SYNTAX_ERROR}: kata-set-rules wants a rules name or KataGo's JSON rules")
    value: object = text
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            raise GtpError(f"Unknown rules '{text}', not JSON") from None
    return _set_rules(state, value, text)


def kata_set_rule(state: EngineState, request: Request) -> str:
    """``kata-set-rule FIELD VALUE``: one field of the JSON form, the others as they are."""
    if len(request.args) != 2:
        raise GtpError(f"Expected two arguments for kata-set-rule but got '{' '.join(request.args)}'")
    key, text = request.args
    form = rules_form(_go_rules(state), state.config.player.remove_dead_stones)
    if key not in form:
        raise GtpError(f"Unknown rules field: {key}")
    if isinstance(form[key], bool):
        if text.lower() not in ("true", "false"):
            raise GtpError(f"Could not parse {key} value: {text} (true or false)")
        form[key] = text.lower() == "true"
    else:
        form[key] = text.upper() if key != "whiteHandicapBonus" else text
    return _set_rules(state, form, f"{key} {text}")


def kgs_rules(state: EngineState, request: Request) -> str:
    """kgsGtp's ``kgs-rules chinese|aga|japanese|new_zealand``."""
    if len(request.args) != 1:
        raise GtpError("Expected one argument kgs-rules")
    name = request.args[0].lower()
    if name not in KGS_RULES:
        raise GtpError(f"Unknown rules '{name}'")
    return _set_rules(state, KGS_RULES[name], name)


# ----------------------------------------------------------------- parameters
def kata_list_params(state: EngineState, request: Request) -> str:
    return " ".join(PARAMS)


def kata_get_param(state: EngineState, request: Request) -> str:
    if len(request.args) != 1:
        raise GtpError(f"Expected one arguments for kata-get-param but got '{' '.join(request.args)}'")
    param = PARAMS.get(request.args[0])
    if param is None:
        raise GtpError(f"Invalid parameter: {request.args[0]}")
    return value_text(param.get(state.config))


def kata_get_params(state: EngineState, request: Request) -> str:
    """Every parameter and its value, as one JSON object."""
    values = {name: param.get(state.config) for name, param in PARAMS.items()}
    return json.dumps(values, separators=(",", ":"))


def _reconfigure(state: EngineState, settings: dict[str, str]) -> str:
    try:
        config = apply(state.config, settings)
    except ParamError as exc:
        raise GtpError(str(exc)) from None
    state.reconfigure(config)
    return ""


def kata_set_param(state: EngineState, request: Request) -> str:
    if len(request.args) != 2:
        raise GtpError(f"Expected two arguments for kata-set-param but got '{' '.join(request.args)}'")
    return _reconfigure(state, {request.args[0]: request.args[1]})


def kata_set_params(state: EngineState, request: Request) -> str:
    """``kata-set-params {JSON}``: several parameters at once, all or none."""
    try:
        settings = json.loads(" ".join(request.args))
    except ValueError:
        settings = None
    if not isinstance(settings, dict):
        raise GtpError("Could not set params: Argument to kata-set-params must be a json object")
    return _reconfigure(state, {key: value if isinstance(value, str) else json.dumps(value)
                                for key, value in settings.items()})


# ------------------------------------------------------------------------ time
def kata_time_settings(state: EngineState, request: Request) -> str:
    try:
        state.time.set(TimeSettings.from_kata(request.args))
    except ValueError as exc:
        raise GtpError(f"{SYNTAX_ERROR}: {exc}") from None
    return ""


def kata_list_time_settings(state: EngineState, request: Request) -> str:
    return " ".join(KATA_KINDS)


# ----------------------------------------------------------------------- other
def kata_get_models(state: EngineState, request: Request) -> str:
    """The network playing, in the fields of KataGo's ``kata-get-models`` (a list of one; ``none`` without one)."""
    path = state.config.model_for(state.rules)
    entry = model_entry(path, state.player.evaluator, state.player.config.search.batch_size)
    return json.dumps([entry], separators=(",", ":"))



def stop(state: EngineState, request: Request) -> str:
    """Halt pondering (any input line stops it; this keeps it from starting again before the next move)."""
    state.stop_pondering()
    return ""


def clear_cache(state: EngineState, request: Request) -> str:
    state.clear_cache()
    return ""


def register(registry: Registry) -> None:
    """Add KataGo's extensions (analysis and raw output are :mod:`gtp.analysis` and :mod:`gtp.rawnn`)."""
    for name, handler in (("kata-get-rules", kata_get_rules), ("kata-set-rules", kata_set_rules),
                          ("kata-set-rule", kata_set_rule), ("kgs-rules", kgs_rules),
                          ("kata-set-param", kata_set_param), ("kata-set-params", kata_set_params),
                          ("clear_cache", clear_cache), ("kata-get-models", kata_get_models)):
        registry.add(name, handler)
    for name, handler in (("kata-list-params", kata_list_params), ("kata-get-param", kata_get_param),
                          ("kata-get-params", kata_get_params), ("kata-time_settings", kata_time_settings),
                          ("kata-list_time_settings", kata_list_time_settings), ("stop", stop)):
        registry.add(name, handler, needs_engine=False)
