"""The compiled size of every model, against the budget: `python tests/compiled_sizes.py TARGET_DIR`.

Spark plans a model's compiled SQL on every run, and the time it spends analysing, optimising and
generating code grows with the text (DECISIONLOG D63): a model compiled over the budget fails
`make test`. TARGET_DIR is a dbt target folder after `cdc-dbt compile` or `docs generate`
(make docs-check leaves one). Prints every model's size, largest first; exit code 1 when one is
over the budget, 2 when the folder holds no compiled model.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

BUDGET_BYTES = 30_000


def compiled_sizes(target_dir: Path) -> dict[str, int]:
    """Model name -> bytes of its compiled SQL, for every model under target/compiled/*/models."""
    # data tests declared in a YAML file are compiled into a folder named after it: not models
    return {path.stem: path.stat().st_size
            for path in sorted(target_dir.glob("compiled/*/models/**/*.sql"))
            if not any(part.endswith((".yml", ".yaml")) for part in path.parts)}


def report(sizes: dict[str, int], budget: int = BUDGET_BYTES) -> tuple[list[str], list[str]]:
    """The printed lines, and the models over the budget."""
    over = [name for name, size in sizes.items() if size > budget]
    lines = [f"{size:>9,} B  {name}{'  OVER THE BUDGET' if name in over else ''}"
             for name, size in sorted(sizes.items(), key=lambda item: (-item[1], item[0]))]
    return lines, over


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target_dir", type=Path, help="a dbt target folder holding compiled/")
    parser.add_argument("--budget", type=int, default=BUDGET_BYTES, help="bytes a compiled model may have")
    args = parser.parse_args(argv)
    sizes = compiled_sizes(args.target_dir)
    if not sizes:
        print(f"compiled sizes: no compiled model under {args.target_dir}/compiled: run `cdc-dbt compile` first",
              file=sys.stderr)
        return 2
    lines, over = report(sizes, args.budget)
    print(f"Compiled SQL per model ({len(sizes)} models, budget {args.budget:,} bytes):")
    print("\n".join(lines))
    if over:
        print(f"{len(over)} model(s) compile to more than {args.budget:,} bytes: {', '.join(over)}. Spark plans "
              "that text on every run; compute repeated expressions once as columns (STYLE.md, DECISIONLOG D63).",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
