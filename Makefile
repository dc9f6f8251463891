# The Geometry of Motion: build the book, run every check, open the notebooks.
# Every target works from a fresh clone: it first creates .venv and installs the
# project into it (again whenever pyproject.toml changes).  The reading targets (book,
# pdf, lab, notebooks) install only the `book` extra; the checking targets (test,
# print-pdf's checks, format, bench, floors) add the `test` extra on top: the peer
# engines (Pinocchio, MuJoCo), ruff, pytest, nbval and Hypothesis.

VENV   := .venv
BIN    := $(VENV)/bin
# One stamp per extra; the test stamp follows the book stamp, so a change to
# pyproject.toml re-installs both in order.
BOOK_STAMP := $(VENV)/.installed-book
TEST_STAMP := $(VENV)/.installed-test
PYTEST := $(BIN)/pytest

# One BLAS thread: on small shared machines two threads make small solves slow and erratic.
export OPENBLAS_NUM_THREADS := 1
# Kernels come from .venv, never from a stray "python3" kernelspec in the user's home.
export JUPYTER_PREFER_ENV_PATH := 1
# Python keeps the bytecode of what it imports (in .venv and the project's __pycache__,
# both ignored by git), even where the shell sets PYTHONDONTWRITEBYTECODE, as container
# images often do: without it every process compiles every module it imports again.
# Measured on the 2-core machine: `import geomotion` and a first tree.aba take 2.3 s
# without bytecode and 0.8 s with it, in every notebook kernel and test process.
unexport PYTHONDONTWRITEBYTECODE

# Per-cell time limit (s) of every notebook run: nbval (make test), make notebooks and the
# book build (_config.yml execute.timeout says the same; tests/book/test_execution_stall.py
# checks).  Measured on a loaded 2-core machine (25 runs of chapter 2, 3 of each other
# notebook): the slowest cell took 3.4 s in chapter 2 and 4.3 s in its exercises (one
# BLAS thread, which importing geomotion ensures); since the explorers draw their static
# frames, those cells take 6-11 s at a load of 2.5 (issue 23, third round), still well
# inside 30 s, which is above the 20 s a chapter-2 cell took with two contending BLAS
# threads.  A cell past it is
# stuck, and each of the three runs then fails (checked with a time.sleep cell: nbval,
# nbconvert and jupyter-book build all exit 1).  Raised to 60 s for chapter 3, whose
# first cell optimises the stated golfer's onsets (about 8 s alone): on the second
# instruction set, with two other processes on the machine's two cores (load 5), it took
# more than 30 s and failed a fresh clone's CI (2026-12-05, seventh session).
CELL_TIMEOUT := 60

