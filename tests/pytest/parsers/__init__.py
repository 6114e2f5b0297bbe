"""The vendors' Python parsers: the specification the SQL flattenings were written from
(models/staging/<vendor>/base_<vendor>__parsed.sql), kept as the oracle of the differential test
(tests/pytest/test_sql_parity.py). Nothing in the product runs them (DECISIONLOG D37)."""
