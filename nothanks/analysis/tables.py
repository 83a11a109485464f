"""The named statistics tables behind the figures and the results table, from loaded logs.

The functions here take experiment logs (:class:`nothanks.experiments.Log`, or anything
with the same DataFrame attributes) and return named DataFrames, so the figures and the
``nothanks figures`` command share one definition of every number. Labels, orders and
parameters come from the logged columns, never from agent specs: this package does not
import the models.
"""
from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any, Protocol

import pandas as pd

from .frames import AnalysisInputError, focal_rows, game_key, with_agent_labels
from .paired import (
    cluster_share,
    data_source,
    direction_flags,
    focal_divergence,
    paired_conditions,
    with_source,
)
from .stats import (
    WELCH_SAMPLES,
    bad_move_shares,
    feedback_concentration,
    paired_tests,
    parity_test,
    participant_games,
    participant_means,
    participant_mixed_model,
    prediction_accuracy,
    predictions_about,
    rank_shares,
    recall_summary,
    rt_sweep,
    rt_trend,
    welch_rank_points,
)


class LogTables(Protocol):
    """The tables of an experiment log that the statistics read."""

    experiments: pd.DataFrame
    conditions: pd.DataFrame
    games: pd.DataFrame
    decisions: pd.DataFrame
    predictions: pd.DataFrame
    recalls: pd.DataFrame

    def sweep(self) -> pd.DataFrame: ...


