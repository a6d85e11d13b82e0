"""The agent's record stream, parsed without a server: a cut is always detected."""

from __future__ import annotations

import pytest

from pytest_cleantree.agent import wire
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.sources.base import FileRead, read_answer
from pytest_cleantree.sources.ssh.protocol import (
    ReadAhead,
    _parse_records,
    _StreamError,
    parse_ahead,
)

NONCE = "00ff00ff00ff00ff"
MARK = b"\0CLEANTREE%d " % wire.PROTOCOL + NONCE.encode() + b"\n"
WHOLE = MARK + b"R 4\n/srv" + b"F 5\nab\ncd" + b"M\n" + b"END\n"


def test_records_after_the_marker_are_parsed() -> None:
    assert wire.hello(NONCE) == MARK
    assert _parse_records(WHOLE, NONCE) == [
        wire.Root("/srv"),
        wire.Content(b"ab\ncd"),
        wire.Missing(),
    ]


def test_a_noisy_login_shell_before_the_marker_is_skipped() -> None:
    noise = b"Welcome!\nF 3\nEND\n\0CLEANTREE2 other\n\0CLEANTREE\n"
    assert _parse_records(noise + WHOLE, NONCE) == _parse_records(WHOLE, NONCE)


def test_no_marker_means_the_helper_never_ran() -> None:
    assert _parse_records(b"", NONCE) is None
    assert _parse_records(WHOLE.replace(NONCE.encode(), b"1" * 16), NONCE) is None


@pytest.mark.parametrize("theirs", [b"1", b"2", b"4", b"10"])
def test_a_helper_of_another_version_is_refused_naming_both(theirs: bytes) -> None:
    """Version 1 wrote ``\\0CLEANTREE1 <nonce>``: it is named, never misparsed."""
    other = WHOLE.replace(b"\0CLEANTREE%d " % wire.PROTOCOL, b"\0CLEANTREE" + theirs + b" ")
    with pytest.raises(wire.VersionError) as caught:
        _parse_records(other, NONCE)
    assert str(caught.value) == (
        f"the remote helper speaks protocol version {theirs.decode()}, this client speaks "
        f"version {wire.PROTOCOL}: the helper and the client come from different releases"
    )


@pytest.mark.parametrize("cut", range(len(MARK), len(WHOLE)))
def test_every_cut_of_the_stream_is_an_error(cut: int) -> None:
    with pytest.raises(_StreamError):
        _parse_records(WHOLE[:cut], NONCE)


@pytest.mark.parametrize("cut", range(len(MARK), len(WHOLE)))
def test_the_session_waits_for_more_at_every_cut(cut: int) -> None:
    """The running agent's answer is read until its end record: a cut one is never taken
    for whole (the session then waits, until the channel ends or the timeout)."""
    assert wire.scan(WHOLE[:cut], len(MARK))[1] == "more"


def test_an_answer_ends_at_its_end_record_not_before_nor_after() -> None:
    after = wire.hello("1" * 16) + b"M\nEND\n"  # the next answer, already arrived
    assert wire.scan(WHOLE + after, len(MARK)) == (len(WHOLE), "end")
    assert wire.scan(WHOLE, len(MARK)) == (len(WHOLE), "end")
    # an END inside a record's bytes is data, not the end
    inner = MARK + b"F 4\nEND\n" + b"END\n"
    assert wire.scan(inner, len(MARK)) == (len(inner), "end")


GARBLED = [b"F x\n", b"F -1\n", b"\xff 1\n", b"F 1 2\n", b"F" * 80, b"F\n", b"M 0\n", b"Ahead 1\n"]


@pytest.mark.parametrize("header", GARBLED)
def test_a_garbled_header_is_an_error(header: bytes) -> None:
    with pytest.raises(_StreamError):
        _parse_records(MARK + header + b"payload" + b"END\n", NONCE)
    # the session stops reading there, and the parse says what is wrong
    assert wire.scan(MARK + header + b"payload" + b"END\n", len(MARK)) == (len(MARK), "garbled")


@pytest.mark.parametrize(
    ("record", "shown"),
    [
        (wire.Content(b"data"), b"data"),
        (wire.Missing(), "a.py: no such file (or a dangling link)"),
        (wire.Folder(), "a.py: is a folder, not a file"),
        (wire.Special(), "a.py: is a FIFO, socket or device, not a file"),
        (wire.Denied(), "a.py: permission denied"),
        (wire.Failed("Not a directory"), "a.py: cannot read: Not a directory"),
        (
            wire.Outside("/etc/passwd"),
            "a.py: leads outside the root (to /etc/passwd); "
            "set allow_outside_root = true to allow it",
        ),
        (wire.Listed("b.py"), "a.py: the remote helper's answer is garbled (Listed('b.py'))"),
    ],
)
def test_each_read_record_means(record: wire.Record, shown: bytes | str) -> None:
    got = read_answer("a.py", record)
    assert (got.data if isinstance(got, FileRead) else str(got)) == shown


AHEAD = {"needles": [["sm120"], ["sm90"]]}


def test_each_file_read_ahead_is_its_ahead_record_then_its_read_record() -> None:
    records = [
        wire.Ahead("a.py", (0,)),
        wire.Spared(),
        wire.Ahead("b\nc.py", (0, 1)),
        wire.Content(b"sm120"),
    ]
    assert parse_ahead(records, AHEAD, "gpu-a") == {
        "a.py": ReadAhead(wire.Spared(), frozenset({"sm120"})),
        "b\nc.py": ReadAhead(wire.Content(b"sm120"), frozenset({"sm120", "sm90"})),
    }


@pytest.mark.parametrize(
    "records",
    [
        [wire.Ahead("a.py", (0,))],  # its read record is missing
        [wire.Ahead("a.py", (0,)), wire.Ahead("b.py", (0,))],  # two in a row
        [wire.Spared(), wire.Ahead("a.py", (0,))],  # the pair reversed
        [wire.Ahead("a.py", (2,)), wire.Spared()],  # a needle list never sent
        [wire.Ahead("a.py", (0,)), wire.Listed("b.py")],  # no read record
    ],
)
def test_a_read_ahead_out_of_order_is_garbled_never_paired_wrong(
    records: list[wire.Record],
) -> None:
    with pytest.raises(SourceError, match="garbled"):
        parse_ahead(records, AHEAD, "gpu-a")
