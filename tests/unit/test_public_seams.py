"""The public seams between modules (issue 27, "no private access across modules"):
the declarative memory's API for fast paths, the game's read-only state to move, and the ToM
model's pluggable opponent model (docs/actr.md, "Public API for fast paths";
docs/models.md)."""
from __future__ import annotations

import numpy as np
import pytest

from nothanks.actr import DeclarativeMemory, ExactMatch, Linear, Weber
from nothanks.agents.cognitive.bayes import BayesToMAgent
from nothanks.agents.cognitive.tom import Outcome, ToMAgent
from nothanks.play.match import Match
from nothanks.rules import Action, Game, IllegalActionError, Variant

SMALL = Variant(removed=14)  # 19 cards: short games


def _memory(**params) -> DeclarativeMemory:
    memory = DeclarativeMemory(mismatch={"card": Linear(32), "tokens": Weber()}, seed=3,
                               **params)
    for card in range(3, 9):
        memory.add({"card": card, "tokens": card % 4, "kind": "a"}, fixed_activation=0.0)
    memory.advance(1.0)
    return memory


def test_parameters_are_one_object_until_a_parameter_is_set():
    memory = _memory()
    kept = memory.parameters
    assert memory.parameters is kept and kept.noise == memory.noise == 0.25
    memory.retrieval_threshold = -1.5
    assert memory.parameters is not kept
    assert memory.parameters.retrieval_threshold == -1.5 and kept.retrieval_threshold == -2.0


def test_per_time_noise_is_the_noise_the_retrievals_add():
    memory = _memory()
    request = {"card": 5, "tokens": 1}
    noise = memory.per_time_noise()
    assert len(noise) >= len(memory)
    for chunk in memory.chunks:
        row = memory.chunks.index(chunk)
        assert memory.activation(chunk, request).noise == noise[row]
    assert memory.per_time_noise() is noise  # kept until the clock moves
    memory.advance(1.0)
    assert not np.array_equal(memory.per_time_noise()[:len(memory)], noise[:len(memory)])


def test_the_compiled_view_is_the_clock_size_parameters_and_noise_drawn_so_far():
    memory = _memory()
    assert memory.compiled_view == (1.0, 6, memory.parameters, None)  # nothing drawn yet
    noise = memory.per_time_noise()
    time, chunks, parameters, drawn = memory.compiled_view
    assert (time, chunks, parameters) == (1.0, 6, memory.parameters) and drawn is noise
    memory.advance(0.5)
    assert memory.compiled_view[::3] == (1.5, None)  # the clock moved: not drawn yet


def test_reserved_per_time_noise_is_what_an_eager_draw_gives_and_the_stream_moves_on():
    """Reserving a time's noise draws nothing, yet a later draw at that time reads the
    reserved positions and the stream moves on as if they were drawn: a memory that
    reserved and one that drew eagerly agree on every later draw."""
    from nothanks.actr import counter_noise

    lazy, eager = _memory(noise_stream="counter"), _memory(noise_stream="counter")
    key1, key2, first, scale = lazy.reserve_per_time_noise()
    assert scale == lazy.noise and lazy.compiled_view[3] is None  # nothing drawn
    assert lazy.reserve_per_time_noise() is None  # reserved once per time
    drawn = eager.per_time_noise()
    assert np.array_equal(counter_noise.logistic(np.array([key1, key2], np.uint64),
                                                 int(first), len(lazy), scale), drawn)
    assert np.array_equal(lazy.per_time_noise(), drawn)  # the reserved positions, drawn
    for _ in range(3):  # later times: the same draws on both
        lazy.advance(1.0)
        eager.advance(1.0)
        assert np.array_equal(lazy.per_time_noise(), eager.per_time_noise())
    lazy.reserve_per_time_noise()
    eager.per_time_noise()
    lazy.noise = eager.noise = 0.5  # a new scale forgets the reservation as it does a draw
    assert np.array_equal(lazy.per_time_noise(), eager.per_time_noise())
    assert _memory().reserve_per_time_noise() is None  # the pcg64 stream: draw it instead


@pytest.mark.parametrize("params", [{"noise_mode": "per_retrieval"}, {"noise": 0.0}])
def test_per_time_noise_refuses_a_memory_without_it(params):
    with pytest.raises(ValueError, match="per-time noise needs noise_mode='per_time'"):
        _memory(**params).per_time_noise()
    with pytest.raises(ValueError, match="per-time noise needs noise_mode='per_time'"):
        _memory(noise_stream="counter", **params).reserve_per_time_noise()


def test_fast_path_counters_and_arrays():
    memory = _memory()
    assert memory.learned_count == 0
    assert np.array_equal(memory.fixed_activations(), np.zeros(len(memory)))
    version = memory.mismatch_version
    memory.set_mismatch("kind", ExactMatch(10.0))
    assert memory.mismatch_version != version
    memory.add({"card": 20, "tokens": 0, "kind": "b"})
    assert memory.learned_count == 1 and np.isnan(memory.fixed_activations()[-1])


def test_score_columns_are_the_unscaled_mismatches_of_an_all_scored_request():
    memory = _memory()
    items = (("card", 5), ("tokens", 1))
    columns = memory.score_columns(items)
    if columns is None:  # the compiled kernels are off in this process
        pytest.skip("score columns exist only with the compiled kernels")
    request = dict(items)
    for row, chunk in enumerate(memory.chunks):
        mismatch = memory.activation(chunk, request).mismatch
        assert [column[row] * memory.mismatch_penalty for column in columns] == \
            pytest.approx([mismatch["card"], mismatch["tokens"]])
    assert memory.score_columns((("kind", "a"), ("card", 5))) is None  # an exact slot


