"""``agent/wire.py`` called directly: the bytes each record travels as, the handshake, and what
a garbled or cut stream raises (golden bytes, so that no peer of another release misreads).

Every record type's golden bytes are generated from its definition (``TAG`` and ``FIELDS``, see
:func:`_golden`): a type or a field added to ``wire.RECORDS`` is encoded, decoded and checked
against the format here with no edit; only the table of tags and fields, the protocol's
declaration, is kept by hand."""

from __future__ import annotations

import pytest

from pytest_cleantree.agent import wire

NONCE = "0123456789abcdef"
HELLO = b"\0CLEANTREE3 0123456789abcdef\n"
END = b"END\n"


def test_the_handshake_names_the_protocol_and_the_nonce() -> None:
    assert wire.PROTOCOL == 3
    assert wire.MARK == b"\0CLEANTREE"
    assert wire.hello(NONCE) == HELLO
    assert wire.hello("x") == b"\0CLEANTREE3 x\n"


def test_each_record_type_has_its_tag_and_fields() -> None:
    shapes = {
        tag: (kind.__name__, tuple(kind.FIELDS)) for tag, kind in sorted(wire.RECORDS.items())
    }
    assert shapes == {
        b"A": ("Ahead", (("path", "t"), ("needle_lists", "n"))),
        b"B": ("Base", ()),
        b"C": ("Packed", (("data", "b"),)),
        b"D": ("Folder", ()),
        b"E": ("NoRoot", (("why", "t"),)),
        b"END": ("End", ()),
        b"F": ("Content", (("data", "b"),)),
        b"G": ("Kept", ()),
        b"H": ("Spared", ()),
        b"K": ("LinkOut", (("path", "t"), ("real", "t"))),
        b"L": ("Listed", (("path", "t"),)),
        b"M": ("Missing", ()),
        b"N": ("Other", (("path", "t"),)),
        b"O": ("Failed", (("why", "t"),)),
        b"P": ("Denied", ()),
        b"Q": ("Unknown", (("why", "t"),)),
        b"R": ("Root", (("path", "t"),)),
        b"S": ("Special", ()),
        b"U": ("Unlisted", (("path", "t"), ("why", "t"))),
        b"X": ("Outside", (("real", "t"),)),
        b"Y": ("Exists", ()),
        b"Z": ("Absent", ()),
    }
    assert [kind.__name__ for kind in wire.READS] == [
        "Content",
        "Spared",
        "Missing",
        "Folder",
        "Special",
        "Denied",
        "Failed",
        "Outside",
    ]
    assert [kind.__name__ for kind in wire.WALKS] == ["Listed", "Other", "Unlisted", "LinkOut"]
    assert [kind.__name__ for kind in wire.LITERALS] == ["Exists", "Absent", "Unknown"]
    assert wire.names((("a", "t"), ("b", "n"))) == ("a", "b")
    assert wire.Unlisted.__slots__ == ("path", "why")


def test_a_record_travels_as_its_header_line_then_its_fields_back_to_back() -> None:
    assert wire.encode(wire.End()) == b"END\n"
    assert wire.encode(wire.Missing()) == b"M\n"
    assert wire.encode(wire.Root("a/\u00e9")) == b"R 4\na/\xc3\xa9"
    assert wire.encode(wire.Root("\udcff")) == b"R 1\n\xff"  # a name that was not UTF-8
    assert wire.encode(wire.Unlisted("p", "no way")) == b"U 1 6\npno way"
    assert wire.encode(wire.LinkOut("", "/r")) == b"K 0 2\n/r"
    assert wire.encode(wire.Ahead("x.py", (1, 22))) == b"A 4 4\nx.py1,22"
    assert wire.encode(wire.Ahead("x.py", ())) == b"A 4 0\nx.py"
    assert wire.encode(wire.Content(b"\xff\n")) == b"F 2\n\xff\n"
    records = [wire.Spared(), wire.Failed("e")]
    assert wire.encode_all(records) == b"H\nO 1\ne"
    assert wire.encode_all([]) == b""


def test_a_stream_decodes_to_its_records_up_to_the_end() -> None:
    stream = HELLO + b"R 2\n/tA 1 3\nx1,2F 2\n\xff\nL 1\n\xffEND\nM\n"
    assert wire.decode(stream, NONCE) == [
        wire.Root("/t"),
        wire.Ahead("x", (1, 2)),
        wire.Content(b"\xff\n"),
        wire.Listed("\udcff"),
    ]
    assert wire.decode(b"motd\n" + HELLO + END, NONCE) == []
    assert wire.decode(HELLO + b"A 1 0\nx" + END, NONCE) == [wire.Ahead("x", ())]
    assert wire.decode(HELLO + b"A 1 1\nx0" + END, NONCE) == [wire.Ahead("x", (0,))]


