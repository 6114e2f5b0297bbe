"""Seeded workload generators (source history + vendor rendering + delivery + oracle) for the tests."""
