"""LogRows.add_game builds its columns in bulk; these tests hold it to the plain
construction — one row at a time, straight from the schema's meaning — value for value
and type for type, for model games (predictions, recalls, oracle counts, traces),
baseline games and a participant's session game with bad-move marks.

Part files are written for speed (snappy, no statistics) and read with one-file
readers; these tests hold the values to what the schema built, the merged tables to the
kept format, a damaged footer to a clear error, and the parts' removal to completeness."""
from __future__ import annotations

import io
import random

import pyarrow.parquet as pq
import pytest

import nothanks.agents.cognitive  # noqa: F401  (registers the tom specs)
from nothanks.experiments import Design, ParticipantSession, run_design
from nothanks.experiments.design import Schedule, Table
from nothanks.experiments.rows import LogContext, LogRows, model_info, trace_json
from nothanks.experiments.schema import KEEP, LogError, parquet_bytes, read_table, to_arrow
from nothanks.experiments.store import PARTS
from nothanks.experiments.workers import build_agents, play_chunk
from nothanks.play.match import Match
from nothanks.rules import Variant, card_points

SHORT = Variant(removed=16)  # 17 cards: short games, every decision kind still occurs
MODELS = Design(
    name="rows-models", seed=5, games=2, rotate=True, variant=SHORT,
    tables=(Table("ToM2 vs ToM1", ("tom1:rt=0.0", "tom0", "tom1", "tom2:rt=0.0"), 3),
            Table("oracle", ("tom2:oracle_tokens=true", "tom0", "tom1", "tom0")),
            Table("baselines", ("random", "random", "heuristic", "random"))),
)
TRACED = Design(
    name="rows-traced", seed=3, games=1, variant=Variant(removed=22),
    tables=(Table("traced", ("tom1", "tom0", "tom2", "random")),),
)
SESSION = Design(
    name="rows-session", seed=2, rotate=True, variant=SHORT,
    tables=(Table("H", ("human", "tom1", "tom2", "random"), 0),),
    schedule=Schedule(("H",), (1,), ()),
)


def reference_rows(design: Design, traces: bool, games) -> dict[str, dict[str, list]]:
    """The log rows of ``games`` ((plan, record) pairs), built one row at a time."""
    # (no learning agent plays here: its table stays empty, tests/unit/test_trials.py covers it)
    out = {t: {} for t in ("games", "decisions", "predictions", "recalls", "traces",
                           "learning")}

    def row(table: str, **values) -> None:
        for column, value in values.items():
            out[table].setdefault(column, []).append(value)

    for plan, rec in games:
        cond = design.conditions[plan.condition]
        keys = dict(game_id=plan.position, condition=plan.condition, block=plan.block,
                    practice=plan.practice, deal=plan.occurrence, seed=rec.seed)
        focal = [cond.focal is not None and plan.roles[s] == cond.focal
                 for s in range(rec.players)]
        decisions = rec.decisions
        human_game = any(d.marks is not None for d in decisions)
        for s in range(rec.players):
            row("games", **keys, seat=s, role=plan.roles[s], focal=focal[s],
                player_kind=rec.kinds[s], agent=rec.agents[s], agent_label=rec.labels[s],
                tom_order=rec.tom_orders[s], cards=tuple(rec.cards[s]),
                card_points=card_points(rec.cards[s]), tokens=rec.tokens[s],
                score=rec.scores[s], rank=rec.ranks[s], rank_points=rec.rank_points[s],
                turns=len(decisions))
        marked, last = set(), {}
        for i, d in enumerate(decisions):
            marked |= {last[s] for s in d.marks or () if s in last}
            last[d.seat] = i
        for i, d in enumerate(decisions):
            info = model_info(d.info)
            is_model = "tom_order" in info
            kind = rec.kinds[d.seat]
            predictions = info.get("predictions") or []
            sources = {}
            for k, p in enumerate(predictions):
                target = int(p["seat"])
                sources.setdefault(target, str(p["source"]))
                later = [str(e.action) for e in decisions[i + 1:]
                         if (e.card, e.seat) == (d.card, target)]
                actual = later[0] if later else None
                row("predictions", game_id=plan.position, turn=d.turn, seat=d.seat,
                    agent=d.agent, index=k, target_seat=target,
                    predicted_action=str(p["action"]),
                    tokens_assumed=tuple(int(v) for v in p["tokens_assumed"]),
                    source=str(p["source"]), true_tokens=d.true_tokens[target],
                    actual_action=actual,
                    correct=None if actual is None else actual == str(p["action"]))
            failures = 0
            recalled = info.get("recalled_tokens") or {}
            for target in sorted(recalled):
                values = tuple(int(v) for v in recalled[target])
                by_count = {1: "leaf", 2: "root"}.get(len(values), "default")
                source = sources.get(target) or (
                    "oracle" if "oracle" in sources.values() else by_count)
                failures += source in ("root", "default")
                truth = d.true_tokens[target]
                row("recalls", game_id=plan.position, turn=d.turn, seat=d.seat,
                    agent=d.agent, target_seat=target, recalled=values, source=source,
                    true_tokens=truth, exact=values == (truth,),
                    leaf_is_newest=(info.get("leaf_is_newest") or {}).get(target))
            row("decisions", **keys, turn=d.turn, seat=d.seat, role=plan.roles[d.seat],
                focal=focal[d.seat], player_kind=kind, agent=d.agent,
                agent_label=rec.labels[d.seat], tom_order=rec.tom_orders[d.seat],
                card=d.card, tokens_on_card=d.tokens_on_card, tokens_before=d.tokens_before,
                cards_before=d.cards_before, cards_left=d.cards_left,
                sequence_category=d.sequence_category, action=str(d.action),
                forced=d.forced, model_time=info.get("model_time"),
                latency=info.get("latency"), reason=info.get("reason"),
                own_tom0_action=info.get("own_tom0_action"),
                instance_failures=info.get("instance_failures"),
                predictions=len(predictions) if is_model else None,
                decision_time=d.decision_time,
                marks=d.marks if human_game and kind == "human" else None,
                marked_bad=(i in marked) if human_game and kind == "model" else None,
                recall_failures=(failures if recalled else 0) if is_model else None)
            if traces and d.trace is not None:
                row("traces", game_id=plan.position, turn=d.turn, seat=d.seat,
                    trace=trace_json(d.trace))
    return out


