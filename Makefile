# Quick start: `make demo` then `make test`. Nothing else is needed on a fresh machine.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
RT     := $(VENV)/bin/ranktrust
DEMO   := src/ranktrust/datasets/mmlupro_outputs.csv.gz

.PHONY: install demo test test-fast bench clean

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

bench: install
	for f in bench/bench_*.py; do $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) build dist *.egg-info report.md report.html report.json
