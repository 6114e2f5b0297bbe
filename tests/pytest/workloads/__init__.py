"""Seeded workload generators (source history + vendor rendering + delivery + oracle) for the tests."""

from __future__ import annotations

from python_udfs.contract import canonical_json


class KeyedTable:
    """What every generator's table knows of its key: needs a `key` tuple of column names."""

    key: tuple[str, ...]

    def key_of(self, row: dict) -> dict:
        return {column: row[column] for column in self.key}

    def key_tuple(self, row: dict) -> tuple:
        return tuple(row[column] for column in self.key)

    def pk_json(self, row: dict) -> str:
        """The key as the contract writes `pk`: canonical JSON, keys sorted."""
        return canonical_json(self.key_of(row))