def test_without_the_handshake_of_this_request_there_is_no_answer() -> None:
    assert wire.decode(b"", NONCE) is None
    assert wire.decode(b"bash: agent: not found\n", NONCE) is None
    assert wire.decode(wire.hello("another") + END, NONCE) is None
    assert wire.decode(b"\0CLEANTREEx " + NONCE.encode() + b"\n" + END, NONCE) is None
    assert wire.decode(HELLO[:-1], NONCE) is None  # the line is not finished
    long = b"\0CLEANTREE" + b"0" * 60 + b"2 " + NONCE.encode() + b"\n"
    assert wire.decode(long + END, NONCE) is None  # a handshake line is short
    # the nonce may be long, up to what fits the 64 bytes after the mark
    assert wire.decode(wire.hello("n" * 61) + b"Y\n" + END, "n" * 61) == [wire.Exists()]
    assert wire.decode(wire.hello("n" * 62) + b"Y\n" + END, "n" * 62) is None
    # a mark in the noise, then the handshake
    assert wire.decode(b"\0CLEANTREE junk\n" + HELLO + b"Y\n" + END, NONCE) == [wire.Exists()]
    assert wire.decode(b"\0CLEANTREE" + HELLO + b"Y\n" + END, NONCE) == [wire.Exists()]
    # a file's content that holds the mark is content: the first handshake counts
    marked = wire.encode(wire.Content(wire.MARK + b"3 x\n"))
    for noise in (b"", b"\0CLEANTREE junk\n"):
        assert wire.decode(noise + HELLO + marked + END, NONCE) == [
            wire.Content(wire.MARK + b"3 x\n")
        ]


def test_a_peer_of_another_version_is_refused_naming_both() -> None:
    with pytest.raises(wire.VersionError) as raised:
        wire.decode(b"\0CLEANTREE4 " + NONCE.encode() + b"\n" + END, NONCE)
    assert str(raised.value) == (
        "the remote helper speaks protocol version 4, this client speaks version 3: "
        "the helper and the client come from different releases"
    )
    assert raised.value.theirs == "4"
    assert isinstance(raised.value, wire.WireError)
    with pytest.raises(wire.VersionError, match="version 10,"):
        wire.decode(b"\0CLEANTREE10 " + NONCE.encode() + b"\n" + END, NONCE)


@pytest.mark.parametrize(
    ("records", "message"),
    [
        (b"", "0 records, then 0 stray bytes"),
        (b"Y\nZ\nM", "2 records, then 1 stray bytes"),
        (b"Y\n" + b"R " + b"1" * 70 + b"\n", "1 records, then 73 stray bytes"),
        (b"R " + b"1" * 62 + b"\n", "0 records, then 65 stray bytes"),  # 64 bytes: too long
        (b"R " + b"0" * 61 + b"\n", "1 records, then 0 stray bytes"),  # 63: read
        (b"R\t1\nx", "garbled header after 0 records"),
        (b"R  1\nx", "garbled header after 0 records"),
        (b"W\n", "garbled header after 0 records"),
        (b"Y\nR\n", "garbled header after 1 records"),
        (b"R 1 1\nab", "garbled header after 0 records"),
        (b"R x\n", "garbled header after 0 records"),
        (b"Y 0\n", "garbled header after 0 records"),
        (b"Y\nR 5\nabc", "record 2 announced 5 bytes, 3 arrived"),
        (b"U 1 5\npwhy", "record 1 announced 5 bytes, 3 arrived"),
        (b"A 1 3\nx1,x", "garbled numbers b'1,x'"),
        (b"A 1 1\nx,", "garbled numbers b','"),
        (b"A 1 41\nx" + b"9" * 40 + b"z", "garbled numbers b'" + "9" * 40 + "'"),
    ],
)
def test_a_garbled_or_cut_stream_is_an_error_saying_where(records: bytes, message: str) -> None:
    with pytest.raises(wire.WireError) as raised:
        wire.decode(HELLO + records, NONCE)
    assert str(raised.value) == message


def test_a_record_with_exactly_its_bytes_at_the_end_of_the_stream_is_read() -> None:
    with pytest.raises(wire.WireError, match=r"^1 records, then 0 stray bytes$"):
        wire.decode(HELLO + b"R 3\nabc", NONCE)