# Notebooks found by the notebook layer and by `make notebooks` (checkpoints excluded).
NOTEBOOKS = $(shell find notebooks -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' 2>/dev/null | sort)

# The whole book as one PDF (make pdf); the preface of the HTML build links it.
PDF := _build/pdf/geometry-of-motion.pdf

# What the lint and format gate covers (settings in pyproject.toml and notebooks/ruff.toml).
LINTED = companion tests bench book/_ext book/_tools notebooks

.PHONY: format book serve test lab clean distclean bench notebooks pdf print-pdf floors \
	kernels kernels-second-isa population bench-population

# PIP_COMPILE=0 (pip's --no-compile): no byte-compiling of every installed module;
# Python compiles a module when it first imports it.  Compiling the whole .venv (10,925
# modules) took 46 s on one core of the 2-core machine (python -m compileall -j 1).
$(BOOK_STAMP): pyproject.toml
	test -x $(BIN)/python || python3 -m venv $(VENV)
	PIP_COMPILE=0 $(BIN)/pip install -e '.[book]'
	touch $@

# Both extras in one resolution, so that a test package cannot silently move a book pin.
$(TEST_STAMP): $(BOOK_STAMP)
	PIP_COMPILE=0 $(BIN)/pip install -e '.[book,test]'
	touch $@

# Every compiled kernel of geomotion.tree (tree.compile_kernels), so that no notebook cell
# pauses to compile: a cell that had to compile three kernels at once took more than the
# 30 s cell limit in a fresh clone.  The step always runs: when the kernels' cache is
# current (geomotion._kernel_cache: a directory named by a digest of the kernel sources)
# it only loads them, about 1 s; after a change to a kernel source, or after `make clean`
# or `git clean` removed the cache, it compiles them again, about 64 s on the 2-core
# machine (a second process compiles the closed-loop kernels: about two minutes of CPU in
# all).  The package is imported from companion/ directly, so that pip
# re-installing the editable package meanwhile is harmless: `make test` runs its two
# prerequisites, the test extra's install and this step, side by side (-j2; GNU make 4.3
# honours a -j set here), which saved about 70 s of a fresh clone's CI.
COMPILE_KERNELS = PYTHONPATH=$(CURDIR)/companion $(BIN)/python -c \
	"from geomotion import tree; print(f'kernels ready in {tree.compile_kernels():.0f} s')"
ifeq ($(MAKECMDGOALS),test)
MAKEFLAGS += -j2 --output-sync=target
endif
kernels: $(BOOK_STAMP)
	$(COMPILE_KERNELS)

# The second instruction set of the notebook layer: the notebooks run again with numpy's
# SIMD dispatch off (every dispatched feature this machine has, in NPY_DISABLE_CPU_FEATURES),
# OpenBLAS's kernels for an older core (Nehalem: SSE only) and the kernels compiled for a
# generic x86-64 (no AVX, no FMA), cached apart in .venv/numba-generic.  Every stored
# output must reproduce there too: a printed number whose digits depend on the machine's
# rounding fails (.ci/second_isa_env.py prints the settings).
SECOND_ISA = $(shell $(BIN)/python .ci/second_isa_env.py $(CURDIR)/$(VENV)/numba-generic 2>/dev/null)
kernels-second-isa: $(BOOK_STAMP)
	env $(SECOND_ISA) $(COMPILE_KERNELS)

# Strict build from a clean _build: --all re-reads, hence re-executes, every notebook;
# warnings, nitpicky cross-reference misses and cell errors all fail it.
define build_the_book
$(BIN)/jupyter-book build --warningiserror --nitpick --keep-going --all .
endef

book: kernels
	rm -rf _build
	$(build_the_book)
	@echo "The book is in $(CURDIR)/_build/html: make serve shows it at http://127.0.0.1:8000/"

# Read the built book in a browser at http://127.0.0.1:$(PORT)/ (PORT=8001 make serve for
# another port), from the current _build/html, without building it again.  Opened as a
# file instead, the pages work but the search page shows no snippets of its results: the
# browser refuses the requests for the pages' text that a file:// page makes.  Served on
# 127.0.0.1 only, so no other machine can reach it; Ctrl-C stops it.  Python's own
# http.server: nothing to install.
PORT ?= 8000
serve:
	@test -f _build/html/index.html || { echo "no book in _build/html: run make book first"; exit 1; }
	@echo "The book is at http://127.0.0.1:$(PORT)/ (Ctrl-C stops the server)"
	python3 -m http.server $(PORT) --bind 127.0.0.1 --directory _build/html

# The README's test command; CI runs it through .ci/run.  Lint first (seconds; a failure
# stops here).  Then the four layers run as two streams on the machine's two cores (the
# -j2 and --output-sync that MAKEFLAGS sets for the test goal, above the kernels step): the
# companion tests and the book build start together, and each stream takes the next
# layer of TEST_LAYERS, in that order, as soon as its core is free; the book tests that
# read _build wait for the build (CHANGELOG 2.0.0 gives the times measured in a fresh
# clone, serial and in two streams).  The companion tests marked slow (each more than
# about 5 s alone: optimisations, searches, a cluster) are the last two layers of
# TEST_LAYERS, one for each stream (below), instead of lengthening the first job (the
# companion layer, about 3 min).  Each
# layer's output is printed whole when it ends (--output-sync), so the logs do not
# interleave; --keep-going still runs every layer whose prerequisites passed, so one run
# reports every failing layer, and make test fails if any layer fails.
test: $(TEST_STAMP) kernels
	@echo "=== [0/4] lint and format: ruff check and ruff format --check (make format fixes what it can) ==="
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	rm -rf _build
	@$(MAKE) --no-print-directory --keep-going $(TEST_LAYERS)

TEST_LAYERS = test-companion test-book-build test-notebooks test-notebooks-second-isa \
	test-book-built test-book-runs test-book-lab test-companion-slow test-companion-slow-onsets

# The slow book tests that read nothing under _build may run while the book builds, as
# two jobs, so that each core's last job is short: the notebook runs of the kernel and
# stall checks with the page checker's own pages, and the two JupyterLab runs (which
# write their screenshot under _build/screenshots, a directory the build leaves alone).
# Every other file of tests/book waits for the build, so a new test file is safe by default.
RUN_BOOK_TESTS = tests/book/test_execution_stall.py tests/book/test_kernel.py \
	tests/book/test_pagecheck.py tests/book/test_animation_player.py \
	tests/book/test_prose_numbers.py
LAB_BOOK_TESTS = tests/book/test_lab.py tests/book/test_lab_explorers.py

.PHONY: $(TEST_LAYERS)

# Property tests run under Hypothesis's ci profile (tests/companion/conftest.py):
# derandomized, the same inputs on every run; HYPOTHESIS_PROFILE=dev explores instead.
test-companion: $(TEST_STAMP) kernels
	@echo "=== [1/4] companion tests and the docstring examples: pytest tests/companion -m 'not slow' --doctest-modules companion/geomotion ==="
	MPLBACKEND=Agg $(PYTEST) tests/companion -m "not slow" --doctest-modules companion/geomotion

# The slow companion tests are two layers of about 2.7 min each, so that they end the two
# streams together instead of one stream alone (5.4 min on one core while the other idled):
# the optimiser's own (SLOW_ONSET_TESTS) and every other slow test, a new file included.
SLOW_ONSET_TESTS = tests/companion/test_onset_refusals.py tests/companion/test_swing_impact.py \
	tests/companion/test_timing_figures.py tests/companion/test_kernel_cache.py

test-companion-slow: $(TEST_STAMP) kernels
	@echo "=== [1/4] companion tests, the slow ones: pytest tests/companion -m slow (but the onset search's) ==="
	MPLBACKEND=Agg $(PYTEST) tests/companion -m slow $(addprefix --ignore=,$(SLOW_ONSET_TESTS))

test-companion-slow-onsets: $(TEST_STAMP) kernels
	@echo "=== [1/4] companion tests, the onset search's slow ones: pytest -m slow $(SLOW_ONSET_TESTS) ==="
	MPLBACKEND=Agg $(PYTEST) $(SLOW_ONSET_TESTS) -m slow

# nbval compares every stored output; notebooks/nbval-sanitize.cfg replaces the bytes of
# embedded pictures (and the animation's random element ids) before comparing.
NBVAL = $(PYTEST) --nbval --nbval-current-env --nbval-cell-timeout=$(CELL_TIMEOUT) \
	--nbval-sanitize-with notebooks/nbval-sanitize.cfg -p no:cacheprovider

test-notebooks: $(TEST_STAMP) kernels
	@echo "=== [2/4] notebooks: nbval re-executes every notebook and compares its stored outputs ==="
	$(if $(NOTEBOOKS),$(NBVAL) notebooks/,@echo "no notebooks under notebooks/ yet: nothing to compare")

test-notebooks-second-isa: $(TEST_STAMP) kernels-second-isa
	@echo "=== [2/4] notebooks again, on a second instruction set: $(SECOND_ISA) ==="
	$(if $(NOTEBOOKS),env $(SECOND_ISA) $(NBVAL) notebooks/,@echo "no notebooks under notebooks/ yet")

test-book-build: kernels
	@echo "=== [3/4] strict book build: jupyter-book build --warningiserror --nitpick ==="
	$(build_the_book)

test-book-runs: $(TEST_STAMP) kernels
	@echo "=== [4/4] book tests, first part: the kernel, no stalled explorer cell, the page checker ==="
	$(PYTEST) $(RUN_BOOK_TESTS) -m "not pdf"

test-book-lab: $(TEST_STAMP) kernels
	@echo "=== [4/4] book tests, second part: JupyterLab in headless Chromium ==="
	$(PYTEST) $(LAB_BOOK_TESTS) -m "not pdf"

test-book-built: $(TEST_STAMP) test-book-build
	@echo "=== [4/4] book tests, third part: toc, environment sync, rendered pages in headless Chromium ==="
	$(PYTEST) tests/book -m "not pdf" $(addprefix --ignore=,$(RUN_BOOK_TESTS) $(LAB_BOOK_TESTS))

# Print the PDF from the current build, offline: the single-page build reuses the HTML
# build's environment (no notebook runs again); Chromium prints it once MathJax has
# typeset every formula; the HTML build is then written again, so that the preface links
# the PDF (copied beside the pages).  Needs only the book extra.
define print_the_pdf
$(BIN)/jupyter-book build --builder singlehtml --warningiserror --nitpick --keep-going .
$(BIN)/python book/_tools/print_pdf.py _build/singlehtml $(PDF)
$(BIN)/jupyter-book build --warningiserror --nitpick --keep-going .
endef

# The book as one PDF, from a fresh strict build (a reader's target: the book extra only).
pdf: book
	$(print_the_pdf)

# The same from the current build (make book or make test first), then the PDF's own
# checks (tests/book/test_pdf.py), which need the test extra: what CI runs after make test.
print-pdf: $(TEST_STAMP)
	$(print_the_pdf)
	$(PYTEST) tests/book -m pdf

# JupyterLab with the project's configuration (jupyter_config/): no news feed, no update
# check, no extension search, so nothing is fetched from outside the machine; user settings
# made in this session are kept in jupyter_config/lab/ (not versioned).  Markdown cells are
# rendered by jupyterlab-myst.  Jupyter refuses to run as root unless told; containers
# often are root.
lab: kernels
	mkdir -p notebooks
	JUPYTER_CONFIG_DIR=$(CURDIR)/jupyter_config $(BIN)/jupyter lab --notebook-dir=notebooks \
		$(if $(filter 0,$(shell id -u)),--allow-root)

# Re-execute every notebook in place so that the stored outputs nbval compares are fresh.
# No timestamps are stored, so re-running an unchanged notebook changes nothing but the
# random ids of widgets.  (store_widget_state=False would be tidier, but nbclient 0.11
# then fails on cells with output widgets, e.g. ipywidgets.interactive.)
notebooks: kernels
	$(if $(NOTEBOOKS),$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
		--ExecutePreprocessor.timeout=$(CELL_TIMEOUT) --ExecutePreprocessor.record_timing=False \
		$(NOTEBOOKS),@echo "no notebooks under notebooks/ yet")

# Apply the formatter and ruff's safe fixes; what remains (a long comment or string, say)
# is for a person, and `make test` reports it.
format: $(TEST_STAMP)
	-$(BIN)/ruff check --fix $(LINTED)
	$(BIN)/ruff format $(LINTED)

# The companion tests at the declared dependency floors (.ci/floor_requirements.py pins
# every lower bound of pyproject.toml that the package imports) in their own venv.  The
# peer engines need newer NumPy, so their cross-checks skip here.  matplotlib 3.8 calls
# pyparsing names that pyparsing 3.3 deprecates: that third-party warning is ignored.
floors: $(TEST_STAMP)
	test -x .venv-floors/bin/python || python3 -m venv .venv-floors
	.venv-floors/bin/pip install $$($(BIN)/python .ci/floor_requirements.py) \
		'pytest>=8.3' 'hypothesis>=6.100' 'pyyaml>=6.0' 'packaging>=23.2'
	PYTHONPATH=$(CURDIR)/companion MPLBACKEND=Agg .venv-floors/bin/python -m pytest tests/companion \
		--doctest-modules companion/geomotion -p no:cacheprovider \
		-W ignore::pyparsing.warnings.PyparsingDeprecationWarning

bench: $(TEST_STAMP) kernels
	MPLBACKEND=Agg $(BIN)/python bench/bench_dynamics.py
	MPLBACKEND=Agg $(BIN)/python bench/bench_scale.py
	$(BIN)/python bench/bench_contact_qp.py

# The swing study's population (geomotion.models.run_population): COUNT golfers (200),
# each optimised alone, one dask.distributed task each, on a LocalCluster of the machine's
# cores, or on a running scheduler with SCHEDULER=tcp://host:8786 (its workers must
# import geomotion); writes notebooks/data/swing_population.csv, which the swing chapter
# reads.  Not part of any notebook run: the chapter only reads the file (and optimises a
# few golfers again).  Measured on the 2-core machine: see bench/bench_population.py.
COUNT ?= 200
SCHEDULER ?=
population: $(TEST_STAMP) kernels
	$(BIN)/python book/_tools/swing_population.py --count $(COUNT) \
		$(if $(SCHEDULER),--scheduler $(SCHEDULER)) --output notebooks/data/swing_population.csv

# The population's cost per golfer on one worker and on two, and the speed-up.
bench-population: $(TEST_STAMP) kernels
	$(BIN)/python bench/bench_population.py

clean:
	rm -rf _build .pytest_cache .hypothesis
	find . -path ./$(VENV) -prune -o \( -name __pycache__ -o -name .ipynb_checkpoints \) -type d -print0 \
		| xargs -0 rm -rf

distclean: clean
	rm -rf $(VENV) .venv-floors
