# `make test` and `make run` set everything up on a fresh machine: they create .venv/ and install
# the project with its dependencies (again only when pyproject.toml changed).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
NODE_STAMP := .node/.installed-stamp
HOST   ?= 127.0.0.1
PORT   ?= 4566

.PHONY: setup java node chromium deploy-tools test test-setup docs-build test-fast docs format run demo bench peer clean

setup: $(STAMP) $(NODE_STAMP)

# Spark (spark_batch/) runs on a Java runtime, 17 or later: installed from Debian's packages if `java` is missing
java:
	@tools/debian_packages.sh java openjdk-17-jre-headless

# Node.js functions (nodejs18.x/20.x/22.x) run on the machine's `node`: installed from Debian's packages if
# missing; the AWS SDK for JavaScript v3 that Lambda's Node runtime provides goes into .node/
# (emulator/functions/runtimes/node-packages.json; `eddy setup node` fills a per-user cache the same way)
node:
	@tools/debian_packages.sh 'node npm' nodejs npm

# the dashboard's tests (tests/emulator/dashboard/test_browser.py) render its page in headless Chromium:
# installed from Debian's packages if missing
chromium:
	@tools/debian_packages.sh chromium chromium

# the real deployment tools that tests/emulator/cloudformation/test_real_tools.py and test_cdk.py run against
# `eddy serve`: awscli, aws-sam-cli and aws-cdk-lib (a CDK app's library), pinned in tools/deploy-tools.txt, in a
# virtualenv of their own (each pins a botocore of its own); the aws-cdk CLI from npm, pinned in
# tools/cdk/package.json, in .tools/cdk/. --no-compile: pip compiled every module of the 95 packages (aws-cdk-lib's
# hundreds of service modules) for 130+ s of CPU, 64 s without (2026-11-28); the tools compile the few they import
# on their first run (the CDK app's aws_cdk modules: 6 s). tools/pinned_install.sh installs them from this machine's
# wheelhouse without asking the package index (18 s of CPU instead of 44 s: it says why)
DEPLOY_TOOLS := .tools/deploy/.installed-stamp .tools/cdk/.installed-stamp
deploy-tools: $(DEPLOY_TOOLS)
.tools/deploy/.installed-stamp: tools/deploy-tools.txt
	$(PYTHON) -m venv .tools/deploy
	tools/pinned_install.sh .tools/deploy/bin/python tools/deploy-tools.txt
	cp tools/deploy-tools.txt $@
.tools/cdk/.installed-stamp: tools/cdk/package.json | node
	mkdir -p .tools/cdk && cp tools/cdk/package.json .tools/cdk/package.json
	cd .tools/cdk && npm install --no-audit --no-fund --loglevel=error
	cp tools/cdk/package.json $@

$(NODE_STAMP): emulator/functions/runtimes/node-packages.json | node
	mkdir -p .node && cp emulator/functions/runtimes/node-packages.json .node/package.json
	cd .node && npm install --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

$(STAMP): pyproject.toml setup.py | java
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# the docs site is built first, with --strict: a broken link, an unknown anchor or a page missing from mkdocs.yml's
# nav fails the target (tests/test_docs.py runs every example in the docs and builds the site again)
# (the 40 slowest tests are listed at the end: what to look at when the suite gets slow)
# Four workers on two cores: a test spends much of its time waiting (servers starting, functions' processes, kill -9
# and restart), so two workers left the CPU ~57% used; the fast subset took 9 min 15 s with -n 2, 7 min 19 s with
# -n 4 (2026-11-28, same tree, a quiet moment)
# --dist loadgroup: the tests that use the in-process SparkSession are two xdist groups, "spark" and "spark-processes"
# (tests/conftest.py), each on one worker with one session; the rest go to any worker. (Until 2026-11-28 the groups
# were not in force: every worker started a session of its own; pytest<9.2 and a tryfirst hook put them in force.)
# PYTHONDONTWRITEBYTECODE is unset for the suite: where the environment sets it (this machine's does), every process
# the suite starts (each `eddy serve`, `python -m eddy`, function worker and xdist worker) compiled Eddy's own modules
# again: importing the engine took 0.69 s of CPU that way against 0.49 s from __pycache__/ (git-ignored)
TEST_WORKERS ?= 4
TEST_ENV := env -u PYTHONDONTWRITEBYTECODE
# The set-up's parts do not wait for one another (each installer runs on one core: one after another, a fresh
# clone's set-up left the second core idle for about two minutes), so a make of its own runs them side by side;
# Debian's installs still go one at a time (tools/debian_packages.sh).
test:
	@$(MAKE) --no-print-directory -j 3 test-setup
	$(TEST_ENV) $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --durations=40

