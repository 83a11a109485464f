"""Whole games on the compiled engine and on the reference (``kernels.reference_mode``)
are the same games: every decision record (action, latency, failures, predictions,
recalls, reasons), every score and every log table, for a matrix of tables: orders 0-5,
the readings' switches, instance sets (``thesis-linear``, a flipped and a jittered
set), baselines mixed in, 3-7 players, the learning and Bayesian models. Traced games
(their decisions taken by the reference recursion, with records) log what untraced
ones log.

This is the one whole-game agreement test; the unit agreements (noise bits, lazy vs
eager retrieval, kept token rows, the rules kernel) sit beside it.
"""
from __future__ import annotations

import pandas as pd
import pytest

import nothanks.agents.cognitive  # noqa: F401  (registers the model specs)
from nothanks.kernels import reference, reference_mode
from nothanks.play import batch
from nothanks.play.runner import play_games
from nothanks.rules import Variant

#: Tables (specs, cards removed from the deck, games): short decks keep the reference
#: affordable; every table plays its games in one run, so the models' kept state (windows,
#: score tables, learned chunks) carries from game to game as in a design.
TABLES = {
    "tom0": (["tom0"] * 4, 14, 6),
    "tom1-vs-tom0": (["tom1", "tom0", "tom0", "tom0"], 14, 4),
    "orders2-5": (["tom2", "tom:k=3", "tom:k=4", "tom:k=5"], 16, 1),
    "readings": (["tom2:project_self=false,thresholds=shared", "tom1:candidate_rule=any,rt=0",
                  "tom2:token_chunks=merge,token_s=0.3", "tom1:noise_mode=per_retrieval",
                  "tom1:s=0"], 14, 1),
    "instance-sets": (["tom1:instances=thesis-linear",
                       "tom0:instances=monotone+flip=0.08+seed=1",
                       "tom2:instances=monotone+jitter=2+seed=3", "tom1:instance_rt=0.3"],
                      14, 2),
    "three-players": (["tom2", "random", "heuristic:T=-2"], 12, 2),
    "seven-players": (["tom1", "tom0", "random:p=0.3", "heuristic", "always-pass",
                       "tom2:oracle_tokens=true,mp=1,lf=0.5", "tom:k=3,time_per_turn=1.5"], 10, 1),
    "learning-bayes": (["learning-tom", "bayes-tom", "tom1", "tom0"], 16, 2),
    "baselines": (["random", "heuristic:T=-3", "always-pass", "random:p=0.8",
                   "heuristic"], 9, 12),
}


def _traced(spec: str) -> str:
    if not spec.startswith(("tom", "learning-tom", "bayes-tom")):
        return spec
    return spec + ("," if ":" in spec else ":") + "trace=true"


def _games(specs: list[str], removed: int, games: int) -> list:
    variant = Variant(players=len(specs), removed=removed)
    return list(play_games(specs, games, 31, variant))


def _logged(records: list) -> list:
    """What a log holds of each game (a trace aside)."""
    return [(r.cards, r.tokens, r.scores,
             [(d.seat, d.card, d.tokens_on_card, d.action, d.info) for d in r.decisions])
            for r in records]


@pytest.mark.parametrize("table", sorted(TABLES))
def test_the_engine_plays_the_references_games(table, monkeypatch):
    from nothanks.agents.cognitive import tom_kernel

    specs, removed, games = TABLES[table]
    compiled = tom_kernel.compiled
    taken = []  # whether each model decision found the compiled core

    def counted():
        core = compiled()
        taken.append(core is not None)
        return core

    monkeypatch.setattr(tom_kernel, "compiled", counted)
    engine = _games(specs, removed, games)
    engine_taken, taken[:] = sum(taken), []
    with reference_mode():
        assert reference()
        plain = _games(specs, removed, games)
    assert not reference()
    assert not any(taken)  # the reference decided everything
    assert engine == plain
    # the engine's ToM core decided where a plain model sat (not under learning/bayes)
    assert (engine_taken > 0) == any(spec.startswith("tom") for spec in specs)
    assert sum(len(r.decisions) for r in engine) > 10 * games
    if any(spec.startswith(("tom", "learning", "bayes")) for spec in specs):
        traced = _games([_traced(spec) for spec in specs], removed, games)
        assert _logged(traced) == _logged(engine)


