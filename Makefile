# Two commands do everything on a fresh machine with python3 and make:
#   make lab   - install with notebook extras and open JupyterLab on notebooks/
#   make test  - install with dev extras, lint with ruff and run the whole test suite
#   make test-fast - the same lint, then only the unit tests (tests/unit): the inner loop
#   make docs  - build the guide and the API reference into docs/_build/html
#   make figures - rebuild the thesis (Figures 8-14, Table 7) into figures/ (minutes)
#   make studies - rebuild every other study into figures/studies/ (most of an hour cold;
#                  make studies STUDIES="readings learning": only those;
#                  SCHEDULER=tcp://host:8786: simulate on a Dask cluster)
#   make selfplay - train the shipped self-play network again (docs/alphazero.md)
#   make session - serve the participant experiment (notebook 08) on localhost
#                  (make session PORT=8870: another port; default 8866)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
JOBS   ?=
# make test spreads the test files over this many processes (pytest-xdist), in the
# order tests/conftest.py gives them (longest files first)
TEST_PROCESSES ?= 2
PYTEST := $(PY) -m pytest -n $(TEST_PROCESSES) --dist loadfile --no-loadscope-reorder

.PHONY: setup lab lint test test-fast bench figures studies selfplay play session docs clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# Stamp files: reinstall only when pyproject.toml changes.
$(VENV)/.installed-notebooks: pyproject.toml | $(PY)
	$(PIP) install --quiet -e '.[notebooks]'
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(PY)
	$(PIP) install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed-notebooks $(VENV)/.installed-docs

$(VENV)/.installed-docs: pyproject.toml | $(PY)
	$(PIP) install --quiet -e '.[docs]'
	touch $@

setup: $(VENV)/.installed-dev

# Jupyter refuses to run as root unless told (containers, CI machines).
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

lab: $(VENV)/.installed-notebooks
	$(VENV)/bin/jupyter lab notebooks/ $(ROOT_FLAG)

# Lint and the layer contracts first (both in pyproject.toml): a finding fails the target
# before the tests run.
lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check nothanks tests benchmarks notebooks docs/conf.py
	$(VENV)/bin/lint-imports

# Two pytest runs: every test not marked jax, then those marked jax (they run JAX in the
# test process, and a process that ran JAX must not fork; the first run imports no JAX).
# The second runs even when the first failed; the target fails when either did.
test: lint
	$(PYTEST) --durations=20 -m "not jax" tests; status=$$?; \
	$(PYTEST) --durations=5 -m jax tests || status=1; exit $$status

# The inner loop: the unit tests only (tests/unit; no JAX test is a unit test).
test-fast: lint
	$(PYTEST) --durations=20 tests/unit

bench: $(VENV)/.installed-dev
	$(PY) benchmarks/run_all.py

# Both builds reuse the simulation logs (and move grades) in data/cache, play what is
# missing, and resume after a kill; studies also reuse the thesis's table7 log.
SCHEDULER ?=
STUDIES   ?=
SCHEDULE  := $(if $(SCHEDULER),--scheduler $(SCHEDULER),)

figures: $(VENV)/.installed-dev
	$(VENV)/bin/nothanks figures --out figures --cache data/cache --update-shipped $(SCHEDULE)

studies: $(VENV)/.installed-dev
	$(VENV)/bin/nothanks studies $(STUDIES) --out figures/studies --cache data/cache \
	    --update-shipped $(SCHEDULE)

# The shipped self-play network (docs/alphazero.md, "The shipped checkpoint"): 259 training
# iterations (about 20 minutes of training on 2 cores; rerun to resume), then the best
# evaluated snapshot, chosen on fresh deals, becomes data/selfplay/alphazero.npz.
SELFPLAY_RUN ?= runs/selfplay
selfplay: $(VENV)/.installed-dev
	$(VENV)/bin/nothanks train --players 4 --iterations 259 --games-per-iteration 64 \
	    --sims 50 --steps-per-iteration 100 --batch-size 256 --buffer 100000 --eval-every 2 \
	    --eval-deals 25 --jobs 2 --seed 32 --out $(SELFPLAY_RUN)
	$(PY) benchmarks/alphazero_select.py --run $(SELFPLAY_RUN) --candidates 5 --deals 60 \
	    --seed 7 --ship data/selfplay/alphazero.npz
	cp $(SELFPLAY_RUN)/curve.csv $(SELFPLAY_RUN)/curve.png data/selfplay/

# Pages are served by Voila through nothanks.ui.serve, which holds the server options (localhost
# only, no code shown, kernels shut down with their tab and idle ones culled).
PORT   ?= 8866

play: $(VENV)/.installed-notebooks
	$(PY) -m nothanks.ui.serve notebooks/01_play.ipynb --port=$(PORT)

# The experiment for the lab: an experimenter start screen, then one participant's games.
# Sessions go to NOTHANKS_SESSIONS (default data/participants); localhost only.
session: $(VENV)/.installed-notebooks
	$(PY) -m nothanks.ui.serve notebooks/08_lab_session.ipynb --port=$(PORT)

# Warnings are errors, as in the test suite: a broken reference fails the build.
docs: $(VENV)/.installed-docs
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info docs/_build nothanks/__pycache__/numba-*
