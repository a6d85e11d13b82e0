"""The one walk, the one read and the one needle test, for the local source and for servers.

The local source imports this package; the SSH source sends its modules' text to the server
(:data:`.serve.MODULES`), where the host's Python (3.6 or later) runs :func:`.serve.main`
on a request read from stdin.  So it stays Python 3.6 syntax, stdlib only, importing
nothing of the package, and cheap to start (``typing`` alone costs a 3.6 interpreter
10 ms: it is read by the type checker only).  Paths are bytes on the server (names need
not be UTF-8) and text locally: the walk and the read take either, and answer in the
protocol's records (:mod:`.wire`), which every source hands to the same consumers.
"""

import errno
import os
import re
import stat
import sys

from .wire import (
    Absent,
    Content,
    Denied,
    Exists,
    Failed,
    Folder,
    LinkOut,
    Listed,
    Missing,
    Other,
    Outside,
    Record,
    Spared,
    Special,
    Unknown,
    Unlisted,
    text,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import importlib.machinery
    from typing import AnyStr, Callable, Dict, List, Optional, Sequence, Set, Tuple, Union

    #: per needle, its UTF-8 bytes and its text
    NeedlePairs = Sequence[Tuple[bytes, str]]

_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
MODULE_PREFIX = "module:"


def enc(text: str) -> bytes:
    """A path or message as it travels: UTF-8, undecodable bytes kept (surrogateescape)."""
    return text.encode("utf-8", "surrogateescape")


# --------------------------------------------------------------------------- the root


def check_folder(path: str) -> "Tuple[Optional[str], Optional[str]]":
    """(the folder, None), or (None, why it is no folder)."""
    try:
        mode = os.stat(enc(path)).st_mode
    except FileNotFoundError:
        return None, f"root {path!r} does not exist"
    except OSError as exc:
        return None, f"root {path!r} cannot be reached: {exc.strerror or exc}"
    if not stat.S_ISDIR(mode):
        return None, f"root {path!r} is not a folder"
    return path, None


def find_module_spec(name: str) -> "Optional[importlib.machinery.ModuleSpec]":
    """Where module ``name`` lives, found as ``import`` would find it, without running it.

    ``importlib.util.find_spec("pkg.sub")`` imports ``pkg`` first: its ``__init__`` would
    run, and may write ``__pycache__`` into the checked tree.  Only the top-level name goes
    through ``sys.meta_path`` (editable installs); each part below is looked for in its
    parent's folders.
    """
    import importlib.machinery
    import importlib.util

    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        raise ValueError(f"{name!r} is not a dotted module name")
    spec = importlib.util.find_spec(parts[0])
    for index in range(1, len(parts)):
        if spec is None or not spec.submodule_search_locations:
            return None
        spec = importlib.machinery.PathFinder.find_spec(
            ".".join(parts[: index + 1]), list(spec.submodule_search_locations)
        )
    return spec


def find_module(text: str) -> "Tuple[Optional[str], Optional[str]]":
    """A ``module:NAME`` root's folder on the server, or why there is none."""
    name = text[len(MODULE_PREFIX) :]
    if sys.path and sys.path[0] == "":
        del sys.path[0]  # the login folder is no place to import from
    try:
        spec = find_module_spec(name)
    except (ImportError, ValueError) as exc:
        return None, f"root {text!r}: cannot import {name!r}: {exc}"
    if spec is None:
        where = sys.executable
        return None, f"root {text!r}: no module named {name!r} on the path of {where}"
    locations = list(spec.submodule_search_locations or [])
    if locations:
        return check_folder(locations[0])
    if spec.origin and spec.has_location:
        return check_folder(os.path.dirname(spec.origin))
    return None, f"root {text!r}: module {name!r} has no folder on disk"


def resolve(text: str) -> "Tuple[Optional[str], Optional[str]]":
    """The server's root folder for the root as written, or why there is none."""
    if text.startswith(MODULE_PREFIX):
        return find_module(text)
    path = os.path.expanduser(text) if text.startswith("~") else text
    return check_folder(os.path.normpath(os.path.abspath(path)))


# --------------------------------------------------------------------------- the walk


def kind_of(entry: "os.DirEntry[AnyStr]") -> "Union[str, OSError]":
    """``file`` (regular, or a link to one), ``folder`` (or a link to one), ``other``, or the
    OSError that hides what a link leads to (a dangling link or a loop is ``other``)."""
    try:
        if entry.is_dir():
            return "folder"
        return "file" if entry.is_file() else "other"
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ELOOP, errno.ENOTDIR):
            return "other"
        return exc


