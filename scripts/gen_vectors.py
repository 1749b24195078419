#!/usr/bin/env python3
"""Generate the conformance test vectors of toolreplay from CPython.

The canonical encoding of toolreplay (spec section 2) is defined as byte-for-byte
what CPython produces with

    json.dumps(value, sort_keys=True, separators=(",", ":"))

and sealing (spec section 5) is defined on top of it. This script uses CPython as the
reference implementation and writes:

tests/vectors/canonical.jsonl
    One JSON object per line, exactly
        {"input": <JSON text, as a JSON string>, "canonical": <expected, as a JSON string>}
    where canonical == json.dumps(json.loads(input), sort_keys=True, separators=(",", ":")).
    Every line is pure ASCII (written with ensure_ascii=True). Every input is a JSON
    text the spec accepts: no duplicate keys at any depth, no NaN/Infinity, no number
    overflowing a 64-bit float, no lone surrogate escape, nesting at most 128 levels
    counted from the input's own top-level value, valid UTF-8. Integers (tokens without
    '.', 'e', 'E') are of any size and never overflow. Inputs may contain raw LF, CR
    and tab between tokens, so they are standalone JSON texts, not transcript lines.

tests/vectors/seal/NAME.jsonl and tests/vectors/seal/NAME.sealed.jsonl
    A transcript (valid per spec section 1) and the exact bytes `toolreplay seal`
    must write for it. Sealing: prev starts as 64 '0' characters; for each record
        digest = sha256(prev.encode() + canonical({"args","index","response","tool"}).encode()).hexdigest()
    and the output line is canonical of the six-field link (args, digest, index,
    prev, response, tool) followed by LF; prev becomes digest. Blank lines (only
    spaces, tabs, CRs) are skipped, a leading UTF-8 BOM is skipped, a CR before LF
    is JSON whitespace. An empty transcript seals to an empty file. The inputs
    exercise: an empty file, a file of blank lines only, one record, the six-call
    session of spec section 10, non-ASCII/astral strings with big integers and
    floats, unsorted keys with extra whitespace, CRLF with blank lines and no final
    newline, a leading BOM, and a longer random transcript.

Run from anywhere (Python 3.11+, standard library only):

    python3 scripts/gen_vectors.py

The output is deterministic (fixed random seeds, no dependence on time, locale or
hash order): running it twice gives byte-identical files. Every generated input is
re-checked against a strict parser that enforces the spec's rejections before it is
written, and every canonical string is checked to be a fixed point.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import struct
import sys
from pathlib import Path

sys.set_int_max_str_digits(0)

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "tests" / "vectors"
SEAL_DIR = VECTORS / "seal"
MAX_DEPTH = 128
SEED = 0x70_01_2E_91  # fixed: do not change, or every vector file changes


# ---------------------------------------------------------------------------
# Reference behaviour: strict acceptance check, canonical encoding, sealing.
# ---------------------------------------------------------------------------


class Rejected(ValueError):
    """The JSON text is one the spec rejects."""


def _pairs_hook(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise Rejected(f"duplicate key {key!r}")
        obj[key] = value
    return obj


def _parse_constant(name):
    raise Rejected(f"token {name} is not JSON")


def _parse_float(text):
    value = float(text)
    if math.isinf(value):
        raise Rejected(f"number {text} overflows a 64-bit float")
    return value


def _check_tree(value, depth=0):
    if isinstance(value, str):
        if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
            raise Rejected("lone surrogate in string")
        return
    if isinstance(value, (dict, list)):
        depth += 1
        if depth > MAX_DEPTH:
            raise Rejected(f"nesting deeper than {MAX_DEPTH}")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(key, str):
                _check_tree(key, depth)
            _check_tree(item, depth)


def strict_loads(text: str):
    """Parse like json.loads, but raise Rejected on everything the spec rejects."""
    text.encode("utf-8")  # raw lone surrogates cannot be valid UTF-8
    value = json.loads(
        text,
        object_pairs_hook=_pairs_hook,
        parse_constant=_parse_constant,
        parse_float=_parse_float,
    )
    _check_tree(value)
    return value


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def canonical_of_text(text: str) -> str:
    strict_loads(text)  # raises if the spec would reject it
    result = canonical(json.loads(text))
    assert result.isascii(), result
    assert canonical(json.loads(result)) == result, "canonical is not a fixed point"
    return result


RECORD_FIELDS = ("args", "index", "response", "tool")


def parse_transcript(data: bytes) -> list[dict]:
    """Parse transcript bytes per spec section 1; raise on any input error."""
    text = data.decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    records = []
    for lineno, line in enumerate(text.split("\n"), 1):
        if line.strip(" \t\r") == "":
            continue
        record = strict_loads(line)
        if not isinstance(record, dict):
            raise Rejected(f"line {lineno}: not an object")
        if sorted(record) != sorted(RECORD_FIELDS):
            raise Rejected(f"line {lineno}: fields {sorted(record)}")
        index = record["index"]
        if type(index) is not int or index != len(records):
            raise Rejected(f"line {lineno}: bad index {index!r}")
        if not isinstance(record["tool"], str) or not record["tool"]:
            raise Rejected(f"line {lineno}: bad tool")
        if not isinstance(record["args"], dict) or not isinstance(record["response"], dict):
            raise Rejected(f"line {lineno}: args/response not objects")
        records.append(record)
    return records


def seal(data: bytes) -> bytes:
    prev = "0" * 64
    out = []
    for record in parse_transcript(data):
        four = {key: record[key] for key in RECORD_FIELDS}
        digest = hashlib.sha256(prev.encode("utf-8") + canonical(four).encode("utf-8")).hexdigest()
        link = dict(four, prev=prev, digest=digest)
        out.append(canonical(link) + "\n")
        prev = digest
    return "".join(out).encode("ascii")


# ---------------------------------------------------------------------------
# Random JSON text generator: random content *and* random spelling.
# ---------------------------------------------------------------------------

SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f",
                 "\n": "\\n", "\r": "\\r", "\t": "\\t"}

CHAR_POOL = (
    list("abcxyzABCXYZ019 _-.:~")
    + ['"', "\\", "/", "\b", "\f", "\n", "\r", "\t", "\x00", "\x01", "\x1f", "\x7f"]
    + ["\x80", "\x85", "\x9f", "\xa0", "\xe9", "\xfc", "\xdf", "\xff"]
    + ["\u0100", "\u03a9", "\u0416", "\u4e2d", "\u6587", "\u2028", "\u2029", "\u200b"]
    + ["\ufeff", "\ufffd", "\ufffe", "\uffff", "\uff61", "\ue000", "\ud7ff", "\uf900"]
    + ["\U00010000", "\U0001f600", "\U0001d11e", "\U0010ffff", "\U00020000", "\U0001f4a9"]
)

KEY_POOL = [
    "", "a", "b", "z", "A", "Z", "_", "aa", "ab", "a\x00", "a ", "10", "9", "path",
    "query", "\xe9", "e\u0301", "\uff61", "\ue000", "\U0001f600", "\U00010000",
    "\u4e2d", "\u2028", "\x7f", "\x1f", "/", "\\", '"', "\U0010ffff", "\uffff",
    "key with spaces", "Ω", "ß", "\U0001d11e",
]


class TextGen:
    def __init__(self, rng: random.Random):
        self.rng = rng

    def ws(self) -> str:
        r = self.rng.random()
        if r < 0.6:
            return ""
        return "".join(self.rng.choice([" ", "\t", "\n", "\r", "\r\n", "  "])
                       for _ in range(self.rng.randint(1, 3)))

    def u_escape(self, code: int) -> str:
        fmt = "\\u%04x" if self.rng.random() < 0.5 else "\\u%04X"
        if code > 0xFFFF:
            code -= 0x10000
            return fmt % (0xD800 + (code >> 10)) + fmt % (0xDC00 + (code & 0x3FF))
        return fmt % code

    def string(self, s: str) -> str:
        parts = ['"']
        for ch in s:
            code = ord(ch)
            r = self.rng.random()
            if ch in SHORT_ESCAPES and (r < 0.7 or ch in '"\\' or code < 0x20):
                if r < 0.7:
                    parts.append(SHORT_ESCAPES[ch])
                else:
                    parts.append(self.u_escape(code))
            elif code < 0x20:
                parts.append(self.u_escape(code))
            elif r < 0.3:
                parts.append(self.u_escape(code))
            else:
                parts.append(ch)
        parts.append('"')
        return "".join(parts)

    def random_str(self, max_len=8) -> str:
        return "".join(self.rng.choice(CHAR_POOL) for _ in range(self.rng.randint(0, max_len)))

    def number(self) -> str:
        rng = self.rng
        kind = rng.randrange(9)
        if kind == 0:
            return str(rng.randint(-1000, 1000))
        if kind == 1:
            return str(rng.randint(-(2 ** 70), 2 ** 70))
        if kind == 2:
            return str(rng.choice([-1, 1]) * rng.getrandbits(rng.randint(60, 200)))
        x = random_double(rng)
        if kind == 3:
            return repr(x)
        if kind == 4:
            return "%.17e" % x
        if kind == 5:
            return ("%.17E" % x).replace("E+", rng.choice(["E+", "E", "e"]))
        if kind == 6:
            return repr(rng.uniform(-1e6, 1e6))
        if kind == 7:
            return rng.choice(["0", "-0", "0.0", "-0.0", "1.0", "0e0", "-0E+00", "1e2", "1E-2"])
        return f"{rng.randint(-99999, 99999)}.{rng.randint(0, 99999):05d}e{rng.randint(-30, 30)}"

    def value(self, depth: int, max_depth: int) -> str:
        rng = self.rng
        r = rng.random()
        if depth < max_depth and r < 0.35:
            if rng.random() < 0.5:
                return self.obj(depth + 1, max_depth)
            return self.arr(depth + 1, max_depth)
        r = rng.random()
        if r < 0.1:
            return rng.choice(["null", "true", "false"])
        if r < 0.5:
            return self.number()
        return self.string(self.random_str())

    def obj(self, depth: int, max_depth: int, keys=None) -> str:
        rng = self.rng
        if keys is None:
            pool = KEY_POOL + [self.random_str(4) for _ in range(4)]
            keys = list(dict.fromkeys(rng.sample(pool, rng.randint(0, 6))))
        if not keys:
            return "{" + self.ws() + "}"
        members = [self.ws() + self.string(k) + self.ws() + ":" + self.ws()
                   + self.value(depth, max_depth) + self.ws() for k in keys]
        return "{" + ",".join(members) + "}"

    def arr(self, depth: int, max_depth: int) -> str:
        n = self.rng.randint(0, 5)
        if n == 0:
            return "[" + self.ws() + "]"
        return "[" + ",".join(self.ws() + self.value(depth, max_depth) + self.ws()
                              for _ in range(n)) + "]"

    def document(self, max_depth: int) -> str:
        body = self.obj(1, max_depth) if self.rng.random() < 0.7 else self.arr(1, max_depth)
        return self.ws() + body + self.ws()


def random_double(rng: random.Random) -> float:
    """A finite double from a uniformly random 64-bit pattern."""
    while True:
        x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(x):
            return x


# ---------------------------------------------------------------------------
# The canonical vectors.
# ---------------------------------------------------------------------------


def fixed_inputs() -> list[str]:
    v: list[str] = []

    # Spec section 2 (and 1, 4) examples, each as written in the spec.
    v += ["null", "true", "false", '{"key":"value"}', "[1,2,3]", '["a","b","c"]',
          '"\\ud83d\\ude00"', "18446744073709551623", "-0", "100.0", "0.0001",
          "1000000000000000.0", "1e+16", "1.5e-07", "1e-05", "2.5e+300", "5e-324",
          "0.0", "-0.0", '{"b": 1, "a": 2}', '{"a":2,"b":1}', '"\u00e9"', '"\\u00e9"',
          "1", "1.0", "1e0", '"1"', "1e-400",
          '{"agent": "docs-reader", "allowed_tools": ["read_file", "list_dir", "search"]}',
          '{"ok": true}', '{"path": "docs/intro.md", "text": "edited"}']

    # Literals and containers.
    v += ["[]", "{}", "[[]]", "[{}]", '{"a":{}}', '{"a":[]}', "[null,true,false]",
          '{"a":null,"b":true,"c":false}', '[[[1],[2,[3]]],{"x":{"y":{"z":[]}}}]',
          '{"z":{"b":[{"d":1,"c":2}],"a":0},"a":[{"y":1,"x":[{"q":2,"p":3}]}]}',
          '[1,"a",null,true,false,1.5,{"k":[]},[]]', '""', '" "', '"a"']

    # Whitespace variants between every token.
    v += [" 1", "1 ", "\t1\t", "\r\n1\r\n", "\n\n\n[\n]\n", " { } ", "[ ]", "\t[\t1\t,\t2\t]\t",
          '{\r\n  "b" : 1 ,\r\n  "a" : [ 1 , 2 ]\r\n}\r\n',
          '{\n\t"b":\t{\n\t\t"d":\ttrue,\n\t\t"c":\tnull\n\t},\n\t"a":\t"x"\n}',
          ' \t\r\n[ \t\r\n{ \t\r\n"k" \t\r\n: \t\r\nfalse \t\r\n} \t\r\n, \t\r\n0 \t\r\n] \t\r\n']

    # Key order: code point order, which differs from UTF-16 code unit order.
    v += ['{"\\uff61":1,"\\ud83d\\ude00":2}', '{"\U0001f600":2,"\uff61":1}',
          '{"z":1,"\u00e9":2}', '{"\u00e9":2,"z":1}', '{"\ue000":1,"\U00010000":2}',
          '{"\U00010000":1,"\ue000":2,"\uffff":3,"\ud7ff":4,"\U0010ffff":5}',
          '{"b":1,"a":2,"c":3}', '{"a":1,"A":2,"_":3,"0":4," ":5,"~":6}',
          '{"a\\u0000":1,"a":2,"":3}', '{"10":1,"9":2,"1":3,"01":4}',
          '{"ab":1,"a":2,"abc":3,"b":4}', '{"\\u007f":1,"\\u0080":2,"~":3}',
          '{"\\u00e9":1,"e\\u0301":2,"f":3}', '{"\U0001f4a9":1,"\U0001f600":2,"\U0001d11e":3}',
          '{"\\uD83D\\uDE00":1,"\\uFF61":2,"\\uFFFF":3,"\\uE000":4}']

    # Every escape class.
    v += ['"\\""', '"\\\\"', '"\\/"', '"/"', '"\\n"', '"\\r"', '"\\t"', '"\\b"', '"\\f"',
          '"\\u0022\\u005c\\u002f"', '"\\u000a\\u000d\\u0009\\u0008\\u000c"',
          '"\\u000A\\u000D\\u0009\\u0008\\u000C"', '"a\\"b\\\\c\\/d"', '"\'"']
    v.append('"' + "".join("\\u%04x" % c for c in range(0x20)) + '"')
    v.append('"' + "".join("\\u%04X" % c for c in range(0x20)) + '"')
    v += ['"\\u%04x"' % c for c in range(0x20)]
    v += ['"\x7f"', '"\\u007f"', '"\\u007F"', '"~\x7f\x80"']
    v.append('"' + "".join(chr(c) for c in range(0x80, 0xA0)) + '"')
    v.append('"' + "".join("\\u%04x" % c for c in range(0x80, 0xA0)) + '"')
    v += ['"\u2028"', '"\u2029"', '"\\u2028\\u2029"', '"a\u2028b\u2029c"']
    v += ['"' + "".join(chr(c) for c in range(0x20, 0x7F)).replace("\\", "\\\\")
          .replace('"', '\\"') + '"']
    v += ['"\u00e9\u00fc\u00df\u00ff\u0100\u03a9\u0416\u4e2d\u6587\uac00"',
          '"\\u00e9\\u00fc\\u00df\\u00ff\\u0100\\u03a9\\u0416\\u4e2d\\u6587\\uac00"',
          '"\\u00E9\\u00FC\\u00DF\\u00FF\\u0100\\u03A9\\u0416\\u4E2D\\u6587\\uAC00"',
          '"\u00a0\u200b\ufeff\ufffd\ufffe\uffff\uff61\ue000\ud7ff\uf900\ufdd0"',
          '"\\u00a0\\u200b\\ufeff\\ufffd\\ufffe\\uffff\\uff61\\ue000\\ud7ff\\uf900\\ufdd0"',
          '"\U0001f600"', '"\\ud83d\\ude00"', '"\\uD83D\\uDE00"', '"\\ud83D\\uDe00"',
          '"\U00010000\U0010ffff\U0001d11e\U00020000\U0001f4a9"',
          '"\\ud800\\udc00\\udbff\\udfff\\ud834\\udd1e\\ud840\\udc00\\ud83d\\udca9"',
          '"\\uD800\\uDC00\\uDBFF\\uDFFF\\uD834\\uDD1E\\uD840\\uDC00\\uD83D\\uDCA9"',
          '"a\U0001f600b\\ud83d\\ude00c"', '"\\u0000"', '"\\u0000\\u0000"', '"a\\u0000b"',
          '"\\u0041\\u0062"', '"\\u0020\\u007e"', '"e\\u0301"', '"\u00e9" ',
          '["\u00e9","\\u00e9","\\u00E9"]', '"\\ud7ff\\ue000"']

    # Integers.
    v += ["0", "-0", "1", "-1", "9", "10", "-10", "123456789",
          "9007199254740991", "9007199254740992", "9007199254740993",
          "-9007199254740993", "2147483647", "2147483648", "-2147483649",
          "4294967295", "4294967296", "9223372036854775807", "9223372036854775808",
          "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
          "18446744073709551616", "18446744073709551623", "-18446744073709551616",
          "-18446744073709551623", "340282366920938463463374607431768211456",
          "-340282366920938463463374607431768211457", "1" + "0" * 308, "1" + "0" * 400,
          "-" + "9" * 400, "[-0,0,-0]", '{"n":-0}']
    rng = random.Random(SEED + 1)
    v.append("".join([str(rng.randint(1, 9))] + [str(rng.randint(0, 9)) for _ in range(4999)]))
    v.append("-" + "".join([str(rng.randint(1, 9))] + [str(rng.randint(0, 9)) for _ in range(999)]))
    v.append("[" + ",".join(str(2 ** k) for k in range(0, 260, 7)) + "]")
    v.append("[" + ",".join(str(-(2 ** k) - 1) for k in range(0, 260, 7)) + "]")

    # Floats: fixed cases.
    v += ["1.0", "-1.0", "-0.0", "0.0", "100.0", "1e2", "1E2", "0.5", "-0.5", "0.1", "0.2",
          "0.3", "1.5", "3.141592653589793", "2.718281828459045", "123.456",
          "1e-4", "0.0001", "-0.0001", "0.00009999999999999999", "0.00001", "0.0000999",
          "0.000099999999999999990", "9.999999999999999e-05", "0.00010000000000000002",
          "1e-5", "1e16", "-1e16", "9999999999999998.0", "9999999999999999.0",
          "1e15", "1000000000000000.0", "10000000000000000.0", "1.0000000000000002e16",
          "9999999999999998", "1e+16", "1e17", "12345678901234567890.0",
          "1.5e-7", "1.5e-07", "2.5e300", "2.5e+300", "1e22", "1e23", "1e21",
          "5e-324", "4.9406564584124654e-324", "2.4703282292062327e-324",
          "2.4703282292062328e-324", "1e-323", "-5e-324",
          "2.2250738585072014e-308", "2.2250738585072011e-308", "2.2250738585072012e-308",
          "2.225073858507201e-308", "2.2250738585072009e-308", "2.225073858507200e-308",
          "2.2250738585072004e-308", "1.1125369292536007e-308", "-2.225073858507201e-308",
          "1.7976931348623157e308", "1.7976931348623157e+308", "-1.7976931348623157e308",
          "1.7976931348623158e308", "1.79769313486231570e308", "8.98846567431158e307",
          "1e-400", "-1e-400", "1e-1000000", "-1e-1000000", "0e400", "0e999999", "-0e400",
          "0.0e5", "0e0", "0E-0", "-0e+00", "0.000000000000000000000000000000000000e10",
          "0.1000000000000000055511151231257827021181583404541015625",
          "0.1000000000000000055511151231257827021181583404541015624",
          "0.1000000000000000055511151231257827021181583404541015626",
          "1234567890123456789012345678901234567890.0",
          "0.1234567890123456789012345678901234567890",
          "1.234567890123456789012345678901234567890e-200",
          "-9.876543210987654321098765432109876543210e+250",
          "1234567890123456789012345678901234567890e-30",
          "9007199254740993.0", "9007199254740993.00000000000000000001",
          "9007199254740992.0", "9007199254740995.0", "4503599627370496.5",
          "4503599627370497.5", "1E5", "1e+5", "1e05", "1E+05", "-1.5E-10", "1.5e-10",
          "123456789e-5", "0.000000000000000000000000000000001e40",
          "100000000000000000000000000000000e-40", "1" + "0" * 300 + ".0",
          "0." + "0" * 400 + "1e400", "1." + "0" * 5000 + "1",
          "7.2057594037927933e16", "1.8446744073709552e19", "3.4028236692093846e38",
          "1e308", "1e-308", "1e-307", "1e-309", "1e-310", "1e-320", "1e-322", "3e-324",
          "0.30000000000000004", "2.9999999999999996", "5e-1", "25e-2", "0.01", "0.001",
          "[1.0,1,1e0,-0,-0.0,0.0,0]", '{"f":1.0,"i":1}']

    # Whole nested documents with mixed content, written out fixed.
    v += ['{"args":{"path":"docs/intro.md","opts":{"recursive":false,"depth":3}},'
          '"index":0,"response":{"entries":["a.md","b.md"],"size":1.5e3},"tool":"list_dir"}',
          '{"z": [1, 2.50, -0.0, "\\u00e9\U0001f600", {"y": null, "x": [true, false]}],'
          ' "a": {"\\uff61": 18446744073709551623, "\U0001f600": 1e-7}}']

    # Nesting depth boundary: exactly 128 levels (the maximum) and 127.
    v.append("[" * 128 + "]" * 128)
    v.append("[" * 127 + "1" + "]" * 127)
    v.append('{"a":' * 64 + "[" * 64 + "null" + "]" * 64 + "}" * 64)
    v.append("[" + "{\"k\":[" * 42 + "0" + "]}" * 42 + "]")  # 85 levels
    return v


def generated_inputs() -> list[str]:
    v: list[str] = []
    rng = random.Random(SEED)

    # 12,000 doubles from random 64-bit patterns, shortest repr.
    for _ in range(12000):
        v.append(repr(random_double(rng)))

    # 3,000 more spelled with 17 and 25 significant digits.
    for _ in range(1500):
        v.append("%.17e" % random_double(rng))
    for _ in range(1500):
        v.append("%.25g" % random_double(rng))

    # 2,000 doubles of ordinary magnitude (log-uniform 1e-8 .. 1e20): mostly positional.
    for _ in range(2000):
        x = 10 ** rng.uniform(-8, 20) * rng.choice([-1, 1])
        v.append(rng.choice([repr(x), "%.17g" % x, "%.15g" % x]))

    # Boundaries 1e-4 and 1e16: neighbours by ulp steps and random values nearby.
    for b in (1e-4, 1e16):
        for k in range(-60, 61):
            x = b
            step = math.inf if k > 0 else -math.inf
            for _ in range(abs(k)):
                x = math.nextafter(x, step)
            v.append(repr(x))
            v.append("%.17g" % x)
        for _ in range(300):
            x = b * rng.uniform(0.5, 2.0)
            v.append(rng.choice([repr(x), "%.17e" % x, "%.20g" % x, repr(-x)]))
        for _ in range(200):
            x = b * (1 + rng.uniform(-1e-12, 1e-12))
            v.append(rng.choice([repr(x), "%.17e" % x, repr(-x)]))

    # Subnormal boundary: neighbours of the smallest normal and random subnormals.
    x = 2.2250738585072014e-308
    for _ in range(20):
        x = math.nextafter(x, 0.0)
        v.append(repr(x))
    for _ in range(200):
        sub = struct.unpack("<d", rng.getrandbits(52).to_bytes(8, "little"))[0]
        v.append(rng.choice([repr(sub), "%.17e" % sub, "%.25g" % sub]))
    x = 1.7976931348623157e308
    for _ in range(10):
        v.append(repr(x))
        x = math.nextafter(x, 0.0)

    # Short decimal strings: shortest-repr round trips of "human" numbers.
    for _ in range(1000):
        digits = str(rng.randint(0, 10 ** rng.randint(1, 17)))
        point = rng.randint(0, len(digits))
        lit = (digits[:point] or "0") + "." + (digits[point:] or "0")
        if rng.random() < 0.5:
            lit += rng.choice(["e", "E"]) + rng.choice(["", "+", "-"]) + str(rng.randint(0, 40))
        v.append(rng.choice(["", "-"]) + lit)

    # Random integers of many sizes.
    for _ in range(500):
        v.append(str(rng.choice([-1, 1]) * rng.getrandbits(rng.randint(1, 300))))

    # Random strings with random spelling.
    gen = TextGen(rng)
    for _ in range(1500):
        v.append(gen.ws() + gen.string(gen.random_str(12)) + gen.ws())

    # Random objects whose keys are all from the interesting pool, in random order.
    for _ in range(300):
        keys = rng.sample(KEY_POOL, rng.randint(2, 10))
        v.append(gen.obj(1, 3, keys=keys))

    # Whole random nested documents with mixed content and random whitespace.
    for _ in range(1200):
        v.append(gen.document(rng.randint(1, 6)))
    for _ in range(10):
        v.append(gen.document(rng.randint(10, 20)))
    return v


def build_canonical() -> bytes:
    lines = []
    seen = set()
    for text in fixed_inputs() + generated_inputs():
        if text in seen:
            continue
        seen.add(text)
        obj = {"input": text, "canonical": canonical_of_text(text)}
        line = json.dumps(obj, ensure_ascii=True)
        assert line.isascii() and "\n" not in line
        lines.append(line + "\n")
    return "".join(lines).encode("ascii")


# ---------------------------------------------------------------------------
# The seal vectors.
# ---------------------------------------------------------------------------


def rec(index, tool, args, response) -> str:
    return json.dumps({"index": index, "tool": tool, "args": args, "response": response},
                      ensure_ascii=False)


def seal_inputs() -> dict[str, bytes]:
    files: dict[str, bytes] = {}

    files["empty"] = b""
    files["blank-lines-only"] = b"\n   \n\t\r\n\r\n \t \r\n"

    files["one-record"] = (rec(0, "read_file", {"path": "README.md"},
                               {"text": "# Hello\n"}) + "\n").encode("utf-8")

    listing = {"entries": ["intro.md", "install.md", "usage.md"]}
    intro = {"text": "# Introduction\n\nWelcome to the docs.\n"}
    session = [
        ("list_dir", {"path": "docs"}, listing),
        ("read_file", {"path": "docs/intro.md"}, intro),
        ("read_file", {"path": "docs/intro.md"}, intro),
        ("search", {"query": "install"},
         {"hits": [{"path": "docs/install.md", "line": 1}, {"path": "docs/intro.md", "line": 7}]}),
        ("write_file", {"path": "docs/intro.md", "text": "edited"}, {"ok": True}),
        ("search", {"query": "install"},
         {"hits": [{"path": "docs/install.md", "line": 1}, {"path": "docs/intro.md", "line": 7},
                   {"path": "docs/usage.md", "line": 3}]}),
    ]
    files["session-dirty"] = "".join(
        rec(i, t, a, r) + "\n" for i, (t, a, r) in enumerate(session)).encode("utf-8")

    unicode_lines = [
        rec(0, "recherche_\u00e9t\u00e9", {"q": "caf\u00e9 \u4e2d\u6587 \U0001f600",
                                          "\uff61": 1, "\U0001f600": 2, "z": 3, "\u00e9": 4},
            {"hits": 18446744073709551623, "neg": -18446744073709551623, "score": 0.1,
             "tiny": 5e-324, "big": 1.7976931348623157e308, "neg_zero": -0.0}),
        '{"index": 1, "tool": "\U0001f527tool", "args": {"path": "\\u00e9\\ud83d\\ude00/\\u2028\\u2029",'
        ' "ctl": "\\u0000\\u001f\\u007f\\u0080\\u009f\\b\\f\\n\\r\\t\\"\\\\\\/"},'
        ' "response": {"n": 1e-400, "m": -1e-400, "e": 1E5, "f": 1.0, "i": -0, "x": 1e16,'
        ' "y": 0.00001, "w": 123456789012345678901234567890}}',
        '{"index": 2, "tool": "t", "args": {"raw": "\u2028\u2029\x7f\u0085\ufeff\U0010ffff"},'
        ' "response": {"digits": ' + "7" * 400 + ', "long": 0.1000000000000000055511151231257827021181583404541015625}}',
    ]
    files["unicode-numbers"] = ("\n".join(unicode_lines) + "\n").encode("utf-8")

    files["unsorted-whitespace"] = (
        '  {  "tool" :\t"read_file" ,"response":{"z":1,"a":{"y":[3,2,1],"b":null}} ,'
        '"args" : { "path" : "x" , "mode":"r" } , "index" : 0 }  \t\n'
        '{"response":{},"index":1,"args":{"b":2,"a":1,"B":0},"tool":"write_file"}\n'
        '\t{ "args":{},\t"tool":"t", "response" : {"\\u00e9":true,"e":false}, "index":2}\t \n'
    ).encode("utf-8")

    files["crlf-blank-lines"] = (
        "\r\n"
        + rec(0, "list_dir", {"path": "."}, {"entries": ["a", "b"]}) + "\r\n"
        + "   \r\n"
        + "\t\r\n"
        + "\r\n"
        + rec(1, "read_file", {"path": "a"}, {"text": "line1\r\nline2\n"}) + "\r\n"
        + " \t \r\r\n"
        + rec(2, "run_command", {"cmd": "ls"}, {"exit": 0, "stdout": ""})  # no final newline
    ).encode("utf-8")

    files["bom"] = ("\ufeff" + rec(0, "search", {"query": "bom"}, {"hits": []}) + "\n"
                    + rec(1, "search", {"query": "bom"}, {"hits": [1]}) + "\n").encode("utf-8")

    rng = random.Random(SEED + 2)
    gen = TextGen(rng)
    tools = ["read_file", "write_file", "search", "list_dir", "run_command", "\u00e9tool"]
    lines = []
    for i in range(40):
        args = gen.obj(2, 5)
        response = gen.obj(2, 5)
        fields = [f'"index": {i}', '"tool": ' + gen.string(rng.choice(tools)),
                  '"args": ' + args.replace("\n", " ").replace("\r", " "),
                  '"response": ' + response.replace("\n", " ").replace("\r", " ")]
        rng.shuffle(fields)
        lines.append("{" + ", ".join(fields) + "}\n")
    files["random-40"] = "".join(lines).encode("utf-8")
    return files


# ---------------------------------------------------------------------------


def main() -> None:
    SEAL_DIR.mkdir(parents=True, exist_ok=True)
    (VECTORS / "canonical.jsonl").write_bytes(build_canonical())
    for name, data in seal_inputs().items():
        sealed = seal(data)
        (SEAL_DIR / f"{name}.jsonl").write_bytes(data)
        (SEAL_DIR / f"{name}.sealed.jsonl").write_bytes(sealed)
        # The sealed file must itself be a strict, canonical, intact chain.
        prev = "0" * 64
        for p, line in enumerate(sealed.decode("ascii").splitlines()):
            link = strict_loads(line)
            assert canonical(link) == line and link["prev"] == prev and link["index"] == p
            prev = link["digest"]


if __name__ == "__main__":
    main()