def test_add_past_builds_what_adds_at_those_times_build_and_refuses_disorder():
    later = DeclarativeMemory(seed=1)
    later.advance(5.0)
    later.add_past([(1.0, {"n": 1}), (2.0, {"n": 2}), (2.0, {"n": 1})])
    direct = DeclarativeMemory(seed=1)
    direct.advance(1.0)
    direct.add({"n": 1})
    direct.advance(1.0)
    direct.add({"n": 2})
    direct.add({"n": 1})
    assert later.time == 5.0
    assert later.references({"n": 1}) == direct.references({"n": 1}) == (1.0, 2.0)
    with pytest.raises(ValueError, match="time 1.5 .* is not between"):
        later.add_past([(1.5, {"n": 3})])  # before the latest reference
    with pytest.raises(ValueError, match="time 6.0 .* is not between"):
        later.add_past([(6.0, {"n": 3})])  # after the clock
    assert {"n": 3} not in later and later.time == 5.0


def test_the_state_to_move_is_what_the_accessors_say_and_stays_as_taken():
    game = Game(SMALL, seed=2)
    game.apply(Action.PASS)
    state = game.to_move()
    assert state == (game.turn, game.seat, game.card, game.tokens_on_card,
                     game.token_counts, game.cards(game.seat), game.cards_left)
    game.apply(Action.TAKE)
    assert game.cards(1) != state[5] and state[3] == 1  # a copy, not the live lists
    while not game.over:
        game.apply(Action.TAKE)
    with pytest.raises(IllegalActionError, match="the game is over .*nobody is to move"):
        game.to_move()


def _hooked(action: Action, calls: list) -> ToMAgent:
    agent = ToMAgent(1)

    def model(level, seat, tokens_on_card, tokens, world):
        calls.append((level, seat))
        return Outcome(action, 0.0, 0, None)

    agent.opponent_model = model
    return agent


@pytest.mark.parametrize("action", [Action.PASS, Action.TAKE])
def test_an_opponent_model_predicts_every_top_level_projection(action):
    calls: list = []
    agent = _hooked(action, calls)
    record = Match([agent, "tom0", "tom0", "tom0"], SMALL, seed=5).run()
    predictions = [d.info["predictions"] for d in record.decisions
                   if d.seat == 0 and not d.forced]
    assert predictions and calls and {level for level, _ in calls} == {0}
    said = {p["action"] for made in predictions for p in made}
    assert said == {str(action)}
    if action is Action.TAKE:  # the first predicted taker (seat 1) ends the predictions
        assert {seat for _, seat in calls} == {1}
        assert all(len(made) == 1 for made in predictions)
    else:
        assert {seat for _, seat in calls} == {1, 2, 3}
        assert all(len(made) == 3 for made in predictions)


def test_without_an_opponent_model_the_plain_recursion_decides():
    plain = Match([ToMAgent(1), "tom0", "tom0", "tom0"], SMALL, seed=5).run()
    calls: list = []
    agent = _hooked(Action.TAKE, calls)
    agent.opponent_model = None
    again = Match([agent, "tom0", "tom0", "tom0"], SMALL, seed=5).run()
    assert [d.move() for d in again.decisions] == [d.move() for d in plain.decisions]
    assert calls == []
    with pytest.raises(TypeError, match="opponent model must be None or callable"):
        agent.opponent_model = "ToM0"


def test_bayes_tom_plugs_in_its_opponent_model_instead_of_overriding_reasoning():
    agent = BayesToMAgent()
    assert agent.opponent_model is not None
    assert "_reason" not in vars(BayesToMAgent)


def test_base_levels_are_what_retrievals_add_fixed_or_learned():
    memory = _memory()
    assert memory.base_levels() is memory.fixed_activations()  # none learned: the same
    memory.add({"card": 20, "tokens": 2, "kind": "a"})  # learned, referenced at t = 1
    memory.advance(1.0)
    memory.add({"card": 20, "tokens": 2, "kind": "a"})  # another presentation at t = 2
    assert np.isposinf(memory.base_levels()[-1])  # referenced now: no finite base level
    memory.advance(2.0)
    base = memory.base_levels()
    assert base[-1] == pytest.approx(np.log(3.0 ** -0.5 + 2.0 ** -0.5))
    for row, chunk in enumerate(memory.chunks):
        assert memory.activation(chunk, {"card": 5}).base_level == base[row]


def test_score_rows_extend_score_columns_by_the_chunks_stored_since():
    memory = _memory()
    kept = len(memory)
    for card in (11, 30):
        memory.add({"card": card, "tokens": 0, "kind": "a"})
    for slot, values in (("card", [3, 11, 35]), ("tokens", [0, 1, 7])):
        rows = memory.score_rows(slot, values, kept)
        assert rows.shape == (3, 2)
        for index, value in enumerate(values):
            column = memory.score_columns(((slot, value),))[0]
            assert np.array_equal(rows[index], column[kept:])
    assert memory.score_rows("kind", ["a"]) is None  # exact match: no score
    assert memory.score_rows("colour", [1]) is None  # no chunk holds the slot


@pytest.mark.parametrize("fn", [Linear(32), Weber()])
def test_a_mismatch_grid_is_its_vectorized_rows_bit_for_bit(fn):
    chunk_values = np.array([0.0, 1.0, 3.0, 7.0, 35.0, 2.0])
    requests = [0, 1, 2, 5, 35]
    grid = fn.grid(requests, chunk_values)
    for row, request in zip(grid, requests, strict=True):
        assert row.tobytes() == np.asarray(fn.vectorized(request, chunk_values)).tobytes()
    with pytest.raises(TypeError, match="real number"):
        fn.grid(["3"], chunk_values)
