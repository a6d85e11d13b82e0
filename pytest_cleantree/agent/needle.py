"""The needle test: may a file's bytes spell a needle, however Python's tokenizer reads them?

The servers' filter (a file that cannot spell one is :class:`~.wire.Spared`, never sent) and
the local run's prefilter, one model: see :func:`could_spell`.  Python 3.6, stdlib only.
"""

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, Optional, Sequence, Set, Tuple

    #: per needle, its UTF-8 bytes and its text
    NeedlePairs = Sequence[Tuple[bytes, str]]

#: escapes that can spell any character inside a string literal (``"\\x73m120"`` is
#: ``"sm120"``), and a backslash-newline, which a string literal drops: the views decode
#: these (the client's prefilter too).  A name has only letters, digits, spaces and hyphens:
#: a ``\\N{`` that is no name never reaches into the next literal.
STRING_ESCAPE = re.compile(
    r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|N\{([A-Za-z0-9 -]+)\}"
    r"|([0-7]{1,3})|(\r\n|\r|\n))"
)
#: the one-letter escapes Python decodes, and what each spells: these are not decoded in
#: the views, whose joins they would throw off (``\\"``); a needle that holds one of their
#: characters, in a text holding the escape, makes the whole file a candidate instead
ONE_LETTER_ESCAPES = {
    "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b",
    "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
    "/": "/",  # JSON's (a JSON file's strings are decoded by its view: ``\/`` spells ``/``)
}  # fmt: skip
#: YAML's one-letter escapes in a double-quoted scalar (YAML 1.2, 5.7), and what each spells:
#: a YAML file's view decodes them (the client's), and the needle test counts them as made
YAML_LETTERS = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
    "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85",
    "_": "\xa0", "L": "\u2028", "P": "\u2029",
}  # fmt: skip
ONE_LETTER_ESCAPES.update(YAML_LETTERS)
_ONE_LETTER = re.compile(r"\\([\\'\"abfnrtv/0e \tN_LP])")
#: the first half of a surrogate pair written as an escape (JSON joins the pair)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abAB]")
#: doubled braces in an f-string spell one
_DOUBLED_BRACE = re.compile(r"\{\{|\}\}")
#: what the views' decoding (escapes decoded all over the text) can read otherwise than
#: Python: a raw literal (its escapes spell nothing), a bytes literal where ``\\u``, ``\\U``
#: or ``\\N`` spell nothing, and ``\\\\`` (the views do not pair it: ``"\\\\x41"``)
_RAW_PREFIX = re.compile(r"""(?<![\w\\])(?:[rR][bBfF]?|[bBfF][rR])["']""")
_BYTES_PREFIX = re.compile(r"""(?<![\w\\])(?:[bB][rR]?|[rR][bB])["']""")
_NOT_BYTES_ESCAPE = re.compile(r"\\[uUN]")


def unescape(match: "re.Match[str]") -> str:
    """The character a match of :data:`STRING_ESCAPE` spells ("" for a backslash-newline;
    the escape itself for one that spells nothing: an unknown name, an out-of-range code)."""
    hex2, hex4, hex8, named, octal, newline = match.groups()
    if newline:
        return ""
    try:
        if named:
            import unicodedata  # here: the server never decodes a name (such files are sent)

            return unicodedata.lookup(named)
        return chr(int(hex2 or hex4 or hex8, 16) if not octal else int(octal, 8))
    except (KeyError, TypeError, ValueError, OverflowError):
        return match.group(0)


def made_chars(
    text: str, escape: "re.Pattern[str]" = STRING_ESCAPE, wanted: "Optional[Set[str]]" = None
) -> "Set[str]":
    """Every character Python's tokenizer may put into a string's value that no view spells
    where the value does: a one-letter escape's (the views do not decode them), a newline
    where the text holds a carriage return (CRLF and a lone CR are read as newlines), a brace
    where it holds two; and what the views' escapes decode to, where the text holds what
    that decoding misreads (a raw literal, ``\\\\``, a bytes literal with ``\\u``): a value
    joined from a misread piece and a decoded one is then spelt by no view.

    A needle with none of these is spelt, in any value, by a view, or by pieces of one with
    breaks between them (:func:`spelt_across_breaks`); one with any is left to a full analysis.

    With ``wanted`` (the needles' characters), what the escapes decode to is listed only when
    one of them is wanted: the search for a raw or bytes literal, a scan of the whole text
    that no literal starts, is then skipped where no escape spells a needle's character.
    """
    made: Set[str] = set()
    if "\\" in text:
        made.update(ONE_LETTER_ESCAPES[letter] for letter in set(_ONE_LETTER.findall(text)))
        # no escape that decodes to a wanted character: the rest would add none wanted
        spells_wanted = wanted is None or any(
            len(char) == 1 and char in wanted for char in map(unescape, escape.finditer(text))
        )
        if spells_wanted and (
            "\\\\" in text
            or _RAW_PREFIX.search(text)
            or (_NOT_BYTES_ESCAPE.search(text) and _BYTES_PREFIX.search(text))
        ):
            decoded = map(unescape, escape.finditer(text))
            made.update(char for char in decoded if len(char) == 1)
    if "\r" in text:
        made.add("\n")
    if ("{{" in text or "}}" in text) and _DOUBLED_BRACE.search(text):
        made.update("{}")
    return made


