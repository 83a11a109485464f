"""The proposition "When ToM2 makes ToM1's moves" (docs/models.md), with every
precondition, tested on at least 100 divergences, and its negative controls.

Preconditions (docs/models.md): ToM1 and ToM2 have the same parameters and noise key
(the same agent seed) and meet the same deals and opponents; noise is drawn per chunk
per model time (``noise_mode=per_time``) with s > 0, so a projection at the same model
time sees the activation noise the model's own ToM0 saw and no exact tie is broken by
a draw; an opponent's projection predicts the model itself (``project_self=true``).
Then ToM2's move can differ from ToM1's only where the model's own ToM0 takes now and a
projection of the model itself passes with more tokens on the card (the *witness*).
Drop one precondition and divergences without the witness appear.
"""
from __future__ import annotations

import pytest

from nothanks.play.runner import play_games
from nothanks.rules import Action

#: Instance sets of the property: shipped, flipped, jittered and random (every action
#: a coin flip: flip and flipseq at 0.5), each with its deals' seed and number (enough
#: for at least :data:`DIVERGENCES` first divergences in all: 122 over 670 deals).
SETS = (("monotone", 0, 40), ("thesis-linear", 1, 70), ("thesis-bands", 2, 40),
        ("monotone+flip=0.08+seed=1", 3, 70), ("monotone+flip=0.15+seed=2", 4, 90),
        ("thesis-linear+flip=0.2+seed=3", 5, 70), ("monotone+jitter=2+seed=1", 6, 40),
        ("thesis-bands+jitter=3+seed=4", 7, 70),
        ("monotone+flip=0.5+flipseq=0.5+seed=5", 8, 90),
        ("thesis-linear+flip=0.5+flipseq=0.5+seed=6", 9, 90))
DIVERGENCES = 100


def witness(trace) -> bool:
    """The model's own ToM0 takes now, and a projection of the model itself (level 0,
    its seat, below the root) passes with more tokens on the card."""
    root = trace.root
    if root.tom0_action is not Action.TAKE:
        return False
    return any(node.seat == root.seat and node.level == 0 and node.action is Action.PASS
               and node.tokens_on_card > root.tokens_on_card
               for path, _, node in root.walk() if path != "0")


def first_divergences(instances: str, deals: int, seed: int, params: str = ""):
    """ToM2's decision (traced) at the first move where ToM2 vs 3 x ToM0 and ToM1 vs
    3 x ToM0 (the focal models with ``params``) part on each shared deal.

    The deals are played untraced (the compiled path); each deal where the two part is
    played again with ToM2 traced (the plain recursion), which must part at the same
    decision."""
    extra = f",{params}" if params else ""
    opponents = ["tom0:instances=" + instances] * 3
    tom1 = f"tom1:instances={instances}{extra}"
    tom2 = f"tom2:instances={instances}{extra}"
    parted = []
    pairs = zip(play_games([*opponents, tom1], deals, seed=seed),
                play_games([*opponents, tom2], deals, seed=seed), strict=True)
    for game, (a, b) in enumerate(pairs):
        at = next((k for k, (da, db) in enumerate(zip(a.decisions, b.decisions,
                                                      strict=False))
                   if da.action != db.action), None)
        if at is None:
            continue
        traced = next(play_games([*opponents, tom2.replace("tom2:", "tom2:trace=true,")],
                                 1, seed=seed, start=game))
        decision = traced.decisions[at]
        assert decision.action == b.decisions[at].action, "the traced replay plays alike"
        assert decision.agent.startswith("tom2"), "only the focal model may part first"
        parted.append(decision)
    return parted


@pytest.fixture(scope="module")
def divergences():
    """Every first divergence over :data:`SETS` under the proposition's preconditions."""
    return {name: first_divergences(name, deals, seed) for name, seed, deals in SETS}


def test_every_divergence_has_the_witness(divergences):
    total = sum(len(v) for v in divergences.values())
    assert total >= DIVERGENCES, f"only {total} divergences: the property is not tested"
    for name, parted in divergences.items():
        for decision in parted:
            assert decision.trace is not None and witness(decision.trace), name
    # the shipped monotone and bands sets: no divergence at all (identical play)
    assert not divergences["monotone"] and not divergences["thesis-bands"]
    # every kind of set but the monotone ones contributes
    assert all(divergences[name] for name, _, _ in SETS[3:6] + SETS[8:])


#: (parameters dropping one precondition, instance set, deals): each makes ToM2 part
#: from ToM1 at some decision without the witness.
CONTROLS = (("noise_mode=per_retrieval", "monotone", 15),
            ("s=0", "monotone", 30),
            ("project_self=false", "monotone+flip=0.15+seed=2", 15))


@pytest.mark.parametrize(("params", "instances", "deals"), CONTROLS,
                         ids=[c[0] for c in CONTROLS])
def test_dropping_a_precondition_breaks_the_proposition(params, instances, deals):
    parted = first_divergences(instances, deals, 913007, params)
    unwitnessed = [d for d in parted if d.trace is None or not witness(d.trace)]
    assert unwitnessed, f"{params}: {len(parted)} divergences, every one witnessed"
