"""Experiment designs: parsing, expansion to conditions and games, clear errors."""
from __future__ import annotations

import tomllib
from collections import Counter

import pytest

from nothanks.experiments import DesignError, load_design, shipped_designs
from nothanks.experiments.design import Design
from nothanks.play.runner import game_seed

BASE = """
name = "t"
seed = 5
games = 4
[[tables]]
label = "A"
players = ["random", "random", "random", "heuristic"]
focal = 3
"""


def parse(text: str) -> Design:
    return Design.from_dict(tomllib.loads(text), source="t.toml")


def test_shipped_designs_are_listed_and_parse():
    assert {"table7", "figure14", "human-schedule", "smoke"} <= set(shipped_designs())
    for name in shipped_designs():
        design = load_design(name)
        design.validate_agents()  # every agent spec exists (tom models included)
        total = design.total_games
        if total <= 5000:
            assert total == len(list(design.plan()))
        else:  # the large designs (learning trials): both ends of the plan, not every game
            assert len(list(design.plan(0, 200))) == 200
            assert len(list(design.plan(total - 200, total))) == 200
            assert list(design.plan(total, total + 1)) == []


def test_expansion_is_deterministic_and_every_condition_plays_the_same_deals():
    design = load_design("smoke")
    games = list(design.plan())
    assert [g.position for g in games] == list(range(design.total_games))
    # game i of every condition: the same seed (deal, agents' randomness) and seating
    assert [g.occurrence for g in games] == [0, 1, 2] * 4
    assert [g.seed for g in games] == [game_seed(design.seed, i) for i in (0, 1, 2)] * 4
    assert [g.roles for g in games[:3]] * 4 == [g.roles for g in games]
    assert [g.condition for g in games] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert games == list(load_design("smoke").plan())
    # a chunk plans exactly the same games as the whole
    assert list(design.plan(4, 7)) == games[4:7]


def test_sweep_crosses_tables_and_sets_parameter_on_targets_only():
    design = load_design("smoke")
    labels = [c.label for c in design.conditions]
    assert labels == ["heuristic vs random | p=0.3", "heuristic vs random | p=0.7",
                      "always-pass vs random | p=0.3", "always-pass vs random | p=0.7"]
    assert design.conditions[1].players == ("random:p=0.7",) * 3 + ("heuristic",)


def test_table7_focal_is_the_higher_order_and_rotates_over_all_seats():
    design = load_design("table7")
    assert [c.players for c in design.conditions] == [
        ("tom0", "tom0", "tom0", "tom1"), ("tom0", "tom0", "tom0", "tom2"),
        ("tom1", "tom1", "tom1", "tom2"), ("tom1",) * 4]  # the last: the control table
    assert all(c.games == 2000 and c.focal == 3 for c in design.conditions)
    seats = Counter(g.roles.index(3) for g in design.plan(0, 2000))
    assert seats == {0: 500, 1: 500, 2: 500, 3: 500}
    thesis = load_design("table7-thesis")
    assert [c.players for c in thesis.conditions] == [c.players
                                                      for c in design.conditions[:3]]
    assert all(c.games == 500 for c in thesis.conditions)


def test_figure14_sweeps_rt_on_every_token_memory_model():
    design = load_design("figure14")
    rts = [dict(c.sweep)["rt"] for c in design.conditions]
    assert len(set(rts)) >= 6 and min(rts) <= -2.5 and max(rts) >= 0.5
    for c in design.conditions:
        rt = dict(c.sweep)["rt"]
        for spec in c.players:
            assert (f"rt={rt}" in spec) == (not spec.startswith("tom0")), spec


def test_human_schedule_is_table6_with_practice_block_and_balanced_seats():
    design = load_design("human-schedule")
    games = list(design.plan())
    orders = [design.conditions[g.condition].table for g in games]
    assert "".join(o[-1] for o in orders) == "012000111222000111222012"
    assert [g.block for g in games] == [b for b in range(1, 9) for _ in range(3)]
    assert [g.practice for g in games] == [True] * 3 + [False] * 21
    for table in ("ToM0", "ToM1", "ToM2"):
        seats = [g.roles.index(0) for g, o in zip(games, orders, strict=True) if o == table]
        assert Counter(seats) == {0: 2, 1: 2, 2: 2, 3: 2}


def test_hash_ignores_description_but_not_parameters():
    a = parse(BASE)
    assert a.hash == parse('description = "other words"' + BASE).hash
    assert a.hash != parse(BASE.replace("seed = 5", "seed = 6")).hash
    assert a.hash != a.with_options(human="heuristic").hash


@pytest.mark.parametrize("text,message", [
    (BASE.replace('name = "t"', ""), "t.toml: missing required key 'name'"),
    ("colour = 1" + BASE, r"unknown key\(s\) \['colour'\]; valid keys"),
    (BASE.replace("games = 4", 'games = "4"'), "'games' must be an integer"),
    (BASE.replace("games = 4", "games = 0"), "'games' must be at least 1"),
    (BASE.replace('"heuristic"]', '"heuristic", "random"]'), ("seats 5 players but the "
                                                             "variant has 4")),
    (BASE.replace("focal = 3", "focal = 7"), "focal=7 is not a role index; valid: 0 to 3"),
    (BASE + '[[sweeps]]\nparameter = "p"\nvalues = []\nagents = ["random"]',
     "'values' is empty"),
    (BASE + '[[sweeps]]\nparameter = "p"\nvalues = [0.1]\nagents = ["tom9"]',
     r"agents \['tom9'\] sit at no table"),
    (BASE + '[[sweeps]]\nparameter = "q"\nvalues = [0.1]\nagents = ["random"]',
     "agent 'random' .* has no such parameter; valid: p"),
    (BASE + '[[sweeps]]\nparameter = "p"\nvalues = [0.1, 0.1]\nagents = ["random"]',
     "values repeat"),
    (BASE + '[[sweeps]]\nparameter = "p"\nvalues = [0.1]\nagents = "nobody"',
     "agents='nobody' is not valid; valid: focal, opponents, all"),
    (BASE + '[variant]\nplayers = 9', r"\[variant\]: players=9 is not supported"),
    (BASE + '[schedule]\ntables = ["B"]\nblocks = [1]', (r"schedule names unknown table\(s\) "
                                                          r"\['B'\]")),
    (BASE + '[[tables]]\nplayers = ["random"]', "seats 1 players"),
])
def test_malformed_designs_fail_with_clear_messages(text, message):
    with pytest.raises(DesignError, match=message):
        parse(text)


def test_unknown_agent_is_reported_with_condition_and_role():
    design = parse(BASE.replace('"heuristic"', '"nosuchagent"'))
    with pytest.raises(DesignError, match=r"condition 'A', role 3: unknown agent "
                                          r"'nosuchagent'.*valid:"):
        design.validate_agents()


def test_unknown_design_name_lists_the_shipped_ones(tmp_path):
    with pytest.raises(DesignError, match="not a shipped design .*table7"):
        load_design("tabel7")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = ")
    with pytest.raises(DesignError, match="bad.toml: not valid TOML"):
        load_design(bad)


def test_design_built_in_python_equals_its_toml_round_trip():
    design = load_design("figure14")
    assert Design.from_dict(design.to_dict()) == design
    assert Design.from_dict(design.to_dict()).hash == design.hash
