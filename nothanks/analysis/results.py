"""Our value of every statistic as one line of text, beside the thesis's (:mod:`.thesis`).

:func:`results_rows` formats the tables of :func:`~.tables.statistics` the way the
thesis prints them (t(df) = ..., p, effect size, CI; shares in % with their Wilson
interval), under the keys of :data:`~.thesis.THESIS`, so ``results.md`` can put both side
by side; every row names the source of its numbers (``simulation``, ``synthetic``,
``participants``). :func:`readings_rows` formats the readings ablation.
"""
from __future__ import annotations

import pandas as pd

from .paired import SYNTHETIC_LABEL, wilson_interval
from .tables import IDENTICAL_PLAY, NO_PLACEBO_FLAG, SHARED_DEALS_TEST, THESIS_TEST_FLAG
from .thesis import THESIS


def _t(row: pd.Series) -> str:
    if pd.isna(row["t"]):  # every paired difference equal: no test
        return f"every difference {row['difference']:.2f}: no test"
    df = f"{row['df']:.0f}" if float(row["df"]).is_integer() else f"{row['df']:.1f}"
    return (f"t({df}) = {row['t']:.2f}, {_p(row['p'])}; {_difference(row)}")


def _difference(row) -> str:
    """The mean difference with its own 95% CI, then the standardized effect (which
    has no interval here): ``difference -0.60 [-0.65, -0.54]; d = -0.55``."""
    return (f"difference {row['difference']:.2f} [{row['ci_low']:.2f}, "
            f"{row['ci_high']:.2f}]; {row['effect']} = {row['effect_size']:.2f}")


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


#: The note on the synthetic rows that match the thesis because the stand-ins were fitted
#: to them (preset ``thesis-humans``: first places against each order, pass share).
FITTED_NOTE = ("; fitted: the stand-ins' preset `thesis-humans` was fitted to this thesis "
               "number, so closeness to it is by construction, not a finding")


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def _share(value: float, low: float, high: float) -> str:
    """A share with its 95% interval, e.g. ``42.0% [39.8%, 44.2%]``."""
    return f"{_pct(value)} [{_pct(low)}, {_pct(high)}]"


def _interval(value: float, low: float, high: float, signed: bool = False) -> str:
    """``value [low, high]`` to two decimals; a value that rounds to zero prints as 0.00
    (never ``-0.00``, which would suggest a direction the data do not show)."""
    sign = "+" if signed else ""
    value, low, high = (round(x, 2) + 0.0 for x in (value, low, high))
    return f"{value:{sign}.2f} [{low:{sign}.2f}, {high:{sign}.2f}]"


def _flag(row: dict) -> str:
    if row["flag"] in (THESIS_TEST_FLAG, IDENTICAL_PLAY, NO_PLACEBO_FLAG, "n.s."):
        return row["flag"]
    return f"{row['flag']} (Holm p = {row['p_holm']:.3g})"


def _thesis_size(stats: dict[str, pd.DataFrame], a_spec: str, b_spec: str) -> str:
    """Our thesis's-test t on disjoint 500-deal blocks, to stand beside the thesis's t."""
    blocks = stats.get("thesis_size_tests")
    if blocks is None or not len(blocks):
        return ""
    part = blocks[(blocks["a_spec"] == a_spec) & (blocks["b_spec"] == b_spec)]
    if not len(part):
        return ""
    ts = ", ".join(f"{t:.2f}" for t in part["welch_t"])
    return (f"at the thesis's 500 games ({len(part)} disjoint blocks of our deals): "
            f"t(≈{part['welch_df'].mean():.0f}) = {ts}; ")


def _source(table: pd.DataFrame) -> str:
    return str(table["source"].iloc[0]) if "source" in table.columns and len(table) else "—"


