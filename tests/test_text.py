import json

from hypothesis import given
from hypothesis import strategies as st
from phasewatch.core.text import clean, clean_json, decode, json_is_clean, shorten


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


_UNCLEAN_CHARS = st.sampled_from("\x00\x08\x0c\r\x1b\x7f\x85\x9b\u200e\u202e\u2066\ud800\udfff")


@given(
    st.recursive(
        st.text(st.one_of(st.characters(), _UNCLEAN_CHARS)) | st.integers() | st.none(),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(
                st.text(st.one_of(st.characters(), _UNCLEAN_CHARS)), inner, max_size=4
            )
        ),
        max_leaves=12,
    ),
    st.booleans(),
)
def test_json_is_clean_never_misses_what_clean_removes(value, ascii_only):
    """json_is_clean says True only for documents clean_json would leave as they are, whatever
    the writer escapes (``ensure_ascii``) or writes raw."""
    raw = json.dumps({"v": value}, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    if json_is_clean(raw):
        assert clean_json(json.loads(raw)) == json.loads(raw)


def test_json_is_clean_on_common_documents():
    # as the owner writes it (JSON.stringify: non-ASCII raw, only controls escaped)
    plain = {"a": 'plain "quoted"\n\ttext \\ path', "é": "…"}
    assert json_is_clean(json.dumps(plain, ensure_ascii=False).encode())
    assert not json_is_clean(json.dumps(plain).encode())  # \u00e9: a false alarm, allowed
    assert not json_is_clean(json.dumps({"a": "\x1b[31m"}).encode())
    assert not json_is_clean(json.dumps({"a": "\u202e"}, ensure_ascii=False).encode())
    assert not json_is_clean(json.dumps({"a": "\x9b"}, ensure_ascii=False).encode())
    # a lone surrogate written raw (invalid UTF-8; hypothesis found it): json.loads keeps it
    assert not json_is_clean(
        json.dumps({"a": "\ud800"}, ensure_ascii=False).encode("utf-8", "surrogatepass")
    )
