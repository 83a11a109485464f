"""What one trial (or one held-out evaluation) plays.

Contract:

- :func:`trial_design` builds the experiment design of a point: every table its targets
  need (:data:`~.targets.TABLES`), 3 opponents and the focal player, seats rotated; the
  deals are those of ``seed``, so every trial of a study plays the same deals.
- :func:`write_instances` writes the instance file of the instance rule's parameters
  (the generator's own code, perturbed by ``flip`` and ``jitter`` with the fixed seed
  :data:`~.space.INSTANCE_SEED`); an unchanged file is not rewritten.
- :func:`stage_games` splits a trial's games into its stages.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ...agents.cognitive import generate_instances as gi
from ...agents.cognitive.instance_sets import perturb
from ...experiments.design import Design, Table
from ...files import atomic_write_bytes
from .space import INSTANCE_SEED, split_params
from .targets import TABLES, TARGETS


def write_instances(rule: Mapping[str, float], path: Path) -> Path:
    """The instance file of the rule with these parameters (the generator's own code),
    perturbed by the family's ``flip`` and ``jitter`` (seed :data:`INSTANCE_SEED`) when
    they are given and not zero."""
    rule = {"fraction": gi.FRACTION, "low_tokens": gi.LOW_TOKENS} | dict(rule)
    ops = {k: float(rule[k]) for k in ("flip", "jitter") if float(rule.get(k) or 0) > 0}
    header = ("ToM0 instances for No Thanks! (thesis §3.2), generated for a calibration "
              "trial by\nnothanks.agents.cognitive.generate_instances.generate("
              f"fraction={rule['fraction']!r}, low_tokens={rule['low_tokens']!r})")
    instances = gi.generate(fraction=float(rule["fraction"]), low_tokens=int(rule["low_tokens"]))
    if ops:
        header += ("\nthen nothanks.agents.cognitive.instance_sets.perturb("
                   f"{ops!r}, seed={INSTANCE_SEED})")
        instances = perturb(instances, ops, INSTANCE_SEED)
    text = gi.render(instances, header)
    if not path.exists() or path.read_text() != text:
        atomic_write_bytes(text.encode("utf-8"), path)
    return path


def trial_design(params: Mapping[str, object], targets: Sequence[str], folder: Path,
                 games: int, seed: int, name: str, model_preset: str | None = None) -> Design:
    """The design one trial (or one evaluation) plays: every table its targets need."""
    model, standin, rule = split_params(params, model_preset)
    if rule:
        model["instances"] = str(write_instances(rule, folder / "instances.csv"))
    labels = dict.fromkeys(t for name_ in targets for t in TARGETS[name_].needs)
    tables = tuple(Table(label, TABLES[label](model, standin), 3) for label in labels)
    return Design(name=name, tables=tables, games=games, seed=seed, rotate=True)



def stage_games(games: int, stages: Sequence[float]) -> list[int]:
    """Games per condition of each stage (they add up to ``games``)."""
    ends = sorted({max(1, round(f * games)) for f in stages} | {games})
    return [b - a for a, b in zip([0, *ends[:-1]], ends, strict=True)]

