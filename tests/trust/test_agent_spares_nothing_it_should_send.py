"""One model on both sides: what the agent spares (does not send) the local analysis would
have found nothing in, not even a problem.

A server answers "no needle" for a file whose text cannot spell one of the run's needles
(:func:`pytest_cleantree.agent.could_spell`), and the client never sees it; locally the same
file is analysed.  If the analysis would report a finding *or a problem* (a file it cannot
read as text: UTF-16 without a byte-order mark), sparing it turns an error into a clean over
SSH (issue 45: a UTF-16 LE YAML file was exit 2 locally and clean remotely).  The property,
on generated files (encodings with and without a mark, NUL bytes, CRLF and lone CR, bytes that
are not UTF-8, empty files, every suffix the text model knows) and patterns of each tier with
a needle: ``not could_spell(data) => analysis(data) holds no finding and no problem`` (no
finding for both engines; no problem for the run's).
"""

from __future__ import annotations

import json
import random

import pytest

from pytest_cleantree import agent
from pytest_cleantree.analysis import analyze_fast, analyze_reference
from pytest_cleantree.config.entries import parse_pattern
from pytest_cleantree.run.plan import PatternList, RemoteNeedles

SUFFIXES = (".py", ".yaml", ".toml", ".sh", ".json", ".cu", ".cuh", ".txt", ".cfg", "")
ENCODINGS = ("utf-8", "utf-8-sig", "utf-16-le", "utf-16-be", "utf-16", "utf-32-le", "utf-32",
             "latin-1", "cp1252")  # fmt: skip
PATTERNS = ("sm120", "=is_sm120_supported", "is_sm1*_supported", "café", "sglang.srt.utils.x")
LINES = (
    "enable: sm120  # the word",
    "x = is_sm120_supported()",
    "name = 'café'",
    "plain text with nothing",
    "# cleantree: allow r -- why",
    "",
    "\ttab\tseparated",
)


def generated_file(rng: random.Random) -> tuple[str, bytes]:
    suffix = rng.choice(SUFFIXES)
    newline = rng.choice(["\n", "\r\n", "\r"])
    text = newline.join(rng.choice(LINES) for _ in range(rng.randint(0, 4)))
    encoding = rng.choice(ENCODINGS)
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        data = text.encode("utf-8")
    if rng.random() < 0.15:
        at = rng.randint(0, len(data))
        data = data[:at] + rng.choice([b"\0", b"\xff", b"\xe9", b"\xfe\xff"]) + data[at:]
    return f"gen{suffix}", data


def needle_pairs(patterns: list[str]) -> list[tuple[bytes, str]] | None:
    parsed = [parse_pattern(text) for text in patterns]
    needles = RemoteNeedles().of(PatternList(tuple(parsed)))
    return None if needles is None else [(agent.enc(n), n) for n in needles]


#: seeds the default suite runs (20 files each); the slow tier runs ten times more
DEFAULT_SEEDS = 40


@pytest.mark.parametrize("seed", range(DEFAULT_SEEDS))
def test_a_spared_file_is_one_the_analysis_finds_nothing_in(seed: int) -> None:
    spared_means_nothing(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(DEFAULT_SEEDS, 10 * DEFAULT_SEEDS))
def test_a_spared_file_is_one_the_analysis_finds_nothing_in_wide(seed: int) -> None:
    spared_means_nothing(seed)


def spared_means_nothing(seed: int) -> None:
    rng = random.Random(seed)
    patterns = rng.sample(PATTERNS, rng.randint(1, 2))
    pairs = needle_pairs(patterns)
    assert pairs is not None  # every pattern here has a needle: the agent tests them
    parsed = [parse_pattern(text) for text in patterns]
    for _ in range(20):
        path, data = generated_file(rng)
        if agent.could_spell(data, pairs):
            continue
        for engine in (analyze_fast, analyze_reference):
            analysis = engine(path, data, parsed)
            assert not analysis.findings, (engine.__name__, path, data, patterns)
        # the run's engine: no problem either (the reference parses every Python file, and
        # reports a syntax error the run leaves alone in a file that spells no pattern)
        problem = analyze_fast(path, data, parsed).problem
        assert problem is None, (path, data, patterns, problem)


#: texts a JSON file's strings may spell with JSON's own escapes (a path, a name, one character
#: beyond the BMP), each also a substring pattern
JSON_TEXTS = ("internal-host/v1", "sm120", "x\U0001f600y", "caf\u00e9")


def json_spelling(text: str, rng: random.Random) -> str:
    """``text`` as a JSON string literal, each character as written or escaped as JSON allows
    (``\\/``, ``\\uXXXX``, a surrogate pair beyond the BMP)."""
    out = []
    for char in text:
        choice = rng.random()
        if char == "/" and choice < 0.5:
            out.append("\\/")
        elif choice < 0.4:
            out.append(
                json.dumps(char, ensure_ascii=True)[1:-1]
                if ord(char) > 127
                else f"\\u{ord(char):04x}"
            )
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


@pytest.mark.parametrize("seed", range(DEFAULT_SEEDS))
def test_a_spared_json_file_is_one_the_analysis_finds_nothing_in(seed: int) -> None:
    """JSON's escapes are not Python's: ``\\/`` spells ``/``, a surrogate pair one character
    beyond the BMP; the JSON view decodes them, so the agent must not spare them."""
    rng = random.Random(seed)
    for _ in range(20):
        wanted = rng.choice(JSON_TEXTS)
        pairs = needle_pairs([wanted])
        assert pairs is not None
        key = json_spelling(rng.choice(["url", "k"]), rng)
        data = ("{" + key + ": " + json_spelling(wanted, rng) + "}\n").encode()
        pattern = [parse_pattern(wanted)]
        found = analyze_fast("conf.json", data, pattern).findings
        assert found, (data, wanted)  # the analysis reads JSON's escapes
        assert agent.could_spell(data, pairs), (data, wanted)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le"])
def test_utf16_without_a_mark_is_sent_for_the_analysis_to_refuse(encoding: str) -> None:
    """The issue's case: the agent must send it; the analysis says it cannot read it."""
    data = "key: sm120\n".encode(encoding)
    pairs = needle_pairs(["sm120"])
    assert pairs is not None
    assert agent.could_spell(data, pairs)
    assert analyze_fast("ci.yaml", data, [parse_pattern("sm120")]).problem
