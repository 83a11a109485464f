"""Agent specs: ``name[:key=value,key=value]`` strings naming an agent and its parameters.

The same strings work on the command line, in experiment designs and in Python, e.g.
``heuristic:T=-3``, ``random:p=0.3``, ``tom2:rt=-1.5``.

``preset=NAME`` fills in a named set of parameter values (a TOML file in
``nothanks/agents/presets``, e.g. ``tom1:preset=thesis-fit``); parameters given in the
spec override the preset's. A preset records where its values came from (the study that
fitted them), so a spec stays a complete, reproducible description of an agent.
"""
from __future__ import annotations

import inspect
import re
import tomllib
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .base import Agent

Factory = Callable[..., Agent]
_REGISTRY: dict[str, Factory] = {}
#: Folder of the shipped presets (``NAME.toml``).
PRESETS_DIR = Path(__file__).resolve().parent / "presets"
#: The spec key that names a preset.
PRESET_KEY = "preset"


class AgentSpecError(ValueError):
    """An agent spec names an unknown agent or parameter, or a bad value."""


def register(name: str, factory: Factory) -> None:
    """Make ``name`` usable in agent specs; ``factory(**params)`` builds the agent."""
    _REGISTRY[name] = factory


def unregister(name: str) -> None:
    """Forget the agent ``name`` (e.g. an outside agent registered for one study or test);
    :class:`AgentSpecError` if no such agent is registered."""
    if name not in _REGISTRY:
        raise AgentSpecError(f"no agent {name!r} is registered; registered: "
                             f"{', '.join(registered())}")
    del _REGISTRY[name]


def registered() -> list[str]:
    """The names usable in agent specs, sorted."""
    return sorted(_REGISTRY)


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec: the agent name and its parameter overrides (as given)."""

    name: str
    params: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.params.items())


def parse_spec(text: str) -> AgentSpec:
    """Split ``name:key=value,...`` into an :class:`AgentSpec` (no validation of names);
    :class:`AgentSpecError` for malformed text."""
    text = text.strip()
    name, _, rest = text.partition(":")
    params: dict[str, str] = {}
    if rest:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise AgentSpecError(
                    f"agent spec {text!r}: parameter {item!r} is not of the form key=value"
                )
            params[key.strip()] = value.strip()
    return AgentSpec(name.strip(), params)


def split_specs(text: str) -> list[str]:
    """One spec per player from a list written on one line.

    Players are separated by ``;``, or by ``,`` when no ``;`` is used; in the comma form an
    item ``key=value`` (no agent name before it) continues the previous player's
    parameters, so ``tom2:rt=-1.5,s=0.2,tom0,tom0,tom0`` is four players. An empty player
    (``,random,random``) is an error that names its position.
    """
    if ";" in text:
        items = text.split(";")
    else:
        items = []
        for item in text.split(","):
            if "=" in item and ":" not in item and items and items[-1].strip():
                items[-1] += "," + item
            else:
                items.append(item)
    specs = [item.strip() for item in items]
    for position, spec in enumerate(specs, start=1):
        if not spec:
            raise AgentSpecError(
                f"player {position} of {text!r} is empty; give one agent spec per seat, "
                "e.g. 'tom2:rt=-1.5,s=0.2;tom0;tom0;tom0' or 'heuristic,random,random,random'")
    return specs


def convert_value(value: str, default: object, where: str) -> object:
    """Convert a spec string to the type of the parameter's default."""
    try:
        if isinstance(default, bool):
            if value.lower() in ("true", "1", "yes", "on"):
                return True
            if value.lower() in ("false", "0", "no", "off"):
                return False
            raise ValueError
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
    except ValueError:
        raise AgentSpecError(
            f"{where}: {value!r} is not a valid {type(default).__name__}"
        ) from None
    return value


@dataclass(frozen=True)
class Preset:
    """Named parameter values for some agents, and where they came from.

    ``params`` are spec strings (as if written in a spec); a parameter whose name is in
    ``paths`` is a file name relative to the preset's folder (e.g. an instance file).
    """

    name: str
    agents: tuple[str, ...]
    params: dict[str, str]
    description: str = ""
    provenance: dict = field(default_factory=dict)


def presets() -> list[str]:
    """Names of the shipped presets."""
    return sorted(p.stem for p in PRESETS_DIR.glob("*.toml"))


def load_preset(name: str) -> Preset:
    """The shipped preset ``name``; an unknown name lists the valid ones."""
    path = PRESETS_DIR / f"{name}.toml"
    if not name or "/" in name or not path.is_file():
        raise AgentSpecError(f"unknown preset {name!r}; valid: {', '.join(presets()) or 'none'}")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise AgentSpecError(f"preset {name!r} ({path}): not valid TOML: {exc}") from None
    params = {str(k): _spec_text(v) for k, v in data.get("params", {}).items()}
    for key in data.get("paths", []):
        if params.get(key):
            params[key] = str((path.parent / params[key]).resolve())
    return Preset(name, tuple(data.get("agents", ())), params,
                  str(data.get("description", "")).strip(), dict(data.get("provenance", {})))


