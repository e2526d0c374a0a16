# stviz: the two commands a user needs are `make run` and `make test` (see README.md).
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8501
PYTEST_ARGS ?=

.PHONY: run test test-fast setup test-setup system-packages bench clean-cache

## Create the virtual environment (if missing) and install the runtime requirements.
setup: $(VENV)/.installed

$(VENV)/.installed: requirements.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

## Test requirements (and the optional Ray engine, whose tests run in CI) on top of the runtime ones.
test-setup: $(VENV)/.test-installed

$(VENV)/.test-installed: $(VENV)/.installed requirements-test.txt requirements-ray.txt requirements-fast.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-test.txt -r requirements-ray.txt
	touch $@

## Debian packages: Chromium (browser tests, PNG/SVG export) and WordNet (full METEOR).
## Installed with apt-get when running as root and missing; otherwise say what to install.
system-packages:
	@missing=""; \
	test -x /usr/bin/chromium || missing="$$missing chromium"; \
	test -f /usr/share/wordnet/index.sense || missing="$$missing wordnet-base wordnet-sense-index"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else echo "note: please install the Debian packages:$$missing (needed for browser tests and image export)"; fi; \
	fi

## Set up and start the dashboard on the embedded demo data and models.
run: setup
	-@$(MAKE) --no-print-directory system-packages
	@echo "stviz: open http://localhost:$(PORT) in your browser"
	$(VENV)/bin/streamlit run app.py --server.port $(PORT) --server.headless true

## Set up everything (test tools, Chromium, WordNet) and run the whole test suite.
test: test-setup system-packages
	$(PY) -m pytest $(PYTEST_ARGS)

## The suite without the slow tests (for quick checks while developing).
test-fast: test-setup
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

## Print the measured ratios of every benchmark (with the Ray and fast extras, installed with the test tools).
bench: test-setup
	for b in benchmarks/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean-cache:
	rm -rf .stviz/cache .stviz-test/cache
