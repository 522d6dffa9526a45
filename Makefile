# Quick start: `make demo` then `make test`. Nothing else is needed on a fresh machine but Python >= 3.10 and a
# package index for pip. Tests that need ../shared/data (not bundled: licences) skip with a one-line reason.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
RT     := $(VENV)/bin/ranktrust
DEMO   := src/ranktrust/datasets/mmlupro_outputs.csv.gz

.PHONY: install demo test test-fast deadcode bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"
	touch $@

install: $(VENV)/.installed

demo: install
	$(RT) report $(DEMO) --align pairwise --seed 0
	$(RT) report $(DEMO) --align pairwise --seed 0 --format md --out report.md
	$(RT) report $(DEMO) --align pairwise --seed 0 --out report.html
	@echo "wrote report.md and report.html"

test: install
	$(PY) -m pytest -q -p no:cacheprovider

# everything but the slow tests (@pytest.mark.slow: seeded simulations, and the end-to-end tests listed in
# tests/conftest.py END_TO_END_SLOW) and the browser tests (@pytest.mark.browser), on every core (pytest-xdist)
# bytecode is written even where the environment says PYTHONDONTWRITEBYTECODE: pytest's assertion rewriting
# of every test module costs about 8 s per process when nothing is cached
test-fast: install
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q -p no:cacheprovider -n auto -m "not slow and not browser"

# functions, methods, classes and properties of src/ranktrust that nothing uses (vulture; CI runs it)
deadcode: install
	$(PY) .ci/deadcode.py

bench: install
	for f in bench/bench_*.py; do $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) build dist *.egg-info report.md report.html report.json
