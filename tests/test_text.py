from hypothesis import given
from hypothesis import strategies as st
from phasewatch.core.text import clean, clean_json, decode, shorten


def test_plain_text_is_untouched():
    assert clean("06-implementation: [TODO] done [/]") == "06-implementation: [TODO] done [/]"
    assert clean("tab\tand\nnewline") == "tab\tand\nnewline"


def test_osc_title_sequence_removed_with_payload():
    assert clean("a\x1b]0;owned\x07b") == "ab"
    assert clean("a\x1b]52;c;Y2xpcA==\x1b\\b") == "ab"  # clipboard write


def test_csi_and_c1_removed():
    assert clean("\x1b[31mred\x1b[0m") == "red"
    assert clean("x\x9b2Jy") == "xy"
    assert clean("bell\x07 nul\x00 cr\r del\x7f") == "bell nul cr del"


def test_bidi_overrides_removed():
    assert clean("abc\u202edef") == "abcdef"


def test_clean_json_cleans_keys_and_nested_values():
    data = {"k\x1b[1m": ["v\x07", {"x": "\x1b]0;t\x07y"}], "n": 3, "b": None}
    assert clean_json(data) == {"k": ["v", {"x": "y"}], "n": 3, "b": None}


def test_decode_tolerates_binary_and_bom():
    assert decode(b"\xef\xbb\xbfhi") == "hi"
    assert "\x1b" not in decode(b"\xff\xfe\x1b[2Jzz")


def test_shorten():
    assert shorten("a\n  b   c", 80) == "a b c"
    assert shorten("x" * 100, 10) == "x" * 9 + "…"


@given(st.text())
def test_clean_never_leaves_escape_or_controls(text):
    out = clean(text)
    assert "\x1b" not in out
    assert all(ch in "\t\n" or not (ord(ch) < 32 or 0x7F <= ord(ch) <= 0x9F) for ch in out)
    assert clean(out) == out  # idempotent
