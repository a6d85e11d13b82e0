"""The helper's length-prefixed stream, parsed without a server: a cut is always detected."""

from __future__ import annotations

import pytest

from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.sources.ssh.protocol import _parse_records, _read_result, _StreamError

NONCE = "00ff00ff00ff00ff"
MARK = b"\0CLEANTREE1 " + NONCE.encode() + b"\n"
WHOLE = MARK + b"R 4\n/srv" + b"F 5\nab\ncd" + b"M 0\n" + b"END 0\n"


def test_records_after_the_marker_are_parsed() -> None:
    assert _parse_records(WHOLE, NONCE) == [("R", b"/srv"), ("F", b"ab\ncd"), ("M", b"")]


def test_a_noisy_login_shell_before_the_marker_is_skipped() -> None:
    noise = b"Welcome!\nF 3\nEND 0\n\0CLEANTREE1 other\n"
    assert _parse_records(noise + WHOLE, NONCE) == _parse_records(WHOLE, NONCE)


def test_no_marker_means_the_helper_never_ran() -> None:
    assert _parse_records(b"", NONCE) is None
    assert _parse_records(WHOLE.replace(NONCE.encode(), b"1" * 16), NONCE) is None


@pytest.mark.parametrize("cut", range(len(MARK), len(WHOLE)))
def test_every_cut_of_the_stream_is_an_error(cut: int) -> None:
    with pytest.raises(_StreamError):
        _parse_records(WHOLE[:cut], NONCE)


@pytest.mark.parametrize("header", [b"F x\n", b"F -1\n", b"\xff 1\n", b"F 1 2\n", b"F" * 40])
def test_a_garbled_header_is_an_error(header: bytes) -> None:
    with pytest.raises(_StreamError):
        _parse_records(MARK + header + b"payload" + b"END 0\n", NONCE)


@pytest.mark.parametrize(
    ("tag", "payload", "shown"),
    [
        ("F", b"data", b"data"),
        ("M", b"", "a.py: no such file (or a dangling link)"),
        ("D", b"", "a.py: is a folder, not a file"),
        ("S", b"", "a.py: is a FIFO, socket or device, not a file"),
        ("P", b"", "a.py: permission denied"),
        ("O", b"Not a directory", "a.py: cannot read: Not a directory"),
        (
            "X",
            b"/etc/passwd",
            "a.py: leads outside the root (to /etc/passwd); "
            "set allow_outside_root = true to allow it",
        ),
        ("Q", b"", "a.py: the remote helper's answer is garbled ('Q')"),
    ],
)
def test_each_read_record_means(tag: str, payload: bytes, shown: bytes | str) -> None:
    got = _read_result("a.py", tag, payload)
    assert (str(got) if isinstance(got, SourceError) else got) == shown
