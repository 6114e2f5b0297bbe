"""Tests of the Qlik Replicate changeMask / columnMask decoder (python_udfs/qlik_masks.py)."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from python_udfs.parsing import Reject
from python_udfs.qlik_masks import MaskError, decode_hex_mask, decode_mask_json, encode_hex_mask
from python_udfs.registration import decode_masks


@pytest.mark.parametrize(
    ("mask", "ordinals"),
    [
        ("0B", [1, 2, 4]),  # the seed document's example: 1011 -> ordinals 1, 2 and 4
        ("01", [1]),
        ("80", [8]),
        ("FF", [1, 2, 3, 4, 5, 6, 7, 8]),
        ("00", []),
        ("0000", []),
    ],
)
def test_single_byte_masks(mask, ordinals):
    assert decode_hex_mask(mask) == ordinals


@pytest.mark.parametrize(
    ("mask", "ordinals"),
    [
        ("FF01", [1, 2, 3, 4, 5, 6, 7, 8, 9]),  # byte 0 = ordinals 1-8, byte 1 = ordinals 9-16
        ("0001", [9]),
        ("0080", [16]),
        ("0100", [1]),  # little-endian: not ordinal 9
        ("010008", [1, 20]),
        ("000000000000000000000000000000000000000000000001", [185]),
        ("FF0F", list(range(1, 13))),
    ],
)
def test_multi_byte_masks_are_little_endian(mask, ordinals):
    assert decode_hex_mask(mask) == ordinals


def test_a_mask_shorter_than_the_column_count_is_fine():
    assert decode_hex_mask("0B", 12) == [1, 2, 4]
    assert decode_hex_mask("01", 200) == [1]
    assert decode_hex_mask("FF0F", 12) == list(range(1, 13))


def test_upper_and_lower_case():
    assert decode_hex_mask("ff0f") == decode_hex_mask("FF0F") == decode_hex_mask("Ff0F") == list(range(1, 13))
    assert decode_hex_mask("0b") == [1, 2, 4]


def test_single_hex_digit_is_one_byte():
    # the published michelin examples write "changeMask": "1"
    assert decode_hex_mask("1") == decode_hex_mask("01") == [1]
    assert decode_hex_mask("B") == decode_hex_mask("b") == [1, 2, 4]
    assert decode_hex_mask("0") == []
    assert decode_hex_mask("F", 4) == [1, 2, 3, 4]


def test_null_and_empty_masks_are_no_mask():
    assert decode_hex_mask(None) is None
    assert decode_hex_mask(None, 3) is None
    assert decode_hex_mask("") is None  # full-load rows carry no mask
    assert decode_hex_mask("", 3) is None


@pytest.mark.parametrize(
    ("mask", "column_count", "words"),
    [
        ("0B0", None, "odd number"),
        ("123", 20, "odd number"),
        ("0G", None, "not hex"),
        ("0x0B", None, "not hex"),
        ("0B 01", None, "not hex"),  # bytes.fromhex would skip the space
        (" 0B", None, "not hex"),
        ("-1", None, "not hex"),
        ("٠١", None, "not hex"),  # Arabic-Indic digits are not hex
        ("0B", 3, "ordinal 4"),
        ("FF01", 8, "ordinal 9"),
        ("10", 4, "ordinal 5"),
        ("1", 0, "ordinal 1"),
    ],
)
def test_invalid_masks(mask, column_count, words):
    with pytest.raises(MaskError) as raised:
        decode_hex_mask(mask, column_count)
    assert raised.value.reason == "invalid_column_mask"
    assert words in raised.value.detail
    assert isinstance(raised.value, Reject)


@pytest.mark.parametrize("mask", [11, 1.5, True, ["0B"], {"mask": "0B"}, b"0B"])
def test_a_mask_that_is_not_text_is_invalid(mask):
    with pytest.raises(MaskError) as raised:
        decode_hex_mask(mask)
    assert raised.value.reason == "invalid_column_mask"


def test_the_highest_bit_within_the_column_count_is_fine():
    assert decode_hex_mask("0008", 12) == [12]
    with pytest.raises(MaskError):
        decode_hex_mask("0010", 12)


def test_encode_hex_mask():
    assert encode_hex_mask([1, 2, 4]) == "0B"
    assert encode_hex_mask([9]) == "0001"
    assert encode_hex_mask([1], width_bytes=2) == "0100"
    assert encode_hex_mask([]) == "00"
    with pytest.raises(ValueError):
        encode_hex_mask([0])


def test_a_wide_mask_decodes_quickly():
    mask = "FF" * 4096  # 32768 columns
    assert decode_hex_mask(mask, 32768) == list(range(1, 32769))


def _little_endian_hex(ordinals: set[int], width: int, lower: bool) -> str:
    """An independent encoder: byte b holds ordinals 8b+1 .. 8b+8, bit 0 first."""
    data = bytearray(width)
    for ordinal in ordinals:
        data[(ordinal - 1) // 8] |= 1 << ((ordinal - 1) % 8)
    text = data.hex()
    return text if lower else text.upper()


@given(
    ordinals=st.sets(st.integers(min_value=1, max_value=300), max_size=40),
    extra_bytes=st.integers(min_value=0, max_value=3),
    lower=st.booleans(),
)
def test_round_trip(ordinals, extra_bytes, lower):
    width = max(1, (max(ordinals, default=0) + 7) // 8) + extra_bytes
    mask = _little_endian_hex(ordinals, width, lower)
    assert decode_hex_mask(mask) == sorted(ordinals)
    assert decode_hex_mask(mask, max(ordinals, default=0)) == sorted(ordinals)
    assert decode_hex_mask(mask, width * 8) == sorted(ordinals)
    assert encode_hex_mask(ordinals, width).lower() == mask.lower()
    if ordinals:
        with pytest.raises(MaskError):
            decode_hex_mask(mask, max(ordinals) - 1)


# ---------------------------------------------------------------------------------------------
# cdc_decode_mask: the header field's JSON text in, (ordinals, problem) out; vectorised


@pytest.mark.parametrize(
    ("mask_json", "column_count", "expected"),
    [
        (None, 4, (None, None)),  # no such header field
        ("null", 4, (None, None)),
        ('""', 4, (None, None)),  # full-load rows
        ('"0B"', 4, ([1, 2, 4], None)),
        ('"1"', 2, ([1], None)),  # the published examples' one-digit masks
        ('"00"', 4, ([], None)),
        ('"0F"', None, ([1, 2, 3, 4], None)),  # no column count: no range check
    ],
)
def test_decode_mask_json(mask_json, column_count, expected):
    assert decode_mask_json(mask_json, column_count) == expected


@pytest.mark.parametrize("mask_json", ['"0G"', '"012"', "15", '" 01"', '"1F"', "[1]", "{oops"])
def test_decode_mask_json_names_what_is_wrong(mask_json):
    ordinals, problem = decode_mask_json(mask_json, 4)
    assert ordinals is None and problem


def test_decode_masks_vectorised_keeps_rows_in_order():
    masks = pd.Series(['"0B"', None, '"0G"', '"FF01"', '"01"'])
    counts = pd.Series([4, 3, 4, 9, None])  # a null count (no columns known) checks no range
    frame = decode_masks(masks, counts)
    assert list(frame.columns) == ["ordinals", "problem"]
    assert frame["ordinals"].tolist() == [[1, 2, 4], None, None, list(range(1, 10)), [1]]
    assert [problem is None for problem in frame["problem"]] == [True, True, False, True, True]