# --------------------------------------------------------------- logged parameters
def logged_parameters(experiments: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Every agent spec the experiments used -> all its parameters (defaults filled in).

    Read from the ``parameters`` JSON the runner logs, so a spec's defaults are the ones
    the run actually used, without importing the models.
    """
    merged: dict[str, dict[str, Any]] = {}
    for text in experiments["parameters"].dropna():
        merged.update(json.loads(text))
    return merged


def logged_thresholds(experiments: pd.DataFrame) -> dict[str, float]:
    """The token memory's retrieval threshold ``rt`` of every logged spec that has one."""
    return {spec: float(params["rt"])
            for spec, params in logged_parameters(experiments).items() if "rt" in params}


def with_rt(log: LogTables) -> pd.DataFrame:
    """The log's games with the swept ``rt`` of their condition."""
    sweep = log.sweep()
    if "rt" not in sweep.columns:
        raise AnalysisInputError("figure14 log: its conditions sweep no 'rt'")
    key = ["experiment", "design_hash", "condition"]
    return log.games.merge(sweep[key + ["rt"]], on=key, how="left")


# ----------------------------------------------------------------- simulations
def simulation_rank_shares(games: pd.DataFrame) -> pd.DataFrame:
    """Figures 11-13: places of each focal model order against each opponent order."""
    focal = focal_rows(games)
    return with_source(pd.concat([rank_shares(part).assign(focal_label=label)
                                  for label, part in focal.groupby("focal_label")],
                                 ignore_index=True), games)


#: The ``test`` of the comparisons of two focal models on shared deals.
SHARED_DEALS_TEST = "paired t (shared deals)"


def focal_pairs(games: pd.DataFrame) -> list[tuple[int, int, pd.Series, pd.Series]]:
    """Pairs of conditions (lower order first) whose focal models of different orders
    face the same opponents: those a paired comparison on shared deals can tell apart."""
    per_condition = focal_rows(games).groupby("condition").agg(
        agent=("agent", "first"), focal_label=("focal_label", "first"),
        order=("tom_order", "first"), opponent=("opponent", "first"),
        opponent_label=("opponent_label", "first"))
    pairs = []
    for _, group in per_condition.groupby("opponent", sort=True):
        ranked = group.dropna(subset=["order"]).sort_values("order")
        for (a, low), (b, high) in itertools.combinations(ranked.iterrows(), 2):
            if low["order"] != high["order"]:
                pairs.append((int(a), int(b), low, high))
    return pairs


def shared_deal_tests(games: pd.DataFrame) -> pd.DataFrame:
    """Two focal models against the same opponents, deal by deal (e.g. ToM1 and ToM2
    against three ToM0): ``a`` is the lower order, ``b`` the higher, as in the thesis."""
    rows = [{"a": low["focal_label"], "b": high["focal_label"], "a_spec": low["agent"],
             "b_spec": high["agent"], "opponent": high["opponent_label"],
             "test": SHARED_DEALS_TEST, **paired_conditions(games, a, b)}
            for a, b, low, high in focal_pairs(games)]
    return pd.DataFrame(rows)


def shared_deal_moves(games: pd.DataFrame, decisions: pd.DataFrame) -> pd.DataFrame:
    """Whether two focal models against the same opponents made the same moves, per deal.

    For every pair of :func:`focal_pairs`: deals compared, deals on which the two focal
    decision sequences are identical, and the per-decision rate of difference
    (:func:`~.paired.focal_divergence`).
    """
    rows = [{"a": low["focal_label"], "b": high["focal_label"],
             "opponent": high["opponent_label"], **focal_divergence(decisions, a, b)}
            for a, b, low, high in focal_pairs(games)]
    return with_source(pd.DataFrame(rows), games)


#: The tests whose placebo rate is about 5% (:mod:`.placebo`): the only ones that flag.
FLAGGED_TESTS = ("one-sample t vs parity", SHARED_DEALS_TEST)
#: The flag of a test that is reported but may not flag (it over-rejects in the placebo).
THESIS_TEST_FLAG = "thesis's test: no flag"
#: The placebo test (:data:`nothanks.analysis.placebo.TESTS`) that judges each of
#: :data:`FLAGGED_TESTS`.
PLACEBO_OF = {"one-sample t vs parity": "parity", SHARED_DEALS_TEST: "paired_deals"}
#: The flag of a test its placebo does not clear (:func:`~.placebo.placebo_judgement`):
#: its false-positive interval lies above 5%, or a pool ran it on too few sets to judge.
NO_PLACEBO_FLAG = "no flag: not cleared by its placebo (see Valid tests)"
#: The flag where two conditions made identical moves on shared deals.
IDENTICAL_PLAY = "identical play"


def _comparison(row: pd.Series) -> tuple[str, str]:
    """(lower, higher) order a test compares: a parity test of ToM2 against three ToM1
    and the paired test of ToM1 and ToM2 on shared deals are one comparison."""
    if row["test"] == SHARED_DEALS_TEST:
        return str(row["a"]), str(row["b"])
    return str(row["a_label"] if "a_label" in row and pd.notna(row.get("a_label"))
               else row["a"]), str(row["b"])


def simulation_tests(games: pd.DataFrame, identical: set[tuple[str, str]] | None = None,
                     flagging: Sequence[str] = FLAGGED_TESTS) -> pd.DataFrame:
    """Welch tests in both readings, the one-sample test against parity and the paired
    comparison on shared deals, per design.

    Flags come only from tests whose placebo false-positive rate is about 5%
    (:data:`FLAGGED_TESTS`: the focal model against parity, one value per game, and the
    paired test on shared deals); the Welch tests are reported as the thesis's test with
    ``flag`` = :data:`THESIS_TEST_FLAG`. A test of a comparison in ``identical`` ((higher
    label, opponent label) pairs whose two sides made the same moves on every shared
    deal), or a paired test whose every difference is 0, is flagged
    :data:`IDENTICAL_PLAY` and left out of the corrections. The Holm families are the
    comparisons (lower, higher order): every flagged variant of one comparison is one
    family. ``p_holm`` is the adjusted p; ``flag`` says whether ``b`` (the higher-order
    model) scored ``higher`` or ``lower`` than ``a``, or ``n.s.``. ``flagging``: the
    tests of :data:`FLAGGED_TESTS` that may flag (:func:`~.placebo.may_flag`); the others
    are reported with ``flag`` = :data:`NO_PLACEBO_FLAG`.
    """
    identical = identical or set()
    focal = focal_rows(games)
    welch = [welch_rank_points(games, sample) for sample in WELCH_SAMPLES]
    parity = parity_test(focal).rename(columns={"agent": "b_spec", "opponent": "a_spec"})
    labels = dict(zip(focal["agent"], focal["focal_label"], strict=True))
    opponents = dict(zip(focal["opponent"], focal["opponent_label"], strict=True))
    parity["a"], parity["b"] = "parity", parity["b_spec"].map(labels)
    paired = shared_deal_tests(games) if "deal" in games.columns else pd.DataFrame()
    table = pd.concat([*welch, parity, paired], ignore_index=True)
    table["a_label"] = table["a_spec"].map(opponents)
    table.loc[table["test"] == SHARED_DEALS_TEST, "a_label"] = table["a"]
    table["p_holm"], table["flag"] = float("nan"), THESIS_TEST_FLAG
    table.loc[table["test"].isin(set(FLAGGED_TESTS) - set(flagging)),
              "flag"] = NO_PLACEBO_FLAG
    flagged = table["test"].isin(set(FLAGGED_TESTS) & set(flagging))
    same = pd.Series([(r["test"] != SHARED_DEALS_TEST and (r["b"], r["a_label"]) in identical)
                      or (r["test"] == SHARED_DEALS_TEST and pd.isna(r["t"])
                          and r["difference"] == 0)
                      for _, r in table.iterrows()], index=table.index)
    table.loc[flagged & same, "flag"] = IDENTICAL_PLAY
    tested = table[flagged & ~same]
    keys = tested.apply(_comparison, axis=1)
    for _, family in tested.groupby(keys, sort=False):
        adjusted, flags = direction_flags(family["p"], family["mean_b"] > family["mean_a"])
        table.loc[family.index, "p_holm"] = adjusted
        table.loc[family.index, "flag"] = flags
    return with_source(table, games)


def thesis_size_tests(games: pd.DataFrame, size: int = 500) -> pd.DataFrame:
    """The thesis's rows-Welch test and the valid parity test on disjoint blocks of
    ``size`` deals (the thesis's 500), so a t can be put beside the thesis's t: per focal
    design and block, t, df and p of both (thesis sign: t < 0 when the focal model scores
    more). Blocks follow the deal (else game) order; a last partial block is dropped."""
    focal = focal_rows(games)
    order = "deal" if "deal" in focal.columns else "game_id"
    rows = []
    for (focal_spec, opponent_spec), group in focal.groupby(["agent", "opponent"], sort=True):
        group = group.sort_values(order)
        for block in range(len(group) // size):
            part = group.iloc[block * size:(block + 1) * size]
            chosen = games.merge(part[game_key_columns(part)], on=game_key_columns(part))
            welch = welch_rank_points(chosen, "rows")
            parity = parity_test(focal_rows(chosen))
            w, p = welch.iloc[0], parity.iloc[0]
            rows.append({"a": w["a"], "b": w["b"], "a_spec": opponent_spec,
                         "b_spec": focal_spec, "block": block, "games": size,
                         "welch_t": w["t"], "welch_df": w["df"], "welch_p": w["p"],
                         "parity_t": p["t"], "parity_df": p["df"], "parity_p": p["p"],
                         "parity_d": p["effect_size"]})
    return with_source(pd.DataFrame(rows), games)


def game_key_columns(frame: pd.DataFrame) -> list[str]:
    """The columns that name one game in ``frame`` (:func:`~.frames.game_key`)."""
    return [c for c in game_key(frame) if c in frame.columns]


def token_recalls(recalls: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Recall sources and errors per model order and threshold (``games`` carries ``rt``);
    where the games came from is ``data_source`` here."""
    rt_of = games.drop_duplicates(["game_id"]).set_index("game_id")["rt"]
    labelled = with_agent_labels(recalls, games)
    labelled = labelled.assign(model=labelled["agent_label"].astype(str),
                               rt=labelled["game_id"].map(rt_of))
    # ``source`` already names where a recall came from (leaf, root, none)
    return recall_summary(labelled, by=("model", "rt")).assign(data_source=data_source(games))


def control_conditions(games: pd.DataFrame) -> list[int]:
    """Conditions whose focal model is of its opponents' order (read from the logged
    labels, e.g. the table7 design's control ToM1 vs 3 x ToM1): tables of identical
    players, which enter no Table 7 statistic, only :func:`shared_deal_moves` (against
    them, a higher order on the same deals shows whether it moves differently at all)."""
    focal = focal_rows(games)
    same = focal[focal["focal_label"].astype(str) == focal["opponent_label"].astype(str)]
    return sorted(int(c) for c in same["condition"].unique())


def flagging_tests(judgement: dict[str, bool]) -> tuple[str, ...]:
    """The tests of :data:`FLAGGED_TESTS` that may flag under ``judgement``
    (:func:`~.placebo.placebo_judgement`): those whose placebo does not say no."""
    return tuple(t for t in FLAGGED_TESTS if judgement.get(PLACEBO_OF[t], True))


def statistics(table7: LogTables, figure14: LogTables,
               participants: LogTables | None = None,
               flagging: Sequence[str] = FLAGGED_TESTS) -> dict[str, pd.DataFrame]:
    """Every statistic the thesis figures and the results table use, as named tables.

    ``table7`` and ``figure14`` are the logs of those designs (the control tables of
    ``table7``, :func:`control_conditions`, only feed ``shared_deal_moves`` and through
    it the "identical play" flag, :func:`identical_plays`); ``participants`` the
    participant sessions (their statistics are left out when ``None``). Every table has
    a ``source`` column read from its log. ``flagging``: the tests that may flag
    (:func:`simulation_tests`; :func:`flagging_tests` reads them from the placebo).
    """
    controls = control_conditions(table7.games)
    games7 = table7.games[~table7.games["condition"].isin(controls)]
    out: dict[str, pd.DataFrame] = {
        "simulation_rank_shares": simulation_rank_shares(games7)}
    if "deal" in table7.games.columns and len(table7.decisions):
        out["shared_deal_moves"] = shared_deal_moves(table7.games, table7.decisions)
    out["simulation_tests"] = simulation_tests(games7, identical_plays(out), flagging)
    out["thesis_size_tests"] = thesis_size_tests(games7)
    games14 = with_rt(figure14)
    sweep = rt_sweep(games14, logged_thresholds(figure14.experiments))
    if "one-sample t vs parity" not in flagging:  # the sweep's flags are parity tests
        sweep = sweep.assign(p_holm=float("nan"), flag=NO_PLACEBO_FLAG)
    out["rt_sweep"] = with_source(sweep, figure14.games)
    out["rt_trend"] = with_source(rt_trend(games14, logged_thresholds(figure14.experiments)),
                                  figure14.games)
    if len(figure14.recalls):
        out["token_recalls"] = token_recalls(figure14.recalls, games14)
    if participants is not None:
        out.update(participant_statistics(participants))
    return out


def identical_plays(stats: dict[str, pd.DataFrame]) -> set[tuple[str, str]]:
    """(model, opponent label) of the tables that are tables of identical players in
    effect: on every shared deal the model made the moves of a model of its opponents'
    order in its seat (``shared_deal_moves``' rows whose ``a`` is the opponents' order,
    e.g. ToM2 vs 3 x ToM1 against table7's control ToM1 vs 3 x ToM1); nothing is assumed
    without such a row. (Two focal models on shared deals whose every difference is 0,
    e.g. ToM1 and ToM2 against three ToM0, are recognised by :func:`simulation_tests`
    itself.)"""
    moves = stats.get("shared_deal_moves")
    if moves is None:
        return set()
    return {(str(r["b"]), str(r["opponent"])) for r in moves.to_dict("records")
            if r["a"] == r["opponent"] and r["deals"] > 0
            and r["identical_deals"] == r["deals"]}


# ---------------------------------------------------------------- participants
def participant_statistics(log: LogTables) -> dict[str, pd.DataFrame]:
    """Figures 8-10, the paired tests, the mixed model and the feedback statistics, each
    with the ``source`` of the sessions (``synthetic`` when stand-ins played).

    Every share's interval is clustered by participant (cluster bootstrap,
    :func:`~.paired.cluster_share`): a participant's games, decisions and marks are not
    independent trials. ``participant_identical_play`` counts the deals on which the
    ToM2 opponents made exactly the ToM1 opponents' moves against the same participant.
    """
    out: dict[str, pd.DataFrame] = {}
    focal = focal_rows(log.games)
    played = participant_games(focal)
    shares = rank_shares(played)
    out["participant_rank_shares"] = _clustered(
        shares, played.assign(_hit=0.0), ["opponent_label", "rank"],
        lambda frame, key: (frame["opponent_label"] == key[0]) & (frame["rank"] == key[1]),
        by="opponent_label")
    means = participant_means(focal)
    out["participant_means"] = means
    out["participant_tests"] = paired_tests(means)
    out["participant_mixed_model"] = participant_mixed_model(focal)
    decisions = _without_practice(log.decisions)
    predictions = log.predictions.merge(
        decisions[["participant", "game_id"]].drop_duplicates(), on=["participant", "game_id"])
    about = predictions_about(predictions, log.games, "human")
    accuracy = prediction_accuracy(about)
    resolved = about[about["actual_action"].notna()]
    rows = []
    for r in accuracy.to_dict("records"):
        part = resolved[resolved["agent_label"].astype(str) == r["model"]]
        if r["actual"] != "all":
            part = part[part["actual_action"].astype(str) == r["actual"]]
        hits = (part["predicted_action"].astype(str) == part["actual_action"].astype(str))
        rows.append(_participant_share(hits, part["participant"]))
    accuracy[["ci_low", "ci_high"]] = [row[1:] for row in rows]
    out["prediction_accuracy"] = accuracy.assign(interval="clustered by participant")
    human = decisions[decisions["player_kind"] == "human"]
    if len(human):
        share, low, high = _participant_share(human["action"] == "pass", human["participant"])
    else:
        share = low = high = float("nan")
    out["participant_actions"] = pd.DataFrame([{
        "decisions": len(human), "pass_share": share, "ci_low": low, "ci_high": high,
        "interval": "clustered by participant"}])
    marked = decisions[decisions["marked_bad"].notna()]
    if len(marked):
        bad = bad_move_shares(marked)
        models = marked[marked["tom_order"].notna()]
        bounds = [_participant_share(
            models.loc[models["agent_label"].astype(str) == model, "marked_bad"].astype(bool),
            models.loc[models["agent_label"].astype(str) == model, "participant"])[1:]
            for model in bad["model"]]
        bad[["ci_low", "ci_high"]] = bounds
        out["bad_moves"] = bad.assign(interval="clustered by participant")
        out["feedback_concentration"] = feedback_concentration(
            decisions.assign(marked_bad=decisions["marked_bad"].fillna(False)))
    identical = participant_identical_play(_without_practice(log.games), decisions)
    if identical is not None:
        out["participant_identical_play"] = identical
    source = data_source(log.games)
    return {name: table.assign(source=source) for name, table in out.items()}


def _participant_share(hits: pd.Series, participants: pd.Series) -> tuple[float, float, float]:
    """A share with its cluster-bootstrap interval over participants."""
    per = hits.astype(float).groupby(participants.astype(str).to_numpy()).agg(["sum", "size"])
    return cluster_share(per["sum"].to_numpy(), per["size"].to_numpy())


def _clustered(shares: pd.DataFrame, games: pd.DataFrame, keys: list[str], select,
               by: str) -> pd.DataFrame:
    """``shares`` (one row per ``keys``) with participant-clustered intervals: the share
    of the games of the row's ``by`` group that ``select`` picks."""
    bounds = []
    for r in shares.to_dict("records"):
        group = games[games[by] == r[by]]
        hits = select(group, tuple(r[k] for k in keys))
        bounds.append(_participant_share(hits, group["participant"])[1:])
    return shares.assign(ci_low=[b[0] for b in bounds], ci_high=[b[1] for b in bounds],
                         interval="clustered by participant")


def participant_identical_play(games: pd.DataFrame, decisions: pd.DataFrame,
                               a: str = "ToM1", b: str = "ToM2") -> pd.DataFrame | None:
    """Deals on which one participant met models ``a`` and ``b`` (the same deal, in
    any blocks), and how many of them the two games' decisions (turn, seat, card, action)
    were identical on: then the ``b`` models made exactly the ``a`` models' moves and the
    participant's too. None when the log has no such pairs."""
    needed = {"participant", "game_id", "deal", "agent_label", "tom_order"}
    if not needed <= set(games.columns) or "deal" not in decisions.columns:
        return None
    opponents = games[games["tom_order"].notna()].drop_duplicates(["participant", "game_id"])
    labels = opponents.set_index(["participant", "game_id"])["agent_label"].astype(str)
    moves = decisions.assign(_label=[labels.get((p, g)) for p, g in
                                     zip(decisions["participant"], decisions["game_id"],
                                         strict=True)])
    moves = moves[moves["_label"].isin([a, b])].sort_values(["participant", "game_id", "turn"])
    sequences = moves.groupby(["participant", "deal", "_label"])[
        ["turn", "seat", "card", "action"]].apply(
            lambda part: tuple(map(tuple, part.astype(str).to_numpy())))
    wide = sequences.unstack("_label")
    if a not in wide.columns or b not in wide.columns:
        return None
    both = wide.dropna(subset=[a, b])
    if not len(both):
        return None
    same = int((both[a] == both[b]).sum())
    return pd.DataFrame([{"a": a, "b": b, "deals": len(both), "identical_deals": same,
                          "participants": both.index.get_level_values("participant").nunique()}])


def _without_practice(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[~frame["practice"].fillna(False).astype(bool)]
