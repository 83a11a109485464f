"""Sequence categories, the shipped instance set, its generator and the loader's errors."""
from __future__ import annotations

from pathlib import Path

import pytest

from nothanks.agents.cognitive import DEFAULT_INSTANCES, InstanceFileError, load_instances
from nothanks.agents.cognitive.generate_instances import generate, main, render, tokens_needed
from nothanks.rules import Action, Category, sequence_category


@pytest.mark.parametrize(("cards", "card", "expected"), [
    ((), 20, Category.NO_SEQUENCE),
    ((18, 22), 20, Category.NO_SEQUENCE),
    ((19,), 20, Category.EXTENSION),
    ((21, 30), 20, Category.EXTENSION),
    ((19, 21), 20, Category.COMPLETION),
    ((3, 5, 6), 4, Category.COMPLETION),
    ((4, 5), 3, Category.EXTENSION),
])
def test_sequence_category(cards, card, expected):
    assert sequence_category(cards, card) is expected


def test_shipped_set_loads_and_follows_the_rule():
    instances = load_instances()
    counts = instances.by_category()
    assert all(n > 0 for n in counts.values())
    for instance in instances.instances:
        if instance.category is not Category.NO_SEQUENCE:
            assert instance.action is Action.TAKE
        else:
            needed = tokens_needed(instance.card, instance.tokens_owned)
            assert (instance.action is Action.TAKE) == (instance.tokens_on_card >= needed)


def test_rule_needs_more_tokens_for_higher_cards_and_fewer_when_poor():
    assert tokens_needed(35, 11) > tokens_needed(15, 11) > tokens_needed(5, 11)
    assert tokens_needed(35, 1) < tokens_needed(35, 4) < tokens_needed(35, 11)


def test_generator_reproduces_the_shipped_file(tmp_path):
    out = tmp_path / "instances.csv"
    assert main(["--out", str(out)]) == 0
    def data(text: str) -> list[str]:
        return [x for x in text.splitlines() if not x.startswith("#")]
    assert data(out.read_text()) == data(DEFAULT_INSTANCES.read_text())
    assert "--update-shipped" in DEFAULT_INSTANCES.read_text().splitlines()[1]
    other = tmp_path / "other.csv"
    main(["--out", str(other), "--fraction", "0.5"])
    assert other.read_text() != out.read_text()
    assert len(load_instances(other)) > 0


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad.csv"
    path.write_text(text)
    return path


GOOD_ROWS = "none,20,3,11,pass\nextension,20,0,11,take\ncompletion,20,0,11,take\n"
HEADER = "category,card,tokens_on_card,tokens_owned,action\n"


@pytest.mark.parametrize(("text", "line", "words"), [
    (HEADER + GOOD_ROWS + "sequence,20,0,11,take\n", 5, "unknown category 'sequence'"),
    (HEADER + "# note\n" + GOOD_ROWS + "none,twenty,0,11,take\n", 6, "not an integer"),
    (HEADER + GOOD_ROWS + "none,20,-1,11,take\n", 5, ">= 0"),
    (HEADER + GOOD_ROWS + "none,20,0,11,grab\n", 5, "unknown action 'grab'"),
    ("category,card,tokens_owned,action\n" + GOOD_ROWS, 1, "lacks column(s) tokens_on_card"),
    (HEADER + GOOD_ROWS + "none,20,3,11\n", 5, "4 values for 5 columns"),
    (HEADER + GOOD_ROWS + "none,20,3,11,take\n", 5, "contradicts line 2"),
])
def test_malformed_files_name_file_line_and_problem(tmp_path, text, line, words):
    path = _write(tmp_path, text)
    with pytest.raises(InstanceFileError) as error:
        load_instances(path)
    message = str(error.value)
    assert str(path) in message and f"line {line}" in message and words in message


def test_empty_set_and_missing_category_and_missing_file(tmp_path):
    with pytest.raises(InstanceFileError, match="set is empty"):
        load_instances(_write(tmp_path, "# only a comment\n" + HEADER))
    with pytest.raises(InstanceFileError, match="no header and no instances"):
        load_instances(_write(tmp_path, "\n# nothing\n"))
    with pytest.raises(InstanceFileError, match="no instances of category completion"):
        load_instances(_write(tmp_path, HEADER + "none,20,3,11,pass\nextension,20,0,11,take\n"))
    with pytest.raises(InstanceFileError, match="cannot be read"):
        load_instances(tmp_path / "absent.csv")


def test_render_round_trips(tmp_path):
    instances = generate(fraction=0.3, low_tokens=4)
    path = tmp_path / "i.csv"
    path.write_text(render(instances, "a header\nover two lines"))
    assert list(load_instances(path).instances) == instances
