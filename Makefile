# Everything a user or CI needs: `make run` builds the bundled samples, `make test` runs every check.
# Both create .venv on first use and install the project into it.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
SPARK_CI := $(CURDIR)/.spark-ci
DOCS_CI := $(CURDIR)/.docs-ci
CHROMIUM := /usr/bin/chromium
CHROMEDRIVER := /usr/bin/chromedriver

# Delta Lake for the state tables: the release built for the pinned pyspark (4.1; Delta's
# compatibility table), fetched by Maven into .delta-jars/ once (make delta)
DELTA_VERSION := 4.2.0
DELTA_JARS := $(CURDIR)/.delta-jars

.PHONY: run test setup check-java delta lint unit e2e dbt-build browser docs-check docs clean

setup: check-java $(INSTALLED) delta
	@# the JVM's class-data-sharing archive (.spark-cds/): Spark starts in about half the time; written
	@# once per JDK, pyspark and Delta jars, after them (python_udfs/class_archive.py)
	@$(BIN)/python -m python_udfs.class_archive

check-java:
	@command -v java >/dev/null 2>&1 || { \
		echo "Java 17+ is required (Spark runs on the JVM) and no 'java' is on PATH."; \
		echo "Install it, e.g.: apt-get install -y openjdk-17-jre-headless"; exit 1; }
	@java -version 2>&1 | awk -F'"' '/version/ { split($$2, v, "."); major = (v[1] == "1") ? v[2] : v[1]; \
		if (major + 0 < 17) { print "Java 17+ is required, found " $$2 ". Install a newer JDK or set JAVA_HOME."; exit 1 } }'

$(INSTALLED): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "Python 3.11 is required: set PYTHON=/path/to/python3.11")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "Installing the project into $(VENV) (first time: a few minutes, pyspark is large)..."
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev]"
	@touch $@

## make delta: fetch the Delta Lake jars (delta-spark, delta-storage $(DELTA_VERSION)) into .delta-jars/ with Maven,
## which uses the machine's Maven settings and its ~/.m2 cache (offline once fetched). cdc-dbt loads them and
## builds the state tables as Delta; without them, it says so and uses parquet.
delta: $(DELTA_JARS)/.fetched-$(DELTA_VERSION)

