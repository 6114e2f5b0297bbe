"""macros/_macros.yml documents the project's shared macros (the dbt docs site shows it): every
macro of macros/cdc, macros/materializations, macros/project and macros/codegen has an entry, and
every entry names a macro that exists. The vendor flattening macros (macros/vendors) are
documented where they are defined."""

from __future__ import annotations

import re

from conftest import PROJECT_DIR

MACROS_DIR = PROJECT_DIR / "macros"
DOCUMENTED_FOLDERS = ("cdc", "materializations", "project", "codegen")


def _defined(folders) -> set[str]:
    """dbt's names of the macros defined under the folders (materializations as
    materialization_<name>_<adapter>, generic tests as test_<name>)."""
    names = set()
    for folder in folders:
        for path in sorted(folder.rglob("*.sql")):
            text = path.read_text(encoding="utf-8")
            names.update(re.findall(r"{%-?\s*macro\s+(\w+)\s*\(", text))
            names.update(f"materialization_{name}_{adapter}" for name, adapter in
                         re.findall(r"{%-?\s*materialization\s+(\w+)\s*,\s*adapter\s*=\s*'(\w+)'", text))
            names.update(f"test_{name}" for name in re.findall(r"{%-?\s*test\s+(\w+)\s*\(", text))
    return names


def _documented() -> list[str]:
    text = (MACROS_DIR / "_macros.yml").read_text(encoding="utf-8")
    return re.findall(r"^  - name: (\w+)\s*$", text, re.MULTILINE)


def test_every_shared_macro_is_documented():
    missing = _defined(MACROS_DIR / folder for folder in DOCUMENTED_FOLDERS) - set(_documented())
    assert not missing, f"macros without an entry in macros/_macros.yml: {sorted(missing)}"


def test_every_entry_names_a_macro_once():
    documented = _documented()
    every_macro = _defined([MACROS_DIR, PROJECT_DIR / "tests" / "generic"])
    assert not set(documented) - every_macro, "entries of macros/_macros.yml without a macro"
    assert len(documented) == len(set(documented)), "a macro has two entries in macros/_macros.yml"