def assert_same_rows(built: LogRows, expected: dict[str, dict[str, list]]) -> None:
    for table, columns in built.columns.items():
        rows = len(columns["game_id"])
        for column, values in columns.items():
            want = expected[table].get(column, [])
            assert len(values) == rows, f"{table}.{column}: ragged column"
            assert values == want, f"{table}.{column} differs"
            assert [type(v) for v in values] == [type(v) for v in want], \
                f"{table}.{column}: other Python types"


def play(design: Design, traces: bool) -> list:
    """Every game of ``design`` as (plan, record), decisions recorded."""
    games = []
    for plan in design.plan():
        agents = build_agents(design, plan.condition)
        for agent in agents:
            if hasattr(agent, "traces"):
                agent.traces = traces
        games.append((plan, Match([agents[r] for r in plan.roles], design.variant,
                                  plan.seed, game_id=plan.position).run()))
    return games


def rows_of(design: Design, games, traces: bool = False, **context) -> LogRows:
    built = LogRows(LogContext(design.name, "x", **context), design, traces=traces)
    for plan, record in games:
        built.add_game(plan, record)
    return built


def test_model_and_baseline_rows_equal_the_plain_construction():
    games = play(MODELS, traces=False)
    built = rows_of(MODELS, games)
    assert_same_rows(built, reference_rows(MODELS, False, games))
    # the games exercise what the bulk construction has to get right
    recalls, predictions = built.columns["recalls"], built.columns["predictions"]
    assert set(recalls["source"]) == {"leaf", "root", "default", "oracle"}
    assert any(built.columns["decisions"]["recall_failures"])  # some count >= 1
    assert None in predictions["actual_action"] and {True, False} <= set(predictions["correct"])
    assert None in built.columns["decisions"]["predictions"]  # the baselines


def test_traced_rows_equal_the_plain_construction():
    games = play(TRACED, traces=True)
    assert sum(d.trace is not None for _, r in games for d in r.decisions) >= 5
    for traces in (True, False):
        built = rows_of(TRACED, games, traces)
        assert_same_rows(built, reference_rows(TRACED, traces, games))
        assert len(built.columns["traces"]["trace"]) == (
            sum(d.trace is not None for _, r in games for d in r.decisions) if traces else 0)