def walk(
    root: "AnyStr",
    base: "AnyStr",
    real_root: "Optional[AnyStr]",
    worth: "Optional[Callable[[AnyStr], bool]]" = None,
) -> "List[Record]":
    """Everything under ``root/base``, as os.walk sees it, but following links to folders.

    In walk order: :class:`~.wire.Listed` a regular file (or a link to one),
    :class:`~.wire.Other` anything else met (folders, links to folders, dangling links,
    FIFOs), :class:`~.wire.Unlisted` a folder not listed, :class:`~.wire.LinkOut` a link
    to a folder out of the root.  Folders whose name starts with ``.`` are listed, not
    entered; nor are folders where ``worth`` says nothing can match.  A link to a folder
    is followed when it stays in the root (always when ``real_root`` is None), unless it
    leads back to a folder on its own path (a cycle: its content is walked from the folder
    it leads to).
    """
    sep = b"/" if isinstance(root, bytes) else "/"
    start = os.path.join(root, base) if base else root
    parts = base.split(sep) if base else []
    # the real paths of the root and of each folder down to base: a link back to one is a cycle
    chain: Tuple[AnyStr, ...] = tuple(
        os.path.realpath(os.path.join(root, *parts[:depth])) for depth in range(len(parts) + 1)
    )
    met: List[Record] = []
    # (folder, its path from the root, the real paths of the folders down to it)
    stack: List[Tuple[AnyStr, AnyStr, Tuple[AnyStr, ...]]] = [(start, base, chain)]
    while stack:
        folder, rel_folder, chain = stack.pop()
        try:
            with os.scandir(folder) as found:
                entries = list(found)
        except (FileNotFoundError, NotADirectoryError):
            continue  # the base is no folder, or the folder vanished: nothing there
        except OSError as exc:
            met.append(Unlisted(text(rel_folder), exc.strerror or str(exc)))
            continue
        prefix = rel_folder + sep if rel_folder else rel_folder
        inner: List[Tuple[AnyStr, AnyStr, Tuple[AnyStr, ...]]] = []
        for entry in entries:
            rel = prefix + entry.name
            kind = kind_of(entry)
            if kind == "file":
                met.append(Listed(text(rel)))
                continue
            met.append(Other(text(rel)))
            if isinstance(kind, OSError):  # a link to something unseen: a file? a folder?
                met.append(Listed(text(rel)))  # read, it reports the error if the glob names it
                met.append(Unlisted(text(rel), kind.strerror or str(kind)))
            if kind == "folder" and _enters(entry, rel, worth):
                real = _followed(entry, chain, real_root)
                if isinstance(real, tuple):
                    met.append(LinkOut(text(rel), text(real[0])))
                elif real is not None:
                    inner.append((entry.path, rel, chain + (real,)))  # noqa: RUF005  (mypy loses AnyStr in a starred tuple)
        stack.extend(sorted(inner, reverse=True))
    return met


def _followed(
    entry: "os.DirEntry[AnyStr]", chain: "Tuple[AnyStr, ...]", real_root: "Optional[AnyStr]"
) -> "Union[AnyStr, Tuple[AnyStr], None]":
    """A folder's real path, to walk it; None for a link back to a folder of ``chain`` (a
    cycle); (its real path,) for a link out of the root."""
    try:
        link = entry.is_symlink()
    except OSError:
        link = True
    if not link:
        return os.path.join(chain[-1], entry.name)
    real = os.path.realpath(entry.path)
    if real in chain:
        return None
    if real_root is not None and not inside(real, real_root):
        return (real,)
    return real