def could_spell(
    data: bytes,
    needles: "NeedlePairs",
    escape: "re.Pattern[str]" = STRING_ESCAPE,
    nfkc: bool = False,
) -> bool:
    """May this file's text spell one of the needles, however Python's tokenizer reads it?

    The client's prefilter, over-approximated: a needle in the raw bytes, or in the text
    with escapes decoded; or, in either, spelt with breaks between its characters (see
    :func:`spelt_across_breaks`).  What this does not model is sent whole: a coding cookie,
    a named escape (its name table depends on the Python), a needle holding a character the
    tokenizer makes (:func:`made_chars`: a one-letter escape's, a translated newline), and
    bytes that are not ASCII.  With ``nfkc`` (only where this Python's Unicode table is the
    analysis' own: the local run, never a server's other Python) UTF-8 that is not ASCII is
    modelled too: a needle in the text NFKC-normalised (as names are) may be spelt.
    """
    if any(needle in data for needle, _ in needles) or refused_as_text(data) is not None:
        return True  # a file the analysis cannot read is reported whatever the needles
    text = _ascii_or_nfkc(data, needles, nfkc)
    if text is None:
        return True
    if any(b"coding" in line for line in data.split(b"\n", 2)[:2]) or "\\N{" in text:
        return True
    wanted = {char for _, needle in needles for char in needle}
    if any(ord(char) > 0xFFFF for char in wanted) and _SURROGATE_ESCAPE.search(text):
        return True  # JSON's "\\ud83d\\ude00" is one character beyond the BMP
    made = made_chars(text, escape, wanted)
    if any(char in made for char in wanted):
        return True  # a character an escape or a newline spells: left to the analysis
    sources = [text]
    if "\\" in text:
        decoded = escape.sub(unescape, text)
        if any(needle in decoded for _, needle in needles):
            return True
        sources.append(decoded)
    return any(spelt_across_breaks(source, needle) for source in sources for _, needle in needles)


def _ascii_or_nfkc(data: bytes, needles: "NeedlePairs", nfkc: bool) -> "Optional[str]":
    """The text to test (``None``: it may spell a needle, or is not modelled).

    ASCII bytes are the text.  Otherwise, with ``nfkc``, UTF-8 (a byte-order mark kept: it
    spells no needle) whose NFKC form spells no needle: the tokenizer normalises names only,
    and a name's characters normalise to name characters, never to a quote, a backslash or
    a newline, so the rest of the test reads the text as it stands.
    """
    try:
        return data.decode("ascii")
    except UnicodeDecodeError:
        if not nfkc:
            return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    import unicodedata  # here: only the local run asks

    folded = unicodedata.normalize("NFKC", text)
    if folded != text and any(needle in folded for _, needle in needles):
        return None
    return text


def refused_as_text(data: bytes) -> "Optional[str]":
    """Why no text file with these bytes can be read, whatever its patterns, or None.

    One model for both sides: the analysis (:func:`~pytest_cleantree.analysis.textfiles.
    decode_text`) reports such a file as a problem, so the agent must send it rather than
    spare it (a UTF-16 file without a byte-order mark holds no needle's bytes, and would pass
    as clean over SSH while it is an error locally)."""
    if b"\0" in data:  # UTF-16/32 without a mark, or not text: patterns may hide in it
        return "it holds NUL bytes: UTF-16 or UTF-32 without a byte-order mark, or not text"
    return None


#: what Python's tokenizer may drop between two pieces of one string value, over-approximated:
#: it starts and ends with a quote, a brace (an f-string's ``{x=}`` spells ``x=``) or a
#: backslash-newline, and holds only quotes, braces, spaces, backslash-newlines, comments and
#: prefix letters (each alternative starts with its own
#: characters: no text can be read two ways, so a match never takes exponential time)
_EDGE = r"""(?:["'{]|\\(?:\r\n|[\r\n]))"""
_JUNK = r"""(?:["'{ \t\f\r\n]|\\[\r\n]|\#[^\r\n]*[\r\n]|[rRbBuUfF])*"""
BREAK_SEARCHES: "Dict[str, Tuple[re.Pattern[str], re.Pattern[str]]]" = {}
#: up to this length a needle's head search is one nested expression (see :func:`_heads`);
#: longer ones are an alternation (the nesting would grow with the needle)
NESTED_HEAD_MAX = 64


def spelt_across_breaks(text: str, needle: str) -> bool:
    """Is needle spelt with breaks between its characters: a head of it, a break, its next
    character; and its character before a tail, a break, the tail?  (The client's break
    search and joined views, over-approximated.)"""
    if len(needle) < 2:
        return False
    searches = BREAK_SEARCHES.get(needle)
    if searches is None:
        cuts = range(1, len(needle))
        tail = "|".join(
            re.escape(needle[k - 1]) + _JUNK + _EDGE + re.escape(needle[k:]) for k in cuts
        )
        searches = BREAK_SEARCHES[needle] = (re.compile(_heads(needle)), re.compile(tail))
    # the head first, in one pass: it starts with the needle's first character, which the
    # engine looks for in C, and each place tries the needle's characters one by one
    return all(search.search(text) is not None for search in searches)


def _heads(needle: str) -> str:
    """The expression of ``needle[:k]``, a break, ``needle[k]``, for every cut ``k``.

    As the alternation of the cuts, or (up to :data:`NESTED_HEAD_MAX` characters) the same
    language nested as a trie, ``a(?:BREAKb|b(?:BREAKc|c...))``: a place is tried once,
    not once per cut.
    """
    step = _EDGE + _JUNK
    if len(needle) > NESTED_HEAD_MAX:
        return "|".join(
            re.escape(needle[:k]) + step + re.escape(needle[k]) for k in range(1, len(needle))
        )
    nested = step + re.escape(needle[-1])
    for k in range(len(needle) - 2, 0, -1):
        char = re.escape(needle[k])
        nested = "(?:" + step + char + "|" + char + nested + ")"
    return re.escape(needle[0]) + "(?:" + nested + ")"