def test_a_participant_game_with_marks_equals_the_plain_construction(tmp_path):
    session = ParticipantSession("P07", tmp_path, SESSION)
    choose = random.Random(4)
    marked = False
    while not session.game_over:
        if session.human_to_move:
            marks = [s for s in (1, 2, 3) if choose.random() < 0.3]
            try:
                session.human_acts(choose.choice(["take", "pass"]), marks=marks)
                marked |= bool(marks)
            except ValueError:  # a seat that has not moved yet cannot be marked
                session.human_acts("take")
        else:
            session.step()
    games = [(session.plan, session.last_result)]
    built = rows_of(SESSION, games, participant="P07")
    assert marked and True in built.columns["decisions"]["marked_bad"]
    assert_same_rows(built, reference_rows(SESSION, False, games))


SMALL = Design(name="rows-fast", seed=7, games=3, variant=Variant(removed=20), tables=(
    Table("random", ("random",) * 4, 0),
    Table("mixed", ("random", "heuristic", "random", "heuristic"), 1)))
#: Models too: every row table gets rows (predictions, recalls).
MODEL_PARTS = Design(name="rows-fast-models", seed=3, games=2, variant=Variant(removed=20),
                tables=(Table("tom", ("tom2", "tom1", "tom0", "random"), 0),))


def _codecs_and_statistics(data: bytes) -> tuple[set[str], bool]:
    meta = pq.read_metadata(io.BytesIO(data))
    columns = [meta.row_group(g).column(c) for g in range(meta.num_row_groups)
               for c in range(meta.num_columns)]
    return {c.compression for c in columns}, any(c.is_stats_set for c in columns)


@pytest.mark.parametrize("design", [SMALL, MODEL_PARTS], ids=["baselines", "models"])
def test_part_bytes_read_back_as_the_schema_built_them(design):
    context = LogContext(design.name, design.hash)
    parts = play_chunk(design, 0, design.total_games, context)
    rows = LogRows(context, design)  # the same games again, kept as columns
    for plan in design.plan(0, design.total_games):
        agents = build_agents(design, plan.condition)
        rows.add_game(plan, Match([agents[r] for r in plan.roles], design.variant, plan.seed,
                                  game_id=plan.position).run())
    for table, data in parts.items():
        if design is SMALL and table in ("predictions", "recalls"):
            assert pq.read_metadata(io.BytesIO(data)).num_rows == 0
            continue
        columns = {k: [v] * len(rows.columns[table]["game_id"]) for k, v in
                   zip(LogRows.CONSTANT, (design.name, design.hash, None, False), strict=True)}
        built = to_arrow(table, columns | rows.columns[table])
        back = pq.read_table(io.BytesIO(data))
        assert back.num_rows == built.num_rows > 0
        assert back.equals(built)
        assert back.schema.metadata == built.schema.metadata
        # the same content as a kept file: only the encoding differs
        kept = pq.read_table(io.BytesIO(parquet_bytes(built, KEEP)))
        assert kept.equals(back) and kept.schema.equals(back.schema, check_metadata=True)
        assert _codecs_and_statistics(data) == ({"SNAPPY"}, False)


def test_merged_tables_are_zstd_with_statistics_and_hold_every_part(tmp_path):
    out = tmp_path / "run"
    run_design(SMALL, out, jobs=1, chunk_size=2, progress=False)
    assert not (out / PARTS).exists()
    for table in ("games", "decisions"):
        codecs, statistics = _codecs_and_statistics((out / f"{table}.parquet").read_bytes())
        assert codecs == {"ZSTD"} and statistics
        merged = read_table(out / f"{table}.parquet", table)
        assert sorted(set(merged.column("game_id").to_pylist())) == list(
            range(SMALL.total_games))


def test_a_file_with_a_damaged_footer_is_a_log_error(tmp_path):
    context = LogContext(SMALL.name, SMALL.hash)
    data = bytearray(play_chunk(SMALL, 0, 1, context)["games"])
    at = data.index(b"rank_points")  # a column name in the metadata, made invalid UTF-8
    data[at:at + 2] = b"\x91\x92"
    path = tmp_path / "part.parquet"
    path.write_bytes(bytes(data))
    with pytest.raises(LogError, match="cannot be read as Parquet"):
        read_table(path, "games")