def _same_moves(stats: dict[str, pd.DataFrame]) -> dict[tuple[str, str], str]:
    """(model, opponent label) -> how often it made the lower order's moves, as text.

    From the shared-deal comparisons in Table 7 (e.g. ToM2 and ToM1 against three ToM0;
    ToM2 vs 3 x ToM1 against the control ToM1 vs 3 x ToM1). Nothing is said without them.
    """
    notes: dict[tuple[str, str], str] = {}
    for r in stats.get("shared_deal_moves", pd.DataFrame()).to_dict("records"):
        whose = (f"the moves of {r['a']} in its seat (the control table {r['a']} vs 3 x "
                 f"{r['opponent']})" if r["a"] == r["opponent"] else f"{r['a']}'s moves")
        notes[(r["b"], r["opponent"])] = (
            f"{r['b']} made {whose} on {r['identical_deals']} of {r['deals']} shared deals"
            + (" (under the shipped monotone instance set)"
               if r["identical_deals"] == r["deals"] else ""))
    return notes


def _participant_same_moves(stats: dict[str, pd.DataFrame]) -> str:
    """The note on participant-side ToM2 rows when ToM2 made ToM1's moves, measured."""
    same = stats.get("participant_identical_play")
    if same is None or not len(same):
        return ""
    r = same.iloc[0]
    if r["identical_deals"] != r["deals"]:
        return (f"ToM2's games differed from ToM1's on {r['deals'] - r['identical_deals']} "
                f"of {r['deals']} shared participant deals")
    return (f"ToM2 made ToM1's moves on {r['identical_deals']} of {r['deals']} shared "
            "participant deals (under the shipped monotone instance set): this row repeats "
            "ToM1's")


