"""The agent's protocol: every record type survives its codec, here and under Python 3.6.

The strategies are built from :data:`pytest_cleantree.agent.wire.RECORDS` and each type's
``FIELDS``: a record type added to the protocol is drawn here without touching this file.
Text fields come from arbitrary bytes (a server's names need not be UTF-8), with newlines,
spaces, the empty string and large payloads among them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_cleantree.agent import wire

NONCE = "0123456789abcdef"
LARGE = b"\n\0\xff" * (1 << 18)  # 768 KiB of newlines, NULs and bytes that are not UTF-8

_BYTES = st.one_of(
    st.binary(max_size=64),
    st.sampled_from([b"", b"\n", b"\r\n", b" ", b"END\n", b"F 3\n", b"\0CLEANTREE2 x\n", LARGE]),
)
_FIELD = {
    "b": _BYTES,
    "t": st.one_of(
        _BYTES.map(lambda data: data.decode("utf-8", "surrogateescape")),
        st.text(st.characters(blacklist_categories=("Cs",)), max_size=32),
    ),
    "n": st.lists(st.integers(0, 2**40), max_size=8).map(tuple),
}


def _record_of(kind: type[wire.Record]) -> st.SearchStrategy[wire.Record]:
    fields = [_FIELD[how] for _, how in kind.FIELDS]
    return st.tuples(*fields).map(lambda values: kind(*values))


RECORD_TYPES = [kind for kind in wire.RECORDS.values() if kind is not wire.End]
RECORDS = st.one_of([_record_of(kind) for kind in RECORD_TYPES])


def _stream(records: list[wire.Record]) -> bytes:
    return wire.hello(NONCE) + wire.encode_all(records) + wire.encode(wire.End())


def test_every_type_has_its_own_tag_and_fields_its_init_takes() -> None:
    assert len(wire.RECORDS) == len({kind.__name__ for kind in wire.RECORDS.values()})
    for tag, kind in wire.RECORDS.items():
        assert tag == kind.TAG
        assert b" " not in tag
        assert b"\n" not in tag
        assert {how for _, how in kind.FIELDS} <= set(_FIELD)


@pytest.mark.parametrize("kind", RECORD_TYPES, ids=lambda kind: kind.__name__)
@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_each_record_type_round_trips(kind: type[wire.Record], data: st.DataObject) -> None:
    record = data.draw(_record_of(kind))
    assert wire.decode(_stream([record]), NONCE) == [record]


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(RECORDS, max_size=12), st.binary(max_size=40))
def test_any_stream_round_trips_after_any_noise(records: list[wire.Record], noise: bytes) -> None:
    assert wire.decode(noise + b"\n" + _stream(records), NONCE) == records


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(RECORDS, min_size=1, max_size=6), st.data())
def test_a_stream_cut_anywhere_is_an_error_never_fewer_records(
    records: list[wire.Record], data: st.DataObject
) -> None:
    stream = _stream(records)
    start = len(wire.hello(NONCE))
    cut = data.draw(st.integers(start, len(stream) - 1))
    with pytest.raises(wire.WireError):
        wire.decode(stream[:cut], NONCE)


#: decodes a stream on stdin with the agent's own codec, under the interpreter it runs in,
#: and writes it back encoded: what the other Python encoded, this one reads alike
ECHO = """
import sys
sys.path.insert(0, sys.argv[1])
from agent import wire
records = wire.decode(sys.stdin.buffer.read(), sys.argv[2])
out = wire.hello(sys.argv[2]) + wire.encode_all(records) + wire.encode(wire.End())
sys.stdout.buffer.write(out)
"""


@pytest.fixture(scope="module")
def agent_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The agent's package, copied (Python 3.6 must not write into the checkout)."""
    folder = tmp_path_factory.mktemp("agent36")
    (folder / "agent").mkdir()
    for module in Path(wire.__file__).parent.glob("*.py"):
        (folder / "agent" / module.name).write_bytes(module.read_bytes())
    return folder


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=st.lists(RECORDS, max_size=20))
def test_python36_reads_and_writes_what_this_python_does(
    python36: Path, agent_copy: Path, records: list[wire.Record]
) -> None:
    stream = _stream(records)
    done = subprocess.run(
        [str(python36), "-B", "-S", "-c", ECHO, str(agent_copy), NONCE],
        input=stream,
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == stream
    assert wire.decode(done.stdout, NONCE) == records


def test_python36_round_trips_one_of_each_type_with_awkward_payloads(
    python36: Path, agent_copy: Path
) -> None:
    """Every type, each field as awkward as it gets: not UTF-8, newlines, empty, large."""
    awkward = {"b": LARGE, "t": "a\nb \udcff\udc80.py", "n": (0, 7, 2**40)}
    records = [kind(*(awkward[how] for _, how in kind.FIELDS)) for kind in RECORD_TYPES]
    records += [
        kind(*(b"" if how == "b" else "" if how == "t" else () for _, how in kind.FIELDS))
        for kind in RECORD_TYPES
    ]
    stream = _stream(records)
    done = subprocess.run(
        [str(python36), "-B", "-S", "-c", ECHO, str(agent_copy), NONCE],
        input=stream,
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == stream
    assert wire.decode(done.stdout, NONCE) == records
