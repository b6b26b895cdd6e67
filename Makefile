# The whole set-up is `make demo` (watch a simulated workflow) or `make test`.
# Both create .venv with the Python on PATH (3.11+) and install what they need: the demo only
# the runtime (its own stamp), the tests and tools the test extras too.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
RUNTIME_STAMP := $(VENV)/.installed-runtime

.PHONY: demo test test-lowest lint typecheck screenshots screenshot-web bench bench-readme clean readme-rules reliability corpus soak

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $(STAMP) $(RUNTIME_STAMP)

$(RUNTIME_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	@touch $(RUNTIME_STAMP)

demo: $(RUNTIME_STAMP)
	$(BIN)/phasewatch demo

# ruff, then mypy (tests/typecheck.py: mypy cannot follow the package-dir mapping by itself).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python tests/typecheck.py

typecheck: $(STAMP)
	$(BIN)/python tests/typecheck.py

# On every core (pytest-xdist): each test stands alone, so the order and the worker do not matter.
# loadgroup: the tests of an xdist_group (one expensive shared fixture) share one worker.
test: lint
	$(BIN)/python -m pytest -q -n auto --dist loadgroup

# Every runtime dependency at its declared floor (tests/lowest_constraints.py reads pyproject's
# `>=`), in a venv of its own, running the core tests: `check`, the readers and the writer.
LOWEST       := .venv-lowest
LOWEST_STAMP := $(LOWEST)/.installed
LOWEST_TESTS := tests/test_cli_check.py tests/test_sources.py tests/test_files_read.py \
	tests/test_hooklog.py tests/test_tdd.py tests/test_plugins.py tests/test_models.py \
	tests/test_decide.py tests/test_decide_codec.py tests/test_textual_compat.py

$(LOWEST_STAMP): pyproject.toml tests/lowest_constraints.py
	$(PYTHON) -m venv $(LOWEST)
	$(PYTHON) tests/lowest_constraints.py > $(LOWEST)/constraints.txt
	$(LOWEST)/bin/python -m pip install --quiet --disable-pip-version-check \
		-c $(LOWEST)/constraints.txt -e . pytest pytest-asyncio hypothesis
	@touch $(LOWEST_STAMP)

test-lowest: $(LOWEST_STAMP)
	@echo "pinned (pip installed exactly these):" && cat $(LOWEST)/constraints.txt
	$(LOWEST)/bin/python -m pytest -q -p no:cacheprovider $(LOWEST_TESTS)

screenshots: $(STAMP)
	$(BIN)/python screenshots/make_screenshots.py

# `phasewatch serve` in headless Chromium (Debian: apt-get install chromium), saved as
# screenshots/web.png. Not part of `make test`: it needs Chromium and Node (playwright-core is
# installed once under PW_DIR, outside the repository).
PW_DIR ?= /tmp/phasewatch-playwright
screenshot-web: $(STAMP)
	test -d $(PW_DIR)/node_modules/playwright-core || \
		npm install --prefix $(PW_DIR) --no-audit --no-fund --no-save playwright-core
	NODE_PATH=$(PW_DIR)/node_modules $(BIN)/python screenshots/make_web_screenshot.py

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

# A compressed day beside the dashboard (300,000 hook lines through rotation at 1 MiB, 2,000
# state writes, ~5 minutes, needs tmux): its RSS curve, and the growth after warm-up.
soak: $(STAMP)
	$(BIN)/python bench/bench_soak.py

# The README's benchmark table from the newest bench/results/*.json (make bench writes them).
bench-readme: $(STAMP)
	$(BIN)/python bench/readme_table.py

# The writer against a racing owner, a second writer and planted links, with counts (non-zero
# exit on any crash, hang, data lost or misreport). RELIABILITY_SCALE=small for CI.
reliability: $(STAMP)
	$(BIN)/python tests/reliability/run.py

# The generated iSDLC corpus from the real framework's own code (node and a git directory of
# vihang-hub/isdlc-framework in ISDLC_REPO); make test replays the committed one without node.
# The Plugin Freedom System's registry variants, judged by its own bash functions (a git
# directory of glittercowboy/plugin-freedom-system in PFS_REPO).
corpus: $(STAMP)
	bash tests/conformance/isdlc/make_corpus.sh
	bash tests/conformance/observe/make.sh
	if [ -n "$(PFS_REPO)" ]; then $(BIN)/python tests/conformance/plugins/generate.py "$(PFS_REPO)" e9af91e9419f; fi

clean:
	rm -rf $(VENV) $(LOWEST) .pytest_cache .ruff_cache .mypy_cache build dist *.egg-info

# Regenerate the rule table in README.md from the rule registry (a test keeps them in step).
readme-rules: $(STAMP)
	$(BIN)/python -c "import re, pathlib; from phasewatch.core.rules import all_rules; from phasewatch.tui.cli import rules_markdown; p = pathlib.Path('README.md'); t = p.read_text(); p.write_text(re.sub(r'<!-- rules:start -->.*?<!-- rules:end -->', lambda m: '<!-- rules:start -->\n' + rules_markdown(all_rules()) + '\n<!-- rules:end -->', t, flags=re.S))"