def test_records_are_equal_by_type_and_values() -> None:
    assert wire.Listed("a") == wire.Listed("a")
    assert wire.Listed("a") != wire.Listed("b")
    assert wire.Listed("a") != wire.Other("a")
    assert wire.Missing() == wire.Missing()
    assert wire.Missing() != wire.Folder()
    assert wire.Listed("a") != "a"
    assert hash(wire.Listed("a")) == hash(wire.Listed("a"))
    assert hash(wire.Listed("a")) != hash(wire.Listed("b"))
    assert hash(wire.Listed("a")) != hash(wire.Other("a"))
    assert len({wire.Listed("a"), wire.Other("a"), wire.Listed("a")}) == 2
    assert wire.Unlisted("p", "w").values() == ("p", "w")
    assert repr(wire.Unlisted("p", "w")) == "Unlisted('p', 'w')"
    assert repr(wire.End()) == "End()"


def test_text_keeps_bytes_that_are_not_utf8() -> None:
    assert wire.text(b"a\xff") == "a\udcff"
    assert wire.text(b"\xc3\xa9") == "\u00e9"
    assert wire.text("x") == "x"


def test_every_record_with_fields_decodes_to_its_values() -> None:
    records = [
        wire.NoRoot("no such folder"),
        wire.Unknown("timed out"),
        wire.Other("d"),
        wire.Outside("/etc/x"),
        wire.LinkOut("l", "/out"),
        wire.Unlisted("u", "denied"),
        wire.Failed("I/O error"),
    ]
    decoded = wire.decode(HELLO + wire.encode_all(records) + END, NONCE)
    assert decoded == records
    assert decoded is not None
    assert [record.values() for record in decoded] == [
        ("no such folder",),
        ("timed out",),
        ("d",),
        ("/etc/x",),
        ("l", "/out"),
        ("u", "denied"),
        ("I/O error",),
    ]


# -- generated from the record definitions: every type in ``wire.RECORDS`` gets its golden
# -- encoding and its round trip from its ``TAG`` and ``FIELDS`` alone, so that a record type
# -- or a field added to the protocol is tested here without touching this file


def _sample(name: str, how: str) -> tuple[wire.Value, bytes]:
    """A value for the field ``name`` travelling as ``how``, and the bytes it travels as (spelt
    here from the format's definition, apart from the codec).  Each field's value holds its
    name, so that two fields swapped are told apart."""
    if how == "t":  # UTF-8, and a byte that was not UTF-8 kept by surrogateescape
        return f"{name}/\u00e9\udcff", name.encode() + b"/\xc3\xa9\xff"
    if how == "b":  # as they are
        return name.encode() + b"\0\n\xff", name.encode() + b"\0\n\xff"
    assert how == "n", f"a field travelling as {how!r}: spell its bytes here"
    return (len(name), 0, 2**40), b"%d,0,1099511627776" % len(name)


def _golden(kind: type[wire.Record]) -> tuple[wire.Record, bytes]:
    """One record of ``kind`` and its golden bytes: ``TAG len1 len2 ...\\n``, then its fields'
    bytes back to back."""
    samples = [_sample(name, how) for name, how in kind.FIELDS]
    record = kind(*(value for value, _ in samples))
    header = kind.TAG + b"".join(b" %d" % len(data) for _, data in samples)
    return record, header + b"\n" + b"".join(data for _, data in samples)


ALL_TYPES = sorted(wire.RECORDS.values(), key=lambda kind: kind.TAG)


@pytest.mark.parametrize("kind", ALL_TYPES, ids=lambda kind: kind.__name__)
def test_each_record_type_takes_its_fields_in_wire_order(kind: type[wire.Record]) -> None:
    import inspect

    taken = list(inspect.signature(kind).parameters)
    assert taken == [name for name, _ in kind.FIELDS]
    record, _ = _golden(kind)
    for name, how in kind.FIELDS:
        assert getattr(record, name) == _sample(name, how)[0]


@pytest.mark.parametrize("kind", ALL_TYPES, ids=lambda kind: kind.__name__)
def test_each_record_type_travels_as_its_golden_bytes(kind: type[wire.Record]) -> None:
    record, golden = _golden(kind)
    assert wire.encode(record) == golden
    assert wire.scan(golden + b"rest", 0) == (
        (len(golden), "end") if kind is wire.End else (len(golden), "more")
    )


@pytest.mark.parametrize("kind", ALL_TYPES, ids=lambda kind: kind.__name__)
def test_each_record_type_decodes_from_its_golden_bytes(kind: type[wire.Record]) -> None:
    record, golden = _golden(kind)
    decoded = wire.decode(HELLO + golden + END, NONCE)
    assert decoded == ([] if kind is wire.End else [record])
    if decoded:
        assert decoded[0].values() == record.values()
        assert repr(decoded[0]) == repr(record)