def test_the_switch_turns_every_path_with_a_reference_off_and_back_on():
    from nothanks.actr import kernel as actr_kernel
    from nothanks.agents.cognitive import tom_kernel

    assert actr_kernel.kernels() is not None and tom_kernel.compiled() is not None
    assert batch.enabled()
    with reference_mode():
        assert actr_kernel.kernels() is None and tom_kernel.compiled() is None
        assert not batch.enabled()
        with reference_mode(False):  # nested: the engine again, then back
            assert actr_kernel.kernels() is not None
        assert actr_kernel.kernels() is None
    assert actr_kernel.kernels() is not None and batch.enabled()


def test_a_bad_switch_value_is_refused_in_one_line(monkeypatch):
    import os
    import subprocess
    import sys

    from nothanks.kernels import mode

    monkeypatch.setenv(mode.ENV, "yes")
    with pytest.raises(ValueError, match=r"NOTHANKS_REFERENCE='yes' is not understood; "
                                         r"valid: 1 .*0 or unset"):
        mode._from_environment()  # noqa: SLF001 (what the module runs at import)
    done = subprocess.run([sys.executable, "-m", "nothanks", "agents"], capture_output=True,
                          text=True, env=dict(os.environ, NOTHANKS_REFERENCE="yes"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "nothanks: error: NOTHANKS_REFERENCE='yes' is not understood; valid: 1 (reference: "
        "nothing compiled), 0 or unset (the compiled engine)"]


def test_a_design_run_logs_the_same_tables_on_the_engine_and_the_reference(tmp_path,
                                                                            monkeypatch):
    """Baseline tables around model tables (five players): every log table equal, and
    the baseline games were batched on the engine only."""
    from nothanks.experiments import Design, load, run_design
    from nothanks.experiments.design import Table

    design = Design(name="engine-mix", seed=5, games=4, variant=Variant(players=5), tables=(
        Table("baselines", ("random", "heuristic:T=-2", "always-pass", "random:p=0.7",
                            "heuristic"), 0),
        Table("model", ("tom0", "tom1", "random", "heuristic", "always-pass"), 0),
        Table("passers", ("always-pass",) * 4 + ("tom2",), 4),
    ))
    batches = []
    real = batch.play_batch

    def counting(seated, *args, **kwargs):
        batches.append(len(seated))
        return real(seated, *args, **kwargs)

    monkeypatch.setattr("nothanks.play.runner.play_batch", counting)
    run_design(design, tmp_path / "engine", jobs=1, chunk_size=12, progress=False)
    assert sum(batches) == 4
    with reference_mode():
        run_design(design, tmp_path / "reference", jobs=1, chunk_size=12, progress=False)
    assert sum(batches) == 4
    logs = [load(tmp_path / side).tables() for side in ("engine", "reference")]
    for name in ("games", "decisions", "predictions", "recalls", "conditions"):
        assert len(logs[0][name]) == len(logs[1][name])
        pd.testing.assert_frame_equal(logs[0][name], logs[1][name], obj=name)


def test_a_process_on_the_reference_compiles_nothing_and_plays_the_same_games():
    """``NOTHANKS_REFERENCE=1``: numba's compiler is never asked for (every kernel plain
    Python), and a short game's records are the engine's."""
    import os
    import subprocess
    import sys

    code = """
import sys
from nothanks.kernels import compiling, reference
from nothanks.rules import Variant
from nothanks.play.runner import play_games
games = list(play_games(["tom1", "tom0", "random"], 1, 31, Variant(players=3, removed=14)))
print(reference(), compiling.COMPILED)
print(repr(games))
"""
    env = dict(os.environ, NOTHANKS_REFERENCE="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env).stdout.split("\n")
    assert out[0] == "True False"
    engine = list(play_games(["tom1", "tom0", "random"], 1, 31, Variant(players=3, removed=14)))
    assert out[1] == repr(engine)