def _enters(
    entry: "os.DirEntry[AnyStr]", rel: "AnyStr", worth: "Optional[Callable[[AnyStr], bool]]"
) -> bool:
    """Is this folder walked into: not hidden, and ``worth`` it?"""
    name = entry.name
    hidden = name.startswith(b".") if isinstance(name, bytes) else name.startswith(".")
    return not hidden and (worth is None or worth(rel))


# --------------------------------------------------------------------------- the read


def real_folder(folder: "AnyStr", cache: "Dict[AnyStr, AnyStr]") -> "AnyStr":
    """``os.path.realpath`` of a folder, each resolved once per ``cache``."""
    real = cache.get(folder)
    if real is None:
        real = cache[folder] = os.path.realpath(folder)
    return real


def real_path(full: "AnyStr", folders: "Dict[AnyStr, AnyStr]") -> "AnyStr":
    """``os.path.realpath``, each folder resolved once (most files are no links)."""
    folder, name = os.path.split(full)
    special = (b"", b".", b"..") if isinstance(name, bytes) else ("", ".", "..")
    if name in special or stat.S_ISLNK(os.lstat(full).st_mode):
        return os.path.realpath(full)
    return os.path.join(real_folder(folder, folders), name)


def inside(real: "AnyStr", real_root: "AnyStr") -> bool:
    """``os.path.commonpath([real, real_root]) == real_root``, for two real paths."""
    sep = b"/" if isinstance(real, bytes) else "/"
    return real == real_root or real.startswith(real_root.rstrip(sep) + sep)


def git_mode(st_mode: int) -> str:
    """A file's mode as git records it: ``120000`` a link, ``100755`` a regular file its
    owner may execute, ``100644`` another regular file, ``040000`` a folder, else the
    octal type and permission bits."""
    if stat.S_ISLNK(st_mode):
        return "120000"
    if stat.S_ISREG(st_mode):
        return "100755" if st_mode & stat.S_IXUSR else "100644"
    if stat.S_ISDIR(st_mode):
        return "040000"
    return format(st_mode, "06o")


def lexists(root: str, entry: str) -> "Record":
    """Is there anything at ``root/entry`` (a folder, a dangling link...): one of
    :data:`~.wire.LITERALS`."""
    from pathlib import PurePosixPath  # here: a read needs no pathlib (5 ms on 3.6)

    try:
        os.lstat(enc(str(PurePosixPath(root) / entry)))
    except (FileNotFoundError, NotADirectoryError):
        return Absent()
    except OSError as exc:
        return Unknown(exc.strerror or str(exc))
    return Exists()


def read_one(
    full: "AnyStr",
    real_root: "Optional[AnyStr]",
    folders: "Dict[AnyStr, AnyStr]",
    needles: "Optional[NeedlePairs]" = None,
) -> "Record":
    """One file's read record (one of :data:`~.wire.READS`); ``real_root`` is None when
    links may lead outside the root; with ``needles``, a file that cannot spell one is
    :class:`~.wire.Spared`."""
    try:
        if real_root is not None:
            real = real_path(full, folders)
            if not inside(real, real_root):
                return Outside(text(real))
        # O_NONBLOCK: a FIFO planted in the tree must not hang the read
        fd = os.open(full, os.O_RDONLY | _O_NONBLOCK | _O_CLOEXEC)
    except FileNotFoundError:
        return Missing()
    except PermissionError:
        return Denied()
    except OSError as exc:
        return Failed(exc.strerror or str(exc))
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        return Folder() if stat.S_ISDIR(mode) else Special()
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read()
        except OSError as exc:
            return Failed(exc.strerror or str(exc))
    if needles is not None and not could_spell(data, needles):
        return Spared()
    return Content(data)


# --------------------------------------------------------------------------- the needle test

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
_ONE_LETTER = re.compile(r"\\([\\'\"abfnrtv/])")
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
