"""Our value of every statistic as one line of text, beside the thesis's (:mod:`.thesis`).

:func:`results_rows` formats the tables of :func:`~.tables.statistics` the way the
thesis prints them (t(df) = ..., p, effect size, CI; shares in %), under the keys of
:data:`~.thesis.THESIS`, so ``results.md`` can put both side by side.
"""
from __future__ import annotations

import pandas as pd

from .thesis import THESIS


def _t(row: pd.Series) -> str:
    df = f"{row['df']:.0f}" if float(row["df"]).is_integer() else f"{row['df']:.1f}"
    return (f"t({df}) = {row['t']:.2f}, {_p(row['p'])}; {row['effect']} = "
            f"{row['effect_size']:.2f}, 95% CI of difference [{row['ci_low']:.2f}, "
            f"{row['ci_high']:.2f}]")


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def results_rows(stats: dict[str, pd.DataFrame]) -> list[tuple[str, str]]:
    """(statistic key as in THESIS or a new name, our value) for every statistic."""
    rows: list[tuple[str, str]] = []
    places = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}
    if "participant_rank_shares" in stats:
        shares = stats["participant_rank_shares"]
        for r in shares.itertuples():
            rows.append((f"participants {places[r.rank]} vs {r.opponent_label}",
                         f"{_pct(r.share)} of {r.games} games"))
        for r in stats["participant_tests"].to_dict("records"):
            rows.append((f"paired t {r['a']} vs {r['b']}", _t(pd.Series(r))))
        mixed = stats["participant_mixed_model"]
        for r in mixed.to_dict("records"):
            if r["term"] == "participant variance":
                rows.append(("mixed model: participant variance", f"{r['coef']:.3f}"))
            else:
                rows.append((f"mixed model: {r['term']}",
                             (f"{r['coef']:.3f} (SE {r['se']:.3f}, z = {r['z']:.2f}, "
                             f"{_p(r['p'])}, 95% CI [{r['ci_low']:.2f}, {r['ci_high']:.2f}])")))
        for r in stats["prediction_accuracy"].itertuples():
            rows.append((f"accuracy {r.model} {r.actual}",
                         f"{_pct(r.accuracy)} [{_pct(r.ci_low)}, {_pct(r.ci_high)}] of {r.n}"))
        actions = stats["participant_actions"].iloc[0]
        rows.append(("participants' pass share",
                     f"{_pct(actions['pass_share'])} of {int(actions['decisions'])}"))
        if "bad_moves" in stats:
            for r in stats["bad_moves"].itertuples():
                rows.append((f"marked bad {r.model}",  # two decimals, as the thesis
                             f"{100 * r.share:.2f}% ({r.marked} of {r.actions} actions)"))
            c = stats["feedback_concentration"].iloc[0]
            rows.append(("marks from the top 10% of participants",
                         (f"{_pct(c['top_share'])} ({int(c['top_participants'])} of "
                         f"{int(c['participants'])} participants, {int(c['marks'])} marks)")))
            rows.append(("participants with < 10 marks", _pct(c["few_share"])))
    tests = stats["simulation_tests"]
    welch = tests[tests["test"].str.startswith("Welch")]
    labels = dict(zip(welch["a_spec"], welch["a"], strict=True))  # opponent spec -> label
    for r in tests.to_dict("records"):
        kind = r["test"]
        if kind == "Welch t (rows)":
            name = f"Welch t {r['a']} vs {r['b']}"
        elif kind == "Welch t (game_mean)":
            name = f"Welch t {r['a']} (per-game mean) vs {r['b']}"
        else:
            name = f"{r['b']} vs parity 1.5 (vs {labels[r['a_spec']]})"
        rows.append((name, f"{_t(pd.Series(r))}; n = {r['n_a']} vs {r['n_b']}"
                     if kind.startswith("Welch") else f"{_t(pd.Series(r))}; n = {r['n_b']}"))
    shares = stats["simulation_rank_shares"]
    for r in shares[shares["rank"] == 1].itertuples():
        rows.append((f"{r.focal_label} 1st vs {r.opponent_label}",
                     f"{_pct(r.share)} of {r.games} games"))
    sweep = stats["rt_sweep"]
    for (higher, lower), part in sweep.groupby(["higher", "lower"]):
        values = ", ".join(f"{rt:g}: {m:.2f}{'' if p < 0.05 else ' (n.s.)'}"
                           for rt, m, p in zip(part["rt"], part["mean"], part["p"], strict=True))
        rows.append((f"rt sweep {higher} vs {lower}", f"mean rank points by RT — {values}"))
    if "token_recalls" in stats:
        recalls = stats["token_recalls"]
        for (model, rt), part in recalls.groupby(["model", "rt"]):
            by = part.set_index("source")
            shares_text = ", ".join(f"{s} {_pct(by.loc[s, 'share'])}"
                                    for s in ("leaf", "root", "none") if s in by.index)
            rows.append((f"token recall {model} RT {rt:g}",
                         f"{shares_text}; mean |error| {by.loc['all', 'mean_abs_error']:.2f}"))
    return rows


def results_table(stats: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Ours beside the thesis's value (with its section) for every statistic."""
    ours = dict(results_rows(stats))
    keys = list(ours) + [k for k in THESIS if k not in ours]  # ours in section order
    return pd.DataFrame([{
        "statistic": key, "thesis": THESIS.get(key, ("—", ""))[0],
        "where": THESIS.get(key, ("", "—"))[1], "ours": ours.get(key, "not computed"),
    } for key in keys])