# a class-data-sharing archive of Spark's classes, which every JVM the suite starts for Spark maps instead of loading
# them from the jars (tests/conftest.py's SMALL_JOB_JVM): made by one small Spark job (tests/spark_class_archive.py,
# about 60 s of CPU), again whenever the virtualenv is (a changed pyspark); the 13 tests of test_cli.py,
# test_cli_failures.py and test_jvm.py took 142 s of CPU without it and 107 to 110 s with it (docs/performance.md)
SPARK_CLASSES := $(VENV)/spark-classes.jsa
$(SPARK_CLASSES): $(STAMP) tests/spark_class_archive.py | java
	$(TEST_ENV) $(PY) -m tests.spark_class_archive

# the test modules as pytest imports them (assertion rewriting, cached in __pycache__/ as *-pytest-*.pyc), made by one
# collection before the workers start, again when a test file changed: in a fresh clone each of the four xdist workers
# rewrote every test module itself, at the same moment (the workers collecting all 5,597 tests and running none,
# -n 4 -k <nothing>: 64.7 s of CPU from a fresh clone, 29.6 s with the cache made; one collection from a fresh clone
# 19.4 s; 2026-11-29)
TEST_MODULES := $(VENV)/.test-modules-stamp
$(TEST_MODULES): $(STAMP) $(shell find tests -name '*.py' -not -path '*/node_modules/*')
	$(TEST_ENV) $(PY) -m pytest --collect-only -qqq -p no:cacheprovider > $(VENV)/test-modules.log \
	|| (tail -40 $(VENV)/test-modules.log; false)
	touch $@

# everything the suite needs, and the docs site built with --strict
test-setup: $(STAMP) $(NODE_STAMP) $(DEPLOY_TOOLS) $(SPARK_CLASSES) chromium docs-build $(TEST_MODULES)
docs-build: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

# the quick loop while working: every test but those marked `slow` (pyproject.toml: Spark, kill -9 and restart,
# the installed wheel, the dashboard in Chromium), so neither Java nor Chromium is needed
test-fast: $(STAMP) $(NODE_STAMP)
	$(TEST_ENV) $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup -m "not slow"

# ruff format ([tool.ruff] in pyproject.toml) over the given files (FILES=...), or every module of the package
format: $(STAMP)
	$(VENV)/bin/ruff format $(or $(FILES),eddy emulator handlers infra spark_batch tools)

# the docs site (docs/, mkdocs.yml) served on http://127.0.0.1:8000, rebuilt as pages change
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve --dev-addr 127.0.0.1:8000

run: $(STAMP) $(NODE_STAMP)
	$(VENV)/bin/eddy serve --host $(HOST) --port $(PORT) --state-dir .eddy --stack infra/examples/stack.yaml

# the end-to-end tour: workload, replica, search, TTL archive, Spark aggregation, summary
demo: $(STAMP) $(NODE_STAMP)
	$(VENV)/bin/eddy demo

bench: $(STAMP) $(NODE_STAMP) $(DEPLOY_TOOLS)
	$(PY) bench/peers.py
	$(PY) bench/guest_cost.py
	$(PY) bench/put_item.py
	$(PY) bench/put_item_parts.py
	$(PY) bench/drain_parts.py
	$(PY) bench/get_records.py
	$(PY) bench/triggers.py
	$(PY) bench/durability.py
	$(PY) bench/kinesis_triggers.py
	$(PY) bench/sqs_mapping.py
	$(PY) bench/s3_notification_latency.py
	$(PY) bench/node_invoke.py
	$(PY) bench/pipes.py
	$(PY) bench/spark_jobs.py
	$(PY) bench/sam_deploy.py

# moto's own dynamodb and dynamodbstreams tests in server mode, against plain moto and against Eddy; then moto's
# in-process suites of the services Eddy serves, with Eddy's pytest plugin loaded and without (same outcomes)
peer: $(STAMP)
	$(PY) tools/peer_suite.py $(PEER_ARGS)
	$(PY) tools/peer_suite.py --guest $(PEER_GUEST_ARGS)

clean:
	rm -rf $(VENV) .node build *.egg-info