def results_rows(stats: dict[str, pd.DataFrame]) -> list[tuple[str, str, str]]:
    """(statistic key as in THESIS or a new name, our value, source) for every statistic."""
    rows: list[tuple[str, str, str]] = []
    places = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}
    if "participant_rank_shares" in stats:
        shares = stats["participant_rank_shares"]
        source = _source(shares)
        same = _participant_same_moves(stats)

        def tom2(text: str, *labels: str) -> str:
            return f"{text}; {same}" if same and "ToM2" in labels else text

        clustered = "95% CI clustered by participant"
        fitted = FITTED_NOTE if source == "synthetic" else ""
        for r in shares.itertuples():
            rows.append((f"participants {places[r.rank]} vs {r.opponent_label}",
                         tom2(f"{_share(r.share, r.ci_low, r.ci_high)} of {r.games} games "
                              f"({clustered})" + (fitted if r.rank == 1 else ""),
                              r.opponent_label), source))
        for r in stats["participant_tests"].to_dict("records"):
            text = _t(pd.Series(r))
            if pd.isna(r["t"]) and same:
                text = f"{IDENTICAL_PLAY}: every difference {r['difference']:.2f}, no test"
            rows.append((f"paired t {r['a']} vs {r['b']}", tom2(text, r["a"], r["b"]), source))
        mixed = stats["participant_mixed_model"]
        for r in mixed.to_dict("records"):
            if r["term"] == "participant variance":
                rows.append(("mixed model: participant variance", f"{r['coef']:.3f}", source))
            else:
                rows.append((f"mixed model: {r['term']}",
                             tom2(f"{r['coef']:.3f} (SE {r['se']:.3f}, z = {r['z']:.2f}, "
                                  f"{_p(r['p'])}, 95% CI [{r['ci_low']:.2f}, "
                                  f"{r['ci_high']:.2f}])", *r["term"].split(" - ")),
                             source))
        for r in stats["prediction_accuracy"].itertuples():
            rows.append((f"accuracy {r.model} {r.actual}",
                         tom2(f"{_share(r.accuracy, r.ci_low, r.ci_high)} of {r.n} "
                              f"({clustered})", r.model), source))
        actions = stats["participant_actions"].iloc[0]
        rows.append(("participants' pass share",
                     f"{_share(actions['pass_share'], actions['ci_low'], actions['ci_high'])} "
                     f"of {int(actions['decisions'])} ({clustered}){fitted}", source))
        if "bad_moves" in stats:
            for r in stats["bad_moves"].itertuples():
                rows.append((f"marked bad {r.model}",  # two decimals, as the thesis
                             tom2(f"{100 * r.share:.2f}% [{100 * r.ci_low:.2f}%, "
                                  f"{100 * r.ci_high:.2f}%] ({r.marked} of {r.actions} "
                                  f"actions; {clustered})", r.model),
                             source))
            c = stats["feedback_concentration"].iloc[0]
            rows.append(("marks from the top 10% of participants",
                         (f"{_pct(c['top_share'])} ({int(c['top_participants'])} of "
                          f"{int(c['participants'])} participants, {int(c['marks'])} marks; "
                          "a share of marks, not of independent trials: no interval)"),
                         source))
            few = round(c["few_share"] * c["participants"])
            low, high = wilson_interval(few, int(c["participants"]))
            rows.append(("participants with < 10 marks", _share(c["few_share"], low, high),
                         source))
    notes = _same_moves(stats)

    def noted(text: str, model: str, opponent: str) -> str:
        note = notes.get((model, opponent))
        return f"{text}; {note}" if note else text

    tests = stats["simulation_tests"]
    source = _source(tests)
    welch = tests[tests["test"].str.startswith("Welch")]
    labels = dict(zip(welch["a_spec"], welch["a"], strict=True))  # opponent spec -> label
    for r in tests.to_dict("records"):
        kind = r["test"]
        opponent = labels.get(r["a_spec"], r.get("opponent"))
        if kind == "Welch t (rows)":
            name = f"Welch t {r['a']} vs {r['b']}"
        elif kind == "Welch t (game_mean)":
            name = f"Welch t {r['a']} (per-game mean) vs {r['b']}"
        elif kind == SHARED_DEALS_TEST:
            opponent = r["opponent"]
            name = f"paired t {r['a']} vs {r['b']} (shared deals, vs {opponent})"
        else:
            name = f"{r['b']} vs parity 1.5 (vs {opponent})"
        if kind == "Welch t (rows)":
            blocks = _thesis_size(stats, r["a_spec"], r["b_spec"])
            value = (f"{blocks}all {r['n_b']} games: {_difference(r)}" if blocks else
                     f"{_t(pd.Series(r))}; n = {r['n_a']} vs {r['n_b']} (no block of the "
                     "thesis's 500 games: this t is not comparable with the thesis's)")
        elif kind.startswith("Welch"):
            value = f"{_t(pd.Series(r))}; n = {r['n_a']} vs {r['n_b']}"
        elif kind == SHARED_DEALS_TEST:
            value = (f"{_t(pd.Series(r))}; Wilcoxon {_p(r['wilcoxon_p'])}; bootstrap 95% CI "
                     f"[{r['boot_ci_low']:.2f}, {r['boot_ci_high']:.2f}] "
                     f"({int(r['boot_resamples'])} resamples); wins {_pct(r['win_a'])} vs "
                     f"{_pct(r['win_b'])}, difference {_pct(r['win_difference'])} "
                     f"[{_pct(r['win_ci_low'])}, {_pct(r['win_ci_high'])}]; "
                     f"n = {int(r['deals'])} deals")
        else:
            value = f"{_t(pd.Series(r))}; n = {r['n_b']}"
        rows.append((name, noted(f"{value}; {_flag(r)}", r["b"], opponent), source))
    shares = stats["simulation_rank_shares"]
    for r in shares[shares["rank"] == 1].itertuples():
        rows.append((f"{r.focal_label} 1st vs {r.opponent_label}",
                     noted(f"{_share(r.share, r.ci_low, r.ci_high)} of {r.games} games",
                           r.focal_label, r.opponent_label), _source(shares)))
    sweep = stats["rt_sweep"]
    trends = stats.get("rt_trend")
    for (higher, lower), part in sweep.groupby(["higher", "lower"]):
        values = ", ".join(f"{r['rt']:g}: {_interval(r['mean'], r['ci_low'], r['ci_high'])} "
                           f"{r['flag']}" for r in part.to_dict("records"))
        trend = ""
        if trends is not None and len(trends):
            match = trends[(trends["higher"] == higher) & (trends["lower"] == lower)]
            if len(match):
                t = match.iloc[0]
                trend = (f"trend: {t['slope']:+.3f} [{t['ci_low']:+.3f}, {t['ci_high']:+.3f}] "
                         f"rank points per unit of RT over RT {t['rt_low']:g} to "
                         f"{t['rt_high']:g} (least squares, one value per game, "
                         f"{int(t['games'])} games); ")
        rows.append((f"rt sweep {higher} vs {lower}",
                     f"{trend}mean rank points [95% CI] by RT, flag = the model against "
                     f"parity 1.5, Holm over the sweep — {values}", _source(sweep)))
    if "token_recalls" in stats:
        recalls = stats["token_recalls"]
        for (model, rt), part in recalls.groupby(["model", "rt"]):
            by = part.set_index("source")
            shares_text = ", ".join(
                f"{s} {_share(by.loc[s, 'share'], by.loc[s, 'ci_low'], by.loc[s, 'ci_high'])}"
                for s in ("leaf", "root", "none") if s in by.index)
            rows.append((f"token recall {model} RT {rt:g}",
                         f"{shares_text}; mean |error| {by.loc['all', 'mean_abs_error']:.2f}",
                         str(recalls["data_source"].iloc[0])))
    return rows


