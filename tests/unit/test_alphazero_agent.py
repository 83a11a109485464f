"""The alphazero agent: spec, a reproducible game against random players, its decision
info, and clear errors for a missing or unfitting checkpoint."""
from __future__ import annotations

import pytest

from nothanks.agents import AgentSpecError, make_agent
from nothanks.play.match import Match
from nothanks.rules import Action, Variant
from nothanks.search.network import NetworkConfig, init_weights, save_checkpoint


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> str:
    """An untrained 4-player network, hidden-token mode."""
    path = tmp_path_factory.mktemp("alphazero") / "net.npz"
    config = NetworkConfig(players=4, hidden=16, tokens="hidden")
    save_checkpoint(path, init_weights(config, 1), config, {"note": "untrained"})
    return str(path)


def test_a_game_against_random_players_runs_and_repeats(checkpoint):
    spec = f"alphazero:sims=10,checkpoint={checkpoint},c_puct=2.0"
    agent = make_agent(spec)
    assert (agent.sims, agent.c_puct, agent.checkpoint) == (10, 2.0, checkpoint)

    def play(seed: int):
        return Match([agent, "random", "random", "random"], Variant(), seed).run()

    first = play(3)
    assert len(first.scores) == 4 and sorted(first.ranks)[0] == 1
    mine = [d for d in first.decisions if d.seat == 0]
    assert mine and all(d.action in (Action.TAKE, Action.PASS) for d in mine)
    searched = [d.info for d in mine if not d.forced]
    assert searched
    for info in searched:
        assert 0.0 < info["prior"] < 1.0 and info["iterations"] == 10
        assert info["take_visits"] + info["pass_visits"] == 10
        assert len(info["root_values"]) == 4
        assert all(-1.0 <= v <= 1.0 for v in info["root_values"])
        for key in ("take_value", "pass_value"):
            assert info[key] is None or 0.0 <= info[key] <= 3.0  # rank points
    play(4)
    again = play(3)
    assert [(d.seat, d.card, d.tokens_on_card, d.action) for d in again.decisions] == [
        (d.seat, d.card, d.tokens_on_card, d.action) for d in first.decisions]
    assert again.scores == first.scores


def test_missing_or_unfitting_checkpoints_get_clear_errors(checkpoint, tmp_path,
                                                             monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default path is relative: not here
    with pytest.raises(AgentSpecError, match=r"no network checkpoint at data/selfplay/"
                                             r"alphazero.npz; make one with `nothanks train"):
        make_agent("alphazero")
    with pytest.raises(AgentSpecError, match="no network checkpoint at nowhere.npz; make one "
                                             "with `nothanks train --players N"):
        make_agent("alphazero:checkpoint=nowhere.npz")
    (tmp_path / "junk.npz").write_bytes(b"junk")
    with pytest.raises(AgentSpecError, match="junk.npz is not a network checkpoint"):
        make_agent("alphazero:checkpoint=junk.npz")
    with pytest.raises(AgentSpecError, match="sims=0 is invalid; valid: an integer >= 1"):
        make_agent(f"alphazero:sims=0,checkpoint={checkpoint}")
    agent = make_agent(f"alphazero:checkpoint={checkpoint}")
    with pytest.raises(ValueError, match="holds a network for 4 players and cards 3-35; this "
                                         "game has 5 players"):
        Match([agent] + ["random"] * 4, Variant(players=5), 1).run()
    per_count = make_agent("alphazero:checkpoint=net-{players}.npz")
    with pytest.raises(ValueError, match="no network checkpoint at net-3.npz"):
        per_count.start(0, Variant(players=3), 1)
