"""The writer's JSON: JSON.stringify byte for byte (checked against node when present), and a
parser that keeps every literal so nobody else's bytes change."""

from __future__ import annotations

import json
import math
import random
import shutil
import struct
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core.decide import (
    DocumentError,
    LiteralFloat,
    LiteralStr,
    Style,
    detect_style,
    dumps,
    js_number,
    parse_document,
)

from tests.helpers.decide import feature_state, with_literals

NODE = shutil.which("node")


def random_value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.randint(-(2**53), 2**53)
    if kind == 3:
        return rng.choice(
            [
                0.1 + 0.2,
                1e21,
                1e20,
                1e-7,
                1.5e-7,
                123e-20,
                5e-324,
                1.7976931348623157e308,
                -0.0,
                3.0,
                12.5,
                -3.75e-5,
                rng.uniform(-1e6, 1e6),
                rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30),
            ]
        )
    if kind in (4, 5):
        alphabet = 'ab é✅"\\/\n\r\t\b\f\x00\x01\x1f\x7f\u2028\u2029\ud800\udfff😀'
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(8)))
    if kind in (6, 7):
        return {
            # "k" prefix: JS orders integer-like keys first; state files have none
            "k" + str(random_value(rng, 99)) + str(i): random_value(rng, depth + 1)
            for i in range(rng.randrange(5))
        }
    return [random_value(rng, depth + 1) for _ in range(rng.randrange(5))]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_dumps_is_json_stringify_byte_for_byte() -> None:
    rng = random.Random(20260304)
    fixture = feature_state()
    del fixture["zz_vendor"]["big"]  # beyond 2**53: kept exactly by us, rounded by JS
    docs = [random_value(rng) for _ in range(400)] + [fixture]
    payload = json.dumps([json.dumps(d) for d in docs])  # ASCII-escaped: lone surrogates survive
    script = (
        "let d='';process.stdin.on('data',c=>d+=c).on('end',()=>{"
        "const xs=JSON.parse(d).map(s=>JSON.parse(s));"
        "process.stdout.write(JSON.stringify(xs.map(x=>[JSON.stringify(x,null,2),"
        "JSON.stringify(x)])))})"
    )
    out = subprocess.run(
        [NODE, "-e", script], input=payload, capture_output=True, text=True, check=True
    ).stdout
    for doc, (pretty, compact) in zip(docs, json.loads(out), strict=True):
        assert dumps(doc) == pretty
        assert dumps(doc, Style(indent=None)) == compact
        # canonical text parses into values that write back identically
        assert dumps(parse_document(pretty), detect_style(pretty)) == pretty


def test_literals_are_kept() -> None:
    text = with_literals(dumps(feature_state()))
    doc = parse_document(text)
    assert dumps(doc, detect_style(text)) == text
    vendor = doc["zz_vendor"]
    assert isinstance(vendor["zz_float"], LiteralFloat) and vendor["zz_float"] == 12.5
    assert isinstance(vendor["zz_escaped"], LiteralStr) and vendor["zz_escaped"] == "é"
    assert vendor["A_key"] is True and any(isinstance(k, LiteralStr) for k in vendor)
    vendor["new"] = vendor["zz_float"] + 1  # arithmetic on a literal gives a plain number
    assert '"new": 13.5' in dumps(doc)


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (1.0, "1"),
        (-0.0, "0"),
        (1e21, "1e+21"),
        (1.5e-7, "1.5e-7"),
        (1e-6, "0.000001"),
        (123456789012.5, "123456789012.5"),
        (math.inf, "null"),
        (7, "7"),
    ],
)
def test_js_number(number, text) -> None:
    assert js_number(number) == text


def test_style_detection() -> None:
    assert detect_style('{\n\t"a": 1\n}\n') == Style("\t", "\n", "", "\n")
    assert detect_style('{\r\n    "a": 1\r\n}') == Style("    ", "\r\n", "", "")
    assert detect_style('{"a":1}') == Style(None, "\n", "", "")
    assert detect_style("{}") == Style("  ", "\n", "", "")


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',
        '{"a": NaN}',
        "[Infinity]",
        "{'a': 1}",
        '{"a": 01}',
        '{"a": 1,}',
        '{"a": "\x01"}',
        '{"a": tru}',
        "{} {}",
        '"\\x"',
        "1.",
        "-",
    ],
)
def test_strict_json(text: str) -> None:
    with pytest.raises(DocumentError):
        parse_document(text)


def test_torn_documents_are_flagged_torn() -> None:
    full = dumps(feature_state())
    for cut in (0, 1, 10, len(full) // 2, len(full) - 1):
        with pytest.raises(DocumentError) as info:
            parse_document(full[:cut])
        assert info.value.torn, cut
    with pytest.raises(DocumentError) as info:
        parse_document('{"a": 1, ] "b": 2}')
    assert not info.value.torn


_json_text = st.text(alphabet=' \t\n{}[]":,-.0123456789eEtrufalsn\\u0041é', max_size=40)


@settings(max_examples=400)
@given(_json_text)
def test_parser_agrees_with_json_loads(text: str) -> None:
    try:
        value = parse_document(text)
    except DocumentError:
        try:
            loaded = json.loads(text, object_pairs_hook=_no_dupes)
        except (ValueError, RecursionError):
            return
        raise AssertionError(f"rejected valid JSON {text!r} -> {loaded!r}") from None
    assert json.loads(text) == value
    assert json.loads(dumps(value)) == value


def _no_dupes(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate")
    return dict(pairs)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is the oracle")
def test_js_number_matches_node_json_stringify() -> None:
    """The one number formatter (the simulator's too) against node itself: edges and 2,000
    random doubles of every magnitude."""
    rng = random.Random(21)
    values: list[float | int] = [10**21, 10**20, -(10**21), 2**53, 2**53 + 1, 2**60, 1e21, 1e-7]
    values += [0.0, -0.0, 5e-324, 1.7976931348623157e308, 123456789012345680000.0, 1e-6]
    values += [
        struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(2000)
    ]
    values = [v for v in values if v == v and abs(v) != float("inf")]
    script = "const v=JSON.parse(require('fs').readFileSync(0,'utf8'));"
    script += "console.log(JSON.stringify(v.map(x=>JSON.stringify(x))))"
    payload = (
        "[" + ",".join(repr(float(v)) if isinstance(v, float) else str(v) for v in values) + "]"
    )
    out = subprocess.run(["node", "-e", script], input=payload, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert [js_number(v) for v in values] == json.loads(out.stdout)
