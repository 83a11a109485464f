"""The PettingZoo AEC environment (nothanks.integrations.pettingzoo): PettingZoo's own
conformance tests, and a differential check against nothanks.rules.Game."""
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from nothanks.integrations.pettingzoo import (
    PASS,
    TAKE,
    NoThanksEnv,
    env,
    observation_layout,
)
from nothanks.rules import (
    Action,
    Game,
    GameOver,
    IllegalActionError,
    Variant,
    VariantError,
    ranks_and_points,
)
from nothanks.rules.seeding import derive_seed

#: What api_test says of every environment whose observation is a dict with an action mask
#: (PettingZoo's own such environments are on its list of exceptions); any other warning
#: is a finding.
DICT_OBSERVATION_NOTES = (
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
    "Observation is not a NumPy array",
)


@pytest.mark.parametrize("options", [
    {},  # the thesis's game: 4 players, hidden tokens
    {"players": 3, "open_tokens": True},
    {"players": 7, "low_card": 1, "high_card": 20, "removed": 2, "starting_tokens": 2},
])
def test_api_test_passes_without_other_warnings(options, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(**options), num_cycles=300, verbose_progress=False)
    assert "Passed API test" in capsys.readouterr().out
    others = {str(w.message) for w in caught} - set(DICT_OBSERVATION_NOTES)
    assert not others


@pytest.mark.parametrize("options", [{}, {"players": 5, "open_tokens": True}])
def test_seed_test_passes(options):
    seed_test(lambda: env(**options), num_cycles=300)


def play_randomly(environment, variant: Variant, seed: int):
    """Play one game in ``environment`` (reset with ``seed``) with random legal actions
    from a generator seeded with ``seed``, checking each decision against a
    ``Game(variant, seed)`` fed the same actions; returns the env's final rewards and
    infos and the game."""
    rng = np.random.default_rng(seed)
    game = Game(variant, seed)
    environment.reset(seed=seed)
    layout = observation_layout(variant)
    low, n = variant.low_card, variant.players
    final_rewards, final_infos = {}, {}
    for agent in environment.agent_iter():
        obs, reward, termination, truncation, info = environment.last()
        if termination or truncation:
            assert not obs["action_mask"].any()
            final_rewards[agent], final_infos[agent] = reward, info
            environment.step(None)
            continue
        seat = int(agent.removeprefix("player_"))
        assert seat == game.seat
        legal = [(TAKE, Action.TAKE), (PASS, Action.PASS)]
        assert [a for a, rule in legal if rule in game.legal_actions()] == \
            list(np.flatnonzero(obs["action_mask"]))
        vector = obs["observation"]
        assert np.flatnonzero(vector[layout["card"]]).tolist() == [game.card - low]
        assert vector[layout["tokens_on_card"]].item() == game.tokens_on_card
        assert vector[layout["own_tokens"]].item() == game.tokens(seat)
        assert vector[layout["cards_left"]].item() == game.cards_left
        grid = vector[layout["cards"]].reshape(n, variant.deck_size)
        for k in range(n):
            assert (np.flatnonzero(grid[k]) + low).tolist() == \
                list(game.cards((seat + k) % n))
        if variant.open_tokens:
            assert vector[layout["tokens"]].tolist() == \
                [game.tokens((seat + k) % n) for k in range(1, n)]
        else:
            assert "tokens" not in layout
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        environment.step(action)
        game.apply(legal[action][1])
    assert game.over and not environment.agents
    return final_rewards, final_infos, game


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("open_tokens", [False, True])
def test_random_play_agrees_with_the_rules_game(players, open_tokens):
    variant = Variant(players=players, open_tokens=open_tokens)
    environment = env(variant)
    for seed in (players, 1000 + players):
        rewards, infos, game = play_randomly(environment, variant, seed)
        final = next(e for e in reversed(game.history) if isinstance(e, GameOver))
        names = [f"player_{i}" for i in range(players)]
        assert [rewards[a] for a in names] == list(final.rank_points)
        assert [infos[a]["score"] for a in names] == list(final.scores)
        assert [infos[a]["rank"] for a in names] == list(final.ranks)
        assert list(final.rank_points) == list(ranks_and_points(game.scores())[1])
        assert sum(rewards.values()) == players * (players - 1) / 2


def test_pass_is_masked_and_refused_without_tokens():
    bare = NoThanksEnv(Variant(players=3, starting_tokens=0))
    bare.reset(seed=1)
    obs = bare.observe(bare.agent_selection)
    assert obs["action_mask"].tolist() == [1, 0]
    before = bare.game.to_move()
    with pytest.raises(IllegalActionError, match="no tokens left"):
        bare.step(PASS)
    with pytest.raises(IllegalActionError, match="valid: 0 .take. or 1 .pass."):
        bare.step("pass")
    assert bare.game.to_move() == before and not bare.game.history[1:]


def test_only_the_player_to_move_has_legal_actions():
    bare = NoThanksEnv()
    bare.reset(seed=2)
    masks = {a: bare.observe(a)["action_mask"].tolist() for a in bare.agents}
    assert masks == {"player_0": [1, 1], "player_1": [0, 0], "player_2": [0, 0],
                     "player_3": [0, 0]}


def test_hidden_tokens_are_not_observed():
    for open_tokens, extra in ((False, 0), (True, 3)):
        variant = Variant(open_tokens=open_tokens)
        size = 4 * 33 + 33 + 3 + extra
        bare = NoThanksEnv(variant)
        assert bare.observation_space("player_1")["observation"].shape == (size,)
        bare.reset(seed=4)
        assert bare.observe("player_1")["observation"].shape == (size,)


def test_unseeded_resets_continue_from_the_last_seed():
    first, second = NoThanksEnv(), NoThanksEnv()
    for bare in (first, second):
        bare.reset(seed=9)
        bare.reset()
    assert first.game_seed == second.game_seed == derive_seed(9, 1)
    assert first.game.removed_cards == Game(Variant(), derive_seed(9, 1)).removed_cards


def test_bad_construction_says_what_is_valid():
    with pytest.raises(VariantError, match="valid: 3 to 7"):
        env(players=8)
    with pytest.raises(VariantError, match="unknown variant option"):
        env(colour="red")
    with pytest.raises(ValueError, match="not both"):
        env(Variant(), players=3)
    with pytest.raises(ValueError, match="render_mode='rgb_array' is not supported"):
        NoThanksEnv(render_mode="rgb_array")
    with pytest.raises(RuntimeError, match="call reset"):
        NoThanksEnv().observe("player_0")


def test_render_shows_the_state():
    bare = NoThanksEnv(Variant(players=3), render_mode="ansi")
    bare.reset(seed=3)
    game = Game(Variant(players=3), 3)
    assert bare.render().startswith(f"card {game.card} +0t, 23 left, player_0 to move")


def test_the_how_to_runs(tmp_path):
    """docs/pettingzoo.md's Python blocks, in order, in a fresh process (its agent
    registration stays there) writing under tmp_path: the evaluation, then the tournament
    with the policy as an agent spec."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "pettingzoo.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", page, re.S)
    assert len(blocks) == 3
    result = subprocess.run([sys.executable, "-c", "\n".join(blocks)], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "mean rank points of player_0:" in result.stdout
    assert "| `third-of-value` | 32 |" in result.stdout
    assert (tmp_path / "runs" / "outside-agent" / "games.parquet").is_file()