def _spec_text(value: object) -> str:
    """A TOML value as it would be written in a spec."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def resolve_params(parsed: AgentSpec) -> dict[str, str]:
    """The spec's parameters with its preset (if any) filled in; the spec's own win."""
    params = dict(parsed.params)
    name = params.pop(PRESET_KEY, None)
    if name is None:
        return params
    preset = load_preset(name)
    if preset.agents and parsed.name not in preset.agents:
        raise AgentSpecError(f"preset {name!r} is for agents {', '.join(preset.agents)}, not "
                             f"{parsed.name!r} (spec {str(parsed)!r})")
    return preset.params | params


def make_agent(spec: str | AgentSpec) -> Agent:
    """Build the agent a spec names, validating its name and parameters;
    :class:`AgentSpecError` names the spec and what would be valid; anything but a spec
    (an agent already built, say) is a :class:`TypeError` that says what to pass."""
    if not isinstance(spec, (str, AgentSpec)):
        raise TypeError(
            f"make_agent takes an agent spec (a string such as 'tom2:s=0.2', or an "
            f"AgentSpec), not a {type(spec).__name__}; to seat agents already built, "
            f"pass them to nothanks.play.runner.play_trial or play_game")
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    if parsed.name not in _REGISTRY:
        raise AgentSpecError(
            f"unknown agent {parsed.name!r} in spec {str(parsed)!r}; valid: "
            f"{', '.join(registered())}"
        )
    factory = _REGISTRY[parsed.name]
    signature = inspect.signature(factory)
    valid = {
        n: p.default for n, p in signature.parameters.items()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    }
    kwargs = {}
    for key, value in resolve_params(parsed).items():
        if key not in valid:
            raise AgentSpecError(
                f"agent {parsed.name!r} has no parameter {key!r}; valid: "
                f"{', '.join(f'{n} (default {d!r})' for n, d in valid.items()) or 'none'}"
                f" (and {PRESET_KEY}=NAME: {', '.join(presets()) or 'no presets'})"
            )
        kwargs[key] = convert_value(value, valid[key],
                                    f"agent spec {str(parsed)!r}, parameter {key}")
    try:
        agent = factory(**kwargs)
    except (ValueError, TypeError) as exc:
        prefix = f"agent spec {str(parsed)!r}: "
        raise AgentSpecError(prefix + str(exc).removeprefix(prefix)) from exc
    agent.spec = str(parsed)
    return agent


def agent_parameters(name: str) -> dict[str, object]:
    """Parameter names and defaults of a registered agent (for --help and errors)."""
    if name not in _REGISTRY:
        raise AgentSpecError(f"unknown agent {name!r}; valid: {', '.join(registered())}")
    return {
        n: p.default for n, p in inspect.signature(_REGISTRY[name]).parameters.items()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    }


#: An ``Args:`` entry of a docstring: ``name: text``, continued on more indented lines.
_ARG_ENTRY = re.compile(r"^(?P<indent> +)(?P<name>\w+): (?P<text>.*(?:\n(?P=indent) +.*)*)",
                        re.M)


def parameter_meanings(name: str) -> dict[str, str]:
    """What each parameter of a registered agent means, in one phrase: the first clause
    of its entry in the ``Args:`` sections of the agent's docstrings (the factory's, then
    those of the agent class it makes and that class's bases). A parameter no docstring
    describes is left out."""
    factory = _REGISTRY.get(name)
    if factory is None:
        raise AgentSpecError(f"unknown agent {name!r}; valid: {', '.join(registered())}")
    made = factory if inspect.isclass(factory) else typing.get_type_hints(factory).get("return")
    docs = [inspect.getdoc(factory) or ""]
    if inspect.isclass(made):
        docs += [inspect.getdoc(cls) or "" for cls in inspect.getmro(made)]
    entries: dict[str, str] = {}
    for doc in docs:
        for section in re.split(r"^Args:\n", doc, flags=re.M)[1:]:
            for match in _ARG_ENTRY.finditer(section.split("\n\n")[0]):
                entries.setdefault(match["name"], _first_clause(match["text"]))
    return {key: entries[key] for key in agent_parameters(name) if key in entries}


def _first_clause(text: str) -> str:
    """``text`` on one line, up to its first full stop or semicolon outside brackets,
    without reStructuredText's literal quotes."""
    flat = " ".join(text.replace("``", "").split())
    depth = 0
    for i, char in enumerate(flat):
        depth += (char in "([") - (char in ")]")
        if depth == 0 and char in ".;" and (i + 1 == len(flat) or flat[i + 1] == " "):
            return flat[:i]
    return flat