$(DELTA_JARS)/.fetched-$(DELTA_VERSION):
	@command -v mvn >/dev/null 2>&1 || { echo "make delta: Maven (mvn) is not installed, so the Delta Lake jars" \
		"cannot be fetched: the state tables will be parquet. Install Maven (apt-get install maven) and run make delta."; \
		exit 0; }
	@rm -rf $(DELTA_JARS) && mkdir -p $(DELTA_JARS)
	@echo "Fetching the Delta Lake $(DELTA_VERSION) jars with Maven into $(DELTA_JARS)..."
	@for artifact in io.delta:delta-spark_2.13:$(DELTA_VERSION) io.delta:delta-storage:$(DELTA_VERSION); do \
		mvn -q -B dependency:copy -Dartifact=$$artifact -DoutputDirectory=$(DELTA_JARS) >$(DELTA_JARS)/mvn.log 2>&1 \
			|| { echo "make delta: Maven could not fetch $$artifact (log: $(DELTA_JARS)/mvn.log): the state tables" \
				"will be parquet until make delta succeeds."; rm -f $(DELTA_JARS)/*.jar; exit 0; }; \
	done
	@rm -f $(DELTA_JARS)/mvn.log && touch $@

## make run: build current and history tables from CDC_LANDING_DIR (default: data/landing) and print a summary
run: setup
	$(BIN)/cdc-run

## make test: every check: lint (ruff, sqlfluff), pytest (unit + end-to-end on Spark, where the bundled samples
## pass every dbt data test and unit test: tests/pytest/test_bundled_samples.py), then the docs site in headless
## Chromium (docs-check)
test: setup lint unit e2e docs-check

lint:
	$(BIN)/ruff check python_udfs tests benchmarks
	@# the dbt templater compiles every model (a local Spark session): keep its state out of the way. Two
	@# processes: parsing the compiled SQL is most of the lint's time, and it is one core's work otherwise (D41)
	CDC_SPARK_DIR=$(CURDIR)/.spark-lint DBT_TARGET_PATH=$(CURDIR)/.spark-lint/target DBT_LOG_PATH=$(CURDIR)/.spark-lint/logs \
		$(BIN)/sqlfluff lint models tests macros --disable-progress-bar --processes 2
	rm -rf .spark-lint

# the unit tests are plain Python, one core's work each: two workers (pytest-xdist). Not the Spark tests,
# which already keep both cores busy (D40)
unit:
	$(BIN)/python -m pytest -q -m "not spark and not docs" -n 2

e2e:
	$(BIN)/python -m pytest -q -m spark --durations=10

# dbt build (models, data tests, unit tests) on the bundled samples, in a throw-away Spark state folder
dbt-build:
	rm -rf $(SPARK_CI)
	CDC_SPARK_DIR=$(SPARK_CI) $(BIN)/cdc-dbt build
	rm -rf $(SPARK_CI)

## make browser: install Debian's chromium and chromium-driver (headless browser and its WebDriver, for
## docs-check) unless /usr/bin/chromium and /usr/bin/chromedriver exist
browser:
	@test -x $(CHROMIUM) && test -x $(CHROMEDRIVER) || { \
		if [ "$$(id -u)" != 0 ]; then echo "docs-check needs Debian's chromium at $(CHROMIUM) and chromium-driver at" \
			"$(CHROMEDRIVER); as root run: apt-get update && apt-get install -y --no-install-recommends chromium" \
			"chromium-driver (or: sudo make browser)"; exit 1; fi; \
		echo "Installing Debian's chromium and chromium-driver (headless browser and WebDriver for docs-check)..."; \
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			chromium chromium-driver; } \
			|| { echo "apt-get could not install chromium and chromium-driver (see above); docs-check needs" \
				"$(CHROMIUM) and $(CHROMEDRIVER)."; exit 1; }; \
		test -x $(CHROMIUM) || { echo "chromium installed but $(CHROMIUM) is missing"; exit 1; }; \
		test -x $(CHROMEDRIVER) || { echo "chromium-driver installed but $(CHROMEDRIVER) is missing"; exit 1; }; }

## make docs-check: `cdc-dbt docs generate` (own target folder) on an empty, throw-away Spark state (.spark-ci:
## the model list and the lineage come from the project, not from built tables), then the site in headless
## Chromium: model list, cdc_current's lineage graph; screenshots in artifacts/docs/.
docs-check: setup browser
	rm -rf $(DOCS_CI) $(SPARK_CI)
	@status=0; CDC_SPARK_DIR=$(SPARK_CI) DBT_TARGET_PATH=$(DOCS_CI)/target DBT_LOG_PATH=$(DOCS_CI)/logs \
		$(BIN)/cdc-dbt docs generate || status=$$?; \
	rm -rf $(SPARK_CI); \
	if [ $$status != 0 ]; then echo "docs-check: cdc-dbt docs generate failed ($$status)"; exit $$status; fi
	CDC_DOCS_DIR=$(DOCS_CI)/target $(BIN)/python -m pytest -q -m docs tests/pytest/test_docs_site.py

## make docs: generate the dbt docs site from the local target (CDC_SPARK_DIR, default .spark) and serve it
## on http://127.0.0.1:$(DOCS_PORT) (Ctrl-C stops it)
DOCS_PORT ?= 8080
docs: setup
	$(BIN)/cdc-dbt docs generate
	@echo "Serving the docs site on http://127.0.0.1:$(DOCS_PORT) (Ctrl-C to stop)"
	$(BIN)/python -m http.server $(DOCS_PORT) --bind 127.0.0.1 --directory target

clean:
	rm -rf target logs .spark .spark-ci .spark-lint .docs-ci artifacts/docs dbt_packages
	@# .delta-jars/ is kept: it is a download, not build output
	@# .spark-cds/ too: the class archive make setup wrote; it is rewritten when the JDK or the jars change
