"""A file that is not Python, read as its language writes it: THE model of non-Python text.

- Its bytes decode as UTF-8 (a UTF-8 byte-order mark dropped, so that the first line is
  compared as written), or, after a UTF-16 or UTF-32 byte-order mark, in that encoding;
  other bytes are read as grep reads them, each byte kept, and are a problem (never a silent
  pass) when that reading can hide a pattern: NUL bytes, or a pattern beyond ASCII.
- A JSON file (a notebook included) holds its text in string literals: each line is also
  matched with its strings decoded (``"\\tenable()"`` holds ``enable``), the line number
  kept (a JSON string never spans lines).
- Comments, where inline allows count: those of shell, YAML, TOML, INI, Makefile,
  Dockerfile, R, Ruby, Perl, CMake, C/C++/CUDA, Go, Java, Rust, JavaScript and TypeScript
  files, each read by its grammar (:mod:`.comments`: strings spanning lines,
  here-documents, block scalars are data), none in JSON and Markdown. A file without a
  suffix is read by its ``#!`` line's interpreter (shell, Perl, Ruby, R, node), a dotenv
  file (``.env``, ``.env.local``) as shell. Only plain text (a suffix of
  :data:`_PLAIN_SUFFIXES`, or none and no ``#!``) has its allows read from the line: any
  other file may hold strings no grammar here reads, so none of its lines is a comment.
"""

from __future__ import annotations

import codecs
import json
import posixpath
import re
from collections.abc import Sequence

from pytest_cleantree.agent import YAML_LETTERS, refused_as_text
from pytest_cleantree.core.model import Pattern
from pytest_cleantree.core.patterns import text_words

from .comments import comments_of
from .records import byte_place
from .text import split_lines

__all__ = [
    "decode_text",
    "string_views",
    "text_comments",
    "text_language",
    "text_names",
]

#: byte-order marks and their codecs, longest first (UTF-32 LE begins as UTF-16 LE does)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

#: the language of each suffix (and file name) whose comments :mod:`.comments` reads
_LANGUAGE_SUFFIXES = {
    ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".yaml": "yaml", ".yml": "yaml",
    ".toml": "toml", ".cfg": "ini", ".ini": "ini", ".conf": "conf", ".r": "r", ".rb": "ruby",
    ".pl": "perl", ".mk": "make", ".cmake": "cmake", ".c": "c", ".h": "c", ".cc": "c",
    ".cpp": "c", ".cxx": "c", ".hpp": "c", ".hh": "c", ".hxx": "c", ".cu": "c", ".cuh": "c",
    ".inl": "c", ".go": "go", ".java": "java", ".rs": "rust", ".js": "javascript",
    ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript", ".ts": "typescript",
    ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx", ".md": "markdown",
    ".markdown": "markdown",
}  # fmt: skip
_LANGUAGE_NAMES = {
    "makefile": "make", "gnumakefile": "make", "dockerfile": "dockerfile",
    "cmakelists.txt": "cmake",
}  # fmt: skip
_JSON_SUFFIXES = frozenset({".json", ".ipynb"})
#: languages with string literals whose comment grammar is not read here: the same text in a
#: string and in a comment cannot be told apart, so none of their lines is a comment (an
#: allow there counts for nothing, as in JSON and Markdown, rather than from a string)
_UNREAD_SUFFIXES = frozenset({
    ".kt", ".kts", ".swift", ".scala", ".sc", ".cs", ".fs", ".php", ".lua", ".sql", ".html",
    ".htm", ".xml", ".css", ".scss", ".less", ".proto", ".dart", ".m", ".mm", ".cl", ".glsl",
    ".hlsl", ".metal", ".zig", ".jl", ".ex", ".exs", ".erl", ".hs", ".ml", ".mli", ".vue",
    ".svelte", ".groovy", ".gradle", ".ps1", ".tf", ".hcl", ".nim", ".clj", ".el", ".f90",
    ".ptx", ".triton", ".mlir", ".td", ".pyx", ".pxd", ".pxi", ".jinja", ".j2",
})  # fmt: skip
#: text with no string literals, where an allow is read from the whole line (``""``: a file
#: without a suffix and without a ``#!`` line: README, LICENSE, VERSION)
_PLAIN_SUFFIXES = frozenset({
    "", ".txt", ".text", ".log", ".rst", ".adoc", ".asciidoc", ".csv", ".tsv", ".lst",
    ".list", ".in", ".out",
})  # fmt: skip
#: the language of a ``#!`` line's interpreter (``/usr/bin/env bash``: ``bash``)
_INTERPRETERS = {
    "sh": "shell", "bash": "shell", "zsh": "shell", "dash": "shell", "ksh": "shell",
    "perl": "perl", "ruby": "ruby", "rscript": "r", "node": "javascript",
}  # fmt: skip
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_YAML_SUFFIXES = frozenset({".yaml", ".yml"})
_YAML_DOUBLE = _JSON_STRING
_YAML_SINGLE = re.compile(r"'(?:[^']|'')*'")
_YAML_ESCAPE = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))", re.S)


