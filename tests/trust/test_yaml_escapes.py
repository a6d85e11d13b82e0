"""A YAML string that spells a needle only through its escapes (``"\\x73m120"``,
``"sm\\u0031\\x320"``) is found, locally and by the servers' needle test alike.

PyYAML is the oracle of what a double-quoted or single-quoted scalar spells: each drawn file
holds, in one scalar, the needle with some of its characters written as YAML writes them
(hex, ``\\u``, ``\\U``, one-letter escapes, ``''``); PyYAML must read the needle back (else
the draw is not a YAML spelling of it), and then the analysis must report the line, and the
agent's needle test must send the file.  Before, a YAML file's text was matched as written
on both sides: a clean report of a file whose CI step still enables ``sm120``.
"""

from __future__ import annotations

import yaml
from hypothesis import given
from hypothesis import strategies as st

from pytest_cleantree.agent import could_spell
from pytest_cleantree.analysis import analyze
from pytest_cleantree.core.patterns import parse_pattern

LETTERS = {"\t": "\\t", " ": "\\ ", "/": "\\/", "\\": "\\\\", '"': '\\"', "\xa0": "\\_"}


@st.composite
def spellings(draw: st.DrawFn) -> tuple[str, str]:
    """A needle and a double-quoted YAML scalar that spells it through escapes."""
    needle = draw(st.sampled_from(["sm120", "x = 1", "a/b", "C:\\cuda", "nb\xa0sp", 'q"t']))
    parts = []
    for char in needle:
        ways = [char] if char not in '"\\' else []
        ways += [f"\\x{ord(char):02x}", f"\\u{ord(char):04X}", f"\\U{ord(char):08x}"]
        if char in LETTERS:
            ways.append(LETTERS[char])
        parts.append(draw(st.sampled_from(ways)))
    return needle, '"' + "".join(parts) + '"'


def strings_in(loaded: object) -> list[str]:
    """Every string a loaded YAML document holds, keys and values."""
    if isinstance(loaded, str):
        return [loaded]
    if isinstance(loaded, dict):
        return [s for k, v in loaded.items() for s in (*strings_in(k), *strings_in(v))]
    if isinstance(loaded, list):
        return [s for item in loaded for s in strings_in(item)]
    return []


@given(spelt=spellings(), key=st.sampled_from(["run", "env: [x", "- step"]))
def test_a_needle_spelt_by_yaml_escapes_is_found_and_sent(spelt: tuple[str, str], key: str) -> None:
    needle, scalar = spelt
    line = f"{key}: {scalar}" + ("]" if key.startswith("env") else "")
    document = f"steps:\n  {line}\n" if not key.startswith("-") else f"steps:\n  {key}: {scalar}\n"
    assert any(needle in value for value in strings_in(yaml.safe_load(document))), document
    data = document.encode()
    pattern = parse_pattern(needle)

    found = analyze("ci.yaml", data, [pattern])

    assert [f.occurrence.line for f in found.findings] == [2], (document, found.findings)
    assert could_spell(data, [(needle.encode(), needle)])


def test_a_single_quoted_scalar_doubles_its_quote() -> None:
    document = "run: 'it''s sm120'\n"
    assert yaml.safe_load(document) == {"run": "it's sm120"}

    found = analyze("ci.yml", document.encode(), [parse_pattern("it's")])

    assert [f.occurrence.line for f in found.findings] == [1]
