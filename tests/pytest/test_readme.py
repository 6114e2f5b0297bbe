"""README.md is self-contained: it points at nothing outside the repository, names every
environment variable the code reads, and every file or section it links to exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PROJECT_DIR = Path(__file__).resolve().parents[2]
README = PROJECT_DIR / "README.md"

# `](target)` of a markdown link or image; the target ends at whitespace or the closing parenthesis
MARKDOWN_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
ENV_NAME = r"CDC_[A-Z0-9_]*[A-Z0-9]|DBT_PROFILES_DIR"
# Python: a string literal that is exactly an env var name (os.environ.get("X"), {"X": ...}, ...);
# this leaves out module constants such as `CDC_DBT = PROJECT_DIR / ...`
PY_ENV_LITERAL = re.compile(rf"""["']({ENV_NAME})["']""")
# dbt YAML (dbt_project.yml, profiles): env_var('X', ...)
YAML_ENV_VAR = re.compile(rf"""env_var\(\s*["']({ENV_NAME})["']""")
# Makefile: every mention (assignments such as CDC_SPARK_DIR=..., comments naming the variable)
MAKE_ENV = re.compile(rf"\b({ENV_NAME})\b")
# the code that points users at a README section by name: README "Section" / README 'Section'
README_SECTION_REFERENCE = re.compile(r"""README ["']([^"']+)["']""")


def readme_text() -> str:
    return README.read_text(encoding="utf-8")


def env_sources() -> list[tuple[Path, re.Pattern]]:
    """The files whose environment variables a user can set, with the pattern that finds them."""
    sources: list[tuple[Path, re.Pattern]] = []
    for pattern in ("python_udfs/*.py", "benchmarks/*.py"):
        sources += [(path, PY_ENV_LITERAL) for path in sorted(PROJECT_DIR.glob(pattern))]
    for pattern in ("dbt_project.yml", "profiles*.yml", "profiles/*.yml"):
        sources += [(path, YAML_ENV_VAR) for path in sorted(PROJECT_DIR.glob(pattern))]
    sources.append((PROJECT_DIR / "Makefile", MAKE_ENV))
    return sources


def env_names_read_by_the_code() -> dict[str, set[str]]:
    """Env var name -> files (relative paths) that read it."""
    found: dict[str, set[str]] = {}
    for path, pattern in env_sources():
        for name in pattern.findall(path.read_text(encoding="utf-8")):
            found.setdefault(name, set()).add(str(path.relative_to(PROJECT_DIR)))
    return found


def markdown_link_targets(text: str) -> list[str]:
    return MARKDOWN_LINK.findall(text)


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower()).replace("_", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def heading_titles(text: str) -> list[str]:
    without_code = re.sub(r"^```.*?^```", "", text, flags=re.DOTALL | re.MULTILINE)
    headings = re.finditer(r"^(#{1,6})\s+(.+?)\s*#*\s*$", without_code, re.MULTILINE)
    return [match.group(2).strip() for match in headings]


# ------------------------------------------------------------------------------------------- (a)
@pytest.mark.parametrize("outside", ["../", "/work/", "shared/DESIGN.md", "DESIGN.md", "shared/"])
def test_readme_points_at_nothing_outside_the_repository(outside):
    lines = [f"line {number}: {line.strip()}" for number, line in enumerate(readme_text().splitlines(), 1)
             if outside in line]
    assert not lines, f"README.md mentions {outside!r}, which is outside the repository:\n" + "\n".join(lines)


def test_readme_links_are_relative_and_inside_the_repository():
    for target in markdown_link_targets(readme_text()):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a web address or a section of the README itself
        assert not target.startswith(("/", "~")), f"README.md links to an absolute path: {target}"
        resolved = (PROJECT_DIR / target.split("#")[0]).resolve()
        assert resolved.is_relative_to(PROJECT_DIR), f"README.md links outside the repository: {target}"


def test_every_markdown_file_the_readme_names_exists():
    for name in sorted(set(re.findall(r"[\w./-]*\w\.md\b", readme_text()))):
        assert (PROJECT_DIR / name).is_file(), f"README.md names {name}, which is not in the repository"


# ------------------------------------------------------------------------------------------- (b)
def test_the_scan_finds_the_variables_the_runner_and_profiles_read():
    """Guards the scan below: if the patterns stopped matching, (b) would pass on nothing."""
    found = env_names_read_by_the_code()
    for name in ("CDC_LANDING_DIR", "CDC_SPARK_DIR", "CDC_SPARK_DRIVER_MEMORY", "CDC_SCHEMA",
                 "CDC_DBT_TARGET", "DBT_PROFILES_DIR"):
        assert name in found, f"the env var scan no longer finds {name}; fix the patterns in this test"
    assert "CDC_DBT" not in found, "a Python constant was taken for an env var"


def test_readme_names_every_environment_variable_the_code_reads():
    text = readme_text()
    missing = {name: sorted(files) for name, files in env_names_read_by_the_code().items()
               if not re.search(rf"(?<![A-Z0-9_]){name}(?![A-Z0-9_])", text)}
    assert not missing, f"README.md does not document these environment variables (read by): {missing}"


# ------------------------------------------------------------------------------------------- (c)
def test_every_relative_link_in_the_readme_exists():
    text = readme_text()
    anchors = {github_anchor(title) for title in heading_titles(text)}
    targets = markdown_link_targets(text)
    assert targets, "no markdown links found: the link pattern is broken"
    for target in targets:
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue  # http://, https://, mailto:
        path, _, anchor = target.partition("#")
        if path:
            assert (PROJECT_DIR / path).exists(), f"README.md links to {path}, which does not exist"
        elif anchor:
            assert anchor in anchors, f"README.md links to #{anchor}, but no heading has that anchor"


def test_readme_sections_the_code_refers_to_exist():
    titles = set(heading_titles(readme_text()))
    for path in [*PROJECT_DIR.glob("python_udfs/*.py"), *PROJECT_DIR.glob("profiles*.yml"),
                 *PROJECT_DIR.glob("profiles/*.yml"), PROJECT_DIR / "dbt_project.yml",
                 *PROJECT_DIR.glob("macros/**/*.sql"), *PROJECT_DIR.glob("models/**/*.sql")]:
        for section in README_SECTION_REFERENCE.findall(path.read_text(encoding="utf-8")):
            assert section in titles, f"{path.relative_to(PROJECT_DIR)} points at README section {section!r}"


def test_per_table_configuration_section_is_present():
    assert "## Per-table configuration" in readme_text()