def results_table(stats: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Ours beside the thesis's value (with its section) for every statistic, with the
    source of ours."""
    ours = {key: (value, source) for key, value, source in results_rows(stats)}
    keys = list(ours) + [k for k in THESIS if k not in ours]  # ours in section order
    return pd.DataFrame([{
        "statistic": key, "thesis": THESIS.get(key, ("—", ""))[0],
        "where": THESIS.get(key, ("", "—"))[1],
        "ours": ours.get(key, ("not computed", ""))[0],
        "source": ours.get(key, ("", "—"))[1],
    } for key in keys])


def results_banner(results: pd.DataFrame) -> str:
    """The warning ``results.md`` opens with when any row is synthetic, else ""."""
    synthetic = int((results["source"] == "synthetic").sum())
    if not synthetic:
        return ""
    return (f"> **{SYNTHETIC_LABEL}.** {synthetic} rows below (source `synthetic`) come from "
            "stand-in agents playing the participants' seat; they exercise the analysis and "
            "are not human data. Figures drawn from them carry the same label.\n")


def readings_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The readings ablation (:func:`~.readings.readings_table`) as text, one row per
    reading: shares with Wilson intervals, paired margins with t intervals."""
    def margin(r: pd.Series, kind: str, name: str) -> str:
        value = r[f"{kind}_{name}"]
        if pd.isna(value):
            return "—"
        return _interval(value, r[f"{kind}_{name}_ci_low"], r[f"{kind}_{name}_ci_high"],
                         signed=True)

    rows = []
    for _, r in table.iterrows():
        rows.append({
            "reading": r["reading"],
            "ToM1 vs 3 ToM0: win share": _share(r["tom1_win_share"], r["tom1_win_ci_low"],
                                                r["tom1_win_ci_high"]),
            "ToM1 margin": margin(r, "tom1", "margin"),
            "ToM1 margin vs default": margin(r, "tom1", "vs_default"),
            "ToM2 vs 3 ToM1: win share": _share(r["tom2_win_share"], r["tom2_win_ci_low"],
                                                r["tom2_win_ci_high"]),
            "ToM2 margin": margin(r, "tom2", "margin"),
            "ToM2 margin vs default": margin(r, "tom2", "vs_default"),
            "ToM2 move differs from ToM1's": _share(r["tom2_differs"],
                                                    r["tom2_differs_ci_low"],
                                                    r["tom2_differs_ci_high"]),
            "recall exact": _share(r["exact_share"], r["exact_share_ci_low"],
                                   r["exact_share_ci_high"]),
            "older leaf beats newest": _share(r["older_leaf_rate"],
                                              r["older_leaf_rate_ci_low"],
                                              r["older_leaf_rate_ci_high"]),
            "deals": int(r["tom2_games"]),
            "source": r["source"],
        })
    return pd.DataFrame(rows)
