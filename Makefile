# Everything a user or CI needs: `make run` builds the bundled samples, `make test` runs every check.
# Both create .venv on first use and install the project into it.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: run test setup check-java lint unit e2e dbt-build clean

setup: check-java $(INSTALLED)

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

## make run: build current and history tables from CDC_LANDING_DIR (default: data/landing) and print a summary
run: setup
	$(BIN)/cdc-run

## make test: every check: lint (ruff, sqlfluff), pytest (unit + end-to-end on Spark), dbt build + tests on the samples
test: setup lint unit e2e dbt-build

lint:
	$(BIN)/ruff check python_udfs tests benchmarks
	$(BIN)/sqlfluff lint models tests --disable-progress-bar

unit:
	$(BIN)/python -m pytest -q -m "not spark"

e2e:
	$(BIN)/python -m pytest -q -m spark

# dbt build (models + data tests) on the bundled samples, in a throw-away Spark state folder.
dbt-build:
	rm -rf .spark-ci
	CDC_SPARK_DIR=$(CURDIR)/.spark-ci $(BIN)/cdc-dbt build
	rm -rf .spark-ci

clean:
	rm -rf target logs .spark .spark-ci dbt_packages
