"""Which names an experiment introduced into a file, and which a restored file must have.

A Python file's names are its code names, as the analysis the check runs finds them
(:func:`pytest_cleantree.analysis.code_names`: the words of strings and comments never
count, each segment of a dotted module path does);
another file's are the words its own language makes names (a shell script's words outside
comments and quotes, a YAML or TOML key, a C or JavaScript identifier), through a small
tokenizer per language; prose (documentation, changelogs, any file no tokenizer fits) has
none: its experiment lines alone cover it.  Pure.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from pytest_cleantree.analysis import code_names, decode_python, is_python_path
from pytest_cleantree.core.model import CODE_KINDS
from pytest_cleantree.core.patterns import WORD, text_words

from .text import decode_text, unrepresentable

__all__ = [
    "CODE_KINDS",
    "FINGERPRINT_SIZE",
    "MIN_TOKEN_LENGTH",
    "IntroducedNames",
    "Tokenizer",
    "fingerprint",
    "introduced_names",
    "introduced_tokens",
    "is_distinctive",
    "python_fingerprint",
    "shell_words",
    "tokenizer_for",
]

MIN_TOKEN_LENGTH = 4
#: How many names a deleted file without top-level definitions is expected to have again.
FINGERPRINT_SIZE = 10

#: Names too common to mark a leftover on a line no experiment commit wrote: builtins,
#: keywords and the methods of builtin types (``join``, ``items``, ``append`` ...).
_COMMON_NAMES = frozenset(
    [*builtins.__dict__, *keyword.kwlist, *keyword.softkwlist]
    + [name for kind in (str, bytes, int, float, list, dict, set, tuple) for name in dir(kind)]
)


@dataclass(frozen=True)
class IntroducedNames:
    """What a change did to one file's names: sorted, each an exact-pattern body."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Names:
    """One version of a file: the names a pattern can be *derived* from (``candidates``), and
    everything an exact pattern would match in it (``present``, a superset)."""

    candidates: frozenset[str]
    present: frozenset[str]


def introduced_names(before: str | None, after: str | None) -> IntroducedNames:
    """The code names a change introduced into (and removed from) one Python file.

    ``None`` stands for a file that does not exist.  A name is introduced when the
    ``after`` version has it as a code name (identifier, attribute, imported name or
    module path, def/class/argument/keyword name) and the ``before`` version does not:
    the words of strings, docstrings and comments never count, on either side.  Builtins,
    keywords, the methods of builtin types and one- or two-letter names are too common to
    tell a leftover apart: they are never introduced.  Raises ``SyntaxError`` (or
    ``ValueError``) for a version that does not parse.
    """
    return _difference(_python_names(before), _python_names(after))


#: The words of one line of a file that its language makes names, each a word as exact
#: patterns see words (so that the file before can be searched for it).
Tokenizer = Callable[[str], Iterable[str]]


def introduced_tokens(
    before: str | None,
    after: str | None,
    *,
    min_length: int = MIN_TOKEN_LENGTH,
    tokenizer: Tokenizer | None = None,
) -> IntroducedNames:
    """The names a change added to (and removed from) a file that is not Python.

    A name is a word ``tokenizer`` (by default :func:`shell_words`) finds on a line of the
    ``after`` text, of ``min_length`` characters or more, that no line of the ``before``
    text matches as an exact pattern: not a removed line, not a context line, not a
    comment, since after a revert all of them are there again.
    """
    words = tokenizer or shell_words
    return _difference(
        _text_names(before, min_length, words), _text_names(after, min_length, words)
    )


def is_distinctive(name: str) -> bool:
    """Can this name, found on a line no experiment commit wrote, mark a leftover?"""
    return len(name) > 2 and name not in _COMMON_NAMES


def _difference(old: _Names, new: _Names) -> IntroducedNames:
    return IntroducedNames(
        added=tuple(sorted(n for n in new.candidates - old.present if is_distinctive(n))),
        removed=tuple(sorted(n for n in old.candidates - new.present if is_distinctive(n))),
    )