def decode_text(data: bytes, patterns: Sequence[Pattern] = ()) -> tuple[str, str | None]:
    """The text of a file that is not Python, and why it cannot be checked when it cannot.

    Bytes that are not UTF-8 (and carry no UTF-16/32 byte-order mark) are read as grep reads
    them, each such byte kept (``\\xe9``: what ``forbid_lines_escaped`` writes); that reading
    is faithful for ASCII patterns in an ASCII-compatible encoding (latin-1, cp1252).  It is
    not when the bytes hold a NUL (UTF-16/32 without a mark, or binary data), nor for a
    pattern spelling a character beyond ASCII (its bytes there are unknown): then the file's
    problem says it cannot be read as text.
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec), None
            except UnicodeDecodeError as exc:
                if codec == "utf-32":
                    continue  # a UTF-16 file whose first character is U+0000
                problem = f"starts with a {codec.upper()} byte-order mark but {exc.reason}"
                return data.decode("utf-8", errors="surrogateescape"), problem
    why = refused_as_text(data)  # the agent's own test: it sends what this refuses
    if why is not None:
        return data.decode("utf-8", errors="surrogateescape"), f"cannot read as text: {why}"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="surrogateescape")
        unsure = [p.text for p in patterns if _beyond_ascii(p.body)]
        if not unsure:
            return text, None
        problem = (
            f"cannot read as text: {exc.reason} {byte_place(data, exc.start)} (not UTF-8, no "
            "UTF-16 or "
            f"UTF-32 byte-order mark), and pattern {unsure[0]!r} is not ASCII"
        )
        return text, problem


def _beyond_ascii(body: str) -> bool:
    """Does a pattern spell a character beyond ASCII (a kept byte, ``\\udce9``, is not)?"""
    return any(ord(char) > 127 and not 0xDC80 <= ord(char) <= 0xDCFF for char in body)


def string_views(path: str, lines: tuple[str, ...]) -> tuple[str, ...] | None:
    """For a JSON or YAML file, each line with its quoted strings decoded as the language
    reads them (``None``: neither): ``"\\x73m120"`` is ``sm120`` to YAML's reader.  A YAML
    string folded over lines is read line by line (its escapes decoded on each)."""
    suffix = posixpath.splitext(path.lower())[1]
    if suffix in _JSON_SUFFIXES:
        return tuple(_JSON_STRING.sub(_decoded, line) if "\\" in line else line for line in lines)
    if suffix in _YAML_SUFFIXES:
        return tuple(_yaml_view(line) if "\\" in line or "''" in line else line for line in lines)
    return None


def _yaml_view(line: str) -> str:
    """The line with its double-quoted scalars' escapes decoded and single-quoted ``''`` one
    quote (YAML 1.2, 5.7 and 7.3.2); an escape YAML does not know is kept as written."""
    line = _YAML_DOUBLE.sub(lambda m: _YAML_ESCAPE.sub(_yaml_unescape, m.group(0)), line)
    return _YAML_SINGLE.sub(lambda m: m.group(0).replace("''", "'"), line)


def _yaml_unescape(match: re.Match[str]) -> str:
    hex2, hex4, hex8, letter = match.groups()
    if letter is not None:
        return YAML_LETTERS.get(letter, match.group(0))
    code = int(hex2 or hex4 or hex8, 16)
    return chr(code) if code <= 0x10FFFF else match.group(0)


def _decoded(match: re.Match[str]) -> str:
    try:
        value = json.loads(match.group(0))
    except ValueError:  # not a whole literal after all: matched as written
        return match.group(0)
    return f'"{value}"' if isinstance(value, str) else match.group(0)


def text_language(path: str, first_line: str = "") -> str | None:
    """The language whose comments :mod:`.comments` reads for ``path`` (``json``: none, as
    for a language with strings whose grammar is not read here), or ``None`` for plain text
    (its allows are read from the line).  A file without a suffix is read by its ``#!``
    line (``first_line``)."""
    name = posixpath.basename(path.lower())
    suffix = posixpath.splitext(name)[1]
    if suffix in _JSON_SUFFIXES or suffix in _UNREAD_SUFFIXES:
        return "json"  # no comment read: see _UNREAD_SUFFIXES
    if name.startswith(("dockerfile.", "containerfile")) or suffix == ".dockerfile":
        return "dockerfile"  # Dockerfile.dev, Containerfile, web.dockerfile
    if name == ".env" or name.startswith(".env.") or suffix == ".env":
        return "shell"  # dotenv: KEY=value, quoted as the shell quotes
    known = _LANGUAGE_NAMES.get(name) or _LANGUAGE_SUFFIXES.get(suffix)
    if known is not None:
        return known
    if not suffix and first_line.startswith("#!"):
        return _interpreter(first_line) or "json"
    return None if suffix in _PLAIN_SUFFIXES else "json"


def _interpreter(shebang: str) -> str | None:
    """The language of a ``#!`` line's interpreter (``/usr/bin/env -S bash -e``: shell),
    ``None`` when not one read here."""
    words = shebang[2:].split()
    programs = [posixpath.basename(word.lower()) for word in words if not word.startswith("-")]
    if programs[:1] == ["env"]:
        programs = programs[1:]
    return _INTERPRETERS.get(programs[0]) if programs else None


def text_comments(path: str, lines: tuple[str, ...]) -> tuple[tuple[int, str], ...] | None:
    """The (line, comment) pairs of a non-Python file, as its language's grammar reads its
    comments (:func:`.comments.comments_of`), where :attr:`FileAnalysis.allows` counts
    them; ``None`` for plain text (its allows are read from the line)."""
    language = text_language(path, lines[0] if lines else "")
    if language is None:
        return None
    return () if language == "json" else comments_of(language, lines)


def text_names(path: str, data: bytes) -> set[str]:
    """The names a text file holds, as the checker's exact and glob patterns see them: the
    words (:func:`~pytest_cleantree.core.patterns.text_words`) of each line, and of its view
    with JSON strings decoded; comments included (a name there is still written there).
    For the revert guard: "which names did this change bring into a text file"."""
    text, _ = decode_text(data)
    lines = split_lines(text)
    names: set[str] = set()
    for line in (*lines, *(string_views(path, lines) or ())):
        names |= text_words(line)
    return names