def _text_names(text: str | None, min_length: int, tokenizer: Tokenizer) -> _Names:
    if text is None:
        return _Names(frozenset(), frozenset())
    candidates: set[str] = set()
    present: set[str] = set()
    for line in text.split("\n"):
        candidates.update(word for word in tokenizer(line) if len(word) >= min_length)
        present |= text_words(line)
    return _Names(frozenset(candidates), frozenset(present))


# --------------------------------------------------------------------------- tokenizers

_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")
_SHELL_COMMENT = re.compile(r"(?:^|(?<=\s))#.*")
#: Shell reserved words and the builtins a script runs: words of the language, not names.
_SHELL_WORDS = frozenset(
    {
        *("case", "done", "elif", "else", "esac", "exec", "exit", "export", "function"),
        *("local", "readonly", "declare", "typeset", "return", "shift", "then", "trap"),
        *("unset", "until", "wait", "while", "echo", "printf", "source", "eval", "true"),
        *("false", "test", "read", "break", "continue"),
    }
)


def shell_words(line: str) -> Iterator[str]:
    """A shell line's words outside comments and quotes (``export NAME=`` gives ``NAME``),
    the shell's own reserved words and builtins left out."""
    code = _SHELL_COMMENT.sub("", _QUOTED.sub(" ", line))
    return (word for word in WORD.findall(code) if word not in _SHELL_WORDS)


_KEY_LINE = re.compile(r"\s*(?:-\s+)?[\"']?([A-Za-z_][\w.-]*)[\"']?\s*:(?:\s|$)")


def yaml_words(line: str) -> Iterator[str]:
    """A YAML line's key (``KEY:``); values are data, often prose, never names."""
    match = _KEY_LINE.match(line)
    if match:
        yield from WORD.findall(match.group(1))


_ASSIGNED_KEY = re.compile(r"\s*(?:export\s+)?([A-Za-z_][\w.-]*)\s*[=:]")
_SECTION = re.compile(r"\s*\[+\s*([A-Za-z_][\w.\-\s\"']*?)\s*\]+")


def key_words(line: str) -> Iterator[str]:
    """A TOML, INI or ``.env`` line's key (``KEY =``) or table name (``[a.b]``)."""
    for pattern in (_SECTION, _ASSIGNED_KEY):
        match = pattern.match(line)
        if match:
            yield from WORD.findall(match.group(1))
            return


_JSON_KEY = re.compile(r"\"([A-Za-z_][\w.-]*)\"\s*:")


def json_words(line: str) -> Iterator[str]:
    """A JSON line's keys."""
    return (word for key in _JSON_KEY.findall(line) for word in WORD.findall(key))


_C_COMMENT = re.compile(r"//.*|/\*.*?(?:\*/|$)|^\s*\*.*")
_C_WORDS = frozenset(
    {
        *("auto", "break", "case", "char", "const", "continue", "default", "double", "else"),
        *("enum", "extern", "float", "goto", "long", "register", "return", "short", "signed"),
        *("sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void"),
        *("volatile", "while", "class", "public", "private", "protected", "this", "function"),
        *("export", "import", "from", "true", "false", "null", "undefined"),
    }
)


def c_like_words(line: str) -> Iterator[str]:
    """A C-family (C, C++, CUDA, Java, JavaScript, Go, Rust ...) line's identifiers, outside
    comments and string literals, keywords left out."""
    code = _C_COMMENT.sub(" ", _QUOTED.sub(" ", line))
    return (word for word in _IDENTIFIER.findall(code) if word not in _C_WORDS)


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: a Rust lifetime or loop label (``'a``, ``'static``, ``'outer:``): a quote, then a name not
#: closed by a quote (``'a'`` is a character literal)
_LIFETIME = re.compile(r"'[A-Za-z_][A-Za-z0-9_]*\b(?!')")


def rust_words(line: str) -> Iterator[str]:
    """A Rust line's identifiers: :func:`c_like_words` once its lifetimes and labels are
    gone, so that ``fn parse<'a>(input: &'a str)`` does not read ``'a>(input: &'`` as a
    character literal and lose ``input``."""
    return c_like_words(_LIFETIME.sub(" ", line))


_MAKE_VARIABLE = re.compile(r"\s*(?:export\s+|override\s+)?([A-Za-z_][\w.-]*)\s*[:+?!]?=")
_MAKE_TARGET = re.compile(r"([A-Za-z_][\w.-]*)\s*:(?!=)")


def make_words(line: str) -> Iterator[str]:
    """A Makefile line's variable (``NAME :=``) or target (``name:``)."""
    match = _MAKE_VARIABLE.match(line) or _MAKE_TARGET.match(line)
    if match:
        yield from WORD.findall(match.group(1))


_DOCKER_NAME = re.compile(r"\s*(?:ENV|ARG)\s+([A-Za-z_]\w*)", re.IGNORECASE)


def docker_words(line: str) -> Iterator[str]:
    """A Dockerfile line's ``ENV NAME`` or ``ARG NAME``."""
    match = _DOCKER_NAME.match(line)
    if match:
        yield match.group(1)


_BY_SUFFIX: dict[str, Tokenizer] = {
    **dict.fromkeys((".sh", ".bash", ".zsh", ".ksh", ".envrc"), shell_words),
    **dict.fromkeys((".yml", ".yaml"), yaml_words),
    **dict.fromkeys((".toml", ".ini", ".cfg", ".conf", ".env", ".properties"), key_words),
    ".json": json_words,
    ".mk": make_words,
    ".rs": rust_words,
    **dict.fromkeys(
        (
            *(".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cu", ".cuh", ".m", ".mm"),
            *(".java", ".kt", ".scala", ".cs", ".go", ".swift", ".js", ".jsx", ".mjs"),
            *(".ts", ".tsx", ".pyx", ".pxd"),
        ),
        c_like_words,
    ),
}
_BY_NAME: dict[str, Tokenizer] = {
    "Makefile": make_words,
    "makefile": make_words,
    "GNUmakefile": make_words,
    "Dockerfile": docker_words,
    ".env": key_words,
}


def tokenizer_for(path: str) -> Tokenizer | None:
    """The tokenizer of a file that is not Python, by its name; ``None`` for prose
    (documentation, changelogs) and any file no tokenizer fits: it has no names."""
    name = PurePosixPath(path).name
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name.startswith("Dockerfile"):
        return docker_words
    return _BY_SUFFIX.get(PurePosixPath(name).suffix.lower())


def _python_names(text: str | None) -> _Names:
    """The code names of one version: what an exact pattern restricted to code kinds
    matches there, as the analysis finds them (strings, docstrings and comments give none)."""
    if text is None:
        return _Names(frozenset(), frozenset())
    names = frozenset(code_names(text).names)
    return _Names(names, names)


def python_fingerprint(text: str) -> list[str]:
    """Names a restored module must have: its own definitions and assigned names; for a
    module without any, its first code names in source order."""
    found = code_names(text)
    if found.defined:
        return list(found.defined)
    return list(found.names)[:FINGERPRINT_SIZE]


def fingerprint(path: str, data: bytes) -> list[str]:
    """Names a restored file must have (Python), else its first distinctive words."""
    if is_python_path(path):
        try:
            names = python_fingerprint(decode_python(data))
            names = [name for name in names if not unrepresentable(name)]
            if names:
                return names
        except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
            pass
    words = [
        word
        for word in WORD.findall(decode_text(data))
        if len(word) >= MIN_TOKEN_LENGTH and not unrepresentable(word)
    ]
    return list(dict.fromkeys(words))[:FINGERPRINT_SIZE]
