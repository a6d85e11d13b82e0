"""Where do a file's names stand, and what is each occurrence?

The only module that imports astroid.  The occurrence scan runs on the
standard library's ``ast``: it is about 25x faster than astroid on real files
and, since Python 3.10, it keeps a position for every imported name.

What costs time is parsing, so as little is parsed as possible: a file whose
text spells no pattern is not parsed at all, and in the others only the
pieces (a top-level ``def`` or ``class`` up to the next one, a method of a
top-level class) that spell a pattern, import, or use an alias of a qualified
pattern are parsed (:func:`layout`, :func:`parse_needed`).

Qualified patterns resolve names through imports and aliases.  A name bound
only by imports of one target is resolved from ``ast``, scope by scope; any
other (rebound, assigned, imported in a class body, two targets) is resolved
with astroid's lookup, which follows every rebinding.  A test holds the two to
the same answers on the standard library.

Positions are always taken from nodes (or from the tokens of the one statement
concerned), never guessed from the statement's first line: in
``from x import (\\n a,\\n b,\\n)`` the line of ``b`` is ``b``'s own line.
"""

from __future__ import annotations

import ast
import bisect
import functools
import gc
import io
import itertools
import re
import sys
import tokenize
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from pytest_cleantree.model import Kind, Occurrence, Pattern, PatternTier
from pytest_cleantree.patterns import covers, match_name, match_text, prefilter_needle

PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")
#: larger Python files are matched as text: ``ast`` needs ~100x the file's size in memory
MAX_PARSE_BYTES = 8 * 2**20
_NEWLINE = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Finding:
    """A pattern found at an occurrence."""

    pattern: str
    occurrence: Occurrence


@dataclass(frozen=True)
class FileAnalysis:
    """What one file holds for a set of patterns.

    ``problem`` is set when the file could not be analysed as Python; the
    findings are then the lines whose *text* matches, so nothing is hidden.
    """

    path: str
    lines: tuple[str, ...]
    findings: tuple[Finding, ...]
    problem: str | None = None
    #: after :meth:`compact`: only the lines that hold findings
    kept: Mapping[int, str] = field(default_factory=dict)

    def source_line(self, line: int) -> str:
        if line in self.kept:
            return self.kept[line]
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""

    @functools.cached_property
    def patterns_found(self) -> frozenset[str]:
        """The patterns with at least one finding here (most files have none)."""
        return frozenset(finding.pattern for finding in self.findings)

    def compact(self) -> FileAnalysis:
        """The same answers, keeping only the source lines that findings point at.

        A run over tens of thousands of files then holds their findings, not
        their text: memory stays bounded by what is found.
        """
        if not self.lines:
            return self
        kept = {f.occurrence.line: self.source_line(f.occurrence.line) for f in self.findings}
        return replace(self, lines=(), kept=kept)


def is_python_path(path: str) -> bool:
    return path.endswith(PYTHON_SUFFIXES)


def split_lines(text: str) -> tuple[str, ...]:
    """Split as Python's tokenizer counts lines (``\\f`` and ``\\u2028`` are not line breaks)."""
    if "\r" not in text:
        return tuple(text.split("\n"))
    return tuple(_NEWLINE.split(text))


def decode_python(data: bytes) -> str:
    """Decode a Python file by PEP 263 (BOM, coding line, else UTF-8).

    Raises ``SyntaxError`` for an unknown coding and ``UnicodeDecodeError`` for
    bytes that do not decode.
    """
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


#: escapes that can spell a character inside a string literal (``"\\x73m120"`` is ``"sm120"``)
_ESCAPE = re.compile(
    r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|N\{([^}\n]+)\}|([0-7]{1,3}))"
)


def _unescape(match: re.Match[str]) -> str:
    hex2, hex4, hex8, named, octal = match.groups()
    try:
        if named:
            return unicodedata.lookup(named)
        return chr(int(hex2 or hex4 or hex8, 16) if not octal else int(octal, 8))
    except (KeyError, ValueError, OverflowError):
        return match.group(0)


def present_patterns(text: str, patterns: Sequence[Pattern]) -> list[Pattern]:
    """The patterns that can match something in this text; the others certainly cannot.

    A pattern's needle must be in the text, or in the text with its escapes
    decoded (a string literal may spell a name with ``\\x`` escapes).  An exact
    pattern on a plain name must be one of the text's words: one set lookup,
    however many such rules (a revert guard writes one per name).  A regex has
    no needle and is always kept.
    """
    words: set[str] | None = None
    unescaped: str | None = None
    kept: list[Pattern] = []
    for pattern, needle, whole_word in _needles(patterns):
        if needle is None:
            kept.append(pattern)
            continue
        if whole_word:
            if words is None:
                words = set(_NAME_WORD.findall(text))
                if "\\" in text:
                    words.update(_NAME_WORD.findall(_ESCAPE.sub(_unescape, text)))
            if needle in words:
                kept.append(pattern)
            continue
        if needle in text:
            kept.append(pattern)
            continue
        if unescaped is None:
            unescaped = _ESCAPE.sub(_unescape, text) if "\\" in text else text
        if needle in unescaped:
            kept.append(pattern)
    return kept


#: a run of name characters that does not start with a digit: the words an exact pattern
#: can match (as a name, or as a word of a string, comment or text line)
_NAME_WORD = re.compile(r"[^\W\d]\w*")


def _needles(patterns: Sequence[Pattern]) -> list[tuple[Pattern, str | None, bool]]:
    """Each pattern's needle, and whether it must stand as a whole word.

    A list of patterns is shared by every file its rules name: worked out once per list.
    """
    cached = _NEEDLES.get(id(patterns))
    if cached is not None and cached[0] is patterns:
        return cached[1]
    needles = []
    for pattern in patterns:
        needle = prefilter_needle(pattern)
        word = pattern.tier is PatternTier.EXACT and bool(_NAME_WORD.fullmatch(needle or ""))
        needles.append((pattern, needle, word))
    if len(_NEEDLES) > 64:
        _NEEDLES.clear()
    _NEEDLES[id(patterns)] = (patterns, needles)
    return needles


_NEEDLES: dict[int, tuple[Sequence[Pattern], list[tuple[Pattern, str | None, bool]]]] = {}


def _needs_escape_lines(text: str, patterns: Sequence[Pattern]) -> bool:
    """Is some kept pattern spelt only through escapes?  Then escape lines are candidates."""
    return any((needle := prefilter_needle(p)) is not None and needle not in text for p in patterns)


def parse_worthy(path: str, data: bytes, patterns: Sequence[Pattern]) -> list[Pattern] | None:
    """The patterns that :func:`analyze` would parse this file for (often none).

    ``None`` for a file that is not parsed whatever it holds (not Python, too
    large, undecodable): analyse it with every pattern, it is cheap.  Passing
    the returned list to :func:`analyze` gives the same answer as the full one.
    """
    if not is_python_path(path) or len(data) > MAX_PARSE_BYTES:
        return None
    try:
        return present_patterns(decode_python(data), patterns)
    except (SyntaxError, UnicodeDecodeError):
        return None


def analyze(
    path: str, data: bytes, patterns: Sequence[Pattern], *, comments: bool = True
) -> FileAnalysis:
    """Find every occurrence of ``patterns`` in one file's bytes.

    Python files are analysed by syntax; other files line by line (kind
    ``text``).  A Python file that cannot be decoded or parsed gets a
    ``problem`` and text findings.  Line patterns are matched on each physical
    line, Python or not, without parsing.
    """
    lined = [p for p in patterns if p.tier is PatternTier.LINE]
    if lined:  # a hook the analysis package takes over: whole-line patterns need no parse
        analysis = analyze(path, data, [p for p in patterns if p not in lined], comments=comments)
        found = tuple(_line_findings(analysis.lines, lined))
        return replace(analysis, findings=analysis.findings + found)
    if not is_python_path(path):
        text = data.decode("utf-8", errors="surrogateescape")
        lines = split_lines(text)
        return FileAnalysis(path, lines, tuple(_text_findings(lines, patterns)))
    try:
        text = decode_python(data)
    except (SyntaxError, UnicodeDecodeError) as exc:
        text = data.decode("utf-8", errors="surrogateescape")
        lines = split_lines(text)
        problem = f"cannot decode as Python source: {_reason(exc)}"
        return FileAnalysis(path, lines, tuple(_text_findings(lines, patterns)), problem)
    lines = split_lines(text)
    patterns = present_patterns(text, patterns)  # each file is scanned only for what it spells
    if not patterns:
        return FileAnalysis(path, lines, ())
    if len(data) > MAX_PARSE_BYTES:
        return _too_large(path, len(data), lines, patterns)
    module = module_name_for(path)
    is_package = path.rsplit("/", 1)[-1].startswith("__init__.")
    needs_resolution = _needs_resolution(text, patterns)
    binders = import_binders(patterns, module, is_package=is_package) if needs_resolution else None
    spelling = spelling_lines(text, patterns)
    try:
        tree = parse_needed(text, lines, path, spelling, binders)
    except (SyntaxError, ValueError) as exc:
        problem = _parse_problem(exc)
        return FileAnalysis(path, lines, tuple(_text_findings(lines, patterns)), problem)
    resolved: dict[_Key, tuple[str, ...]] = {}
    unresolved: str | None = None
    if needs_resolution:
        try:
            resolved = resolve_qualified(text, tree, module, patterns, is_package=is_package)
        except Exception as exc:  # astroid is third-party code: any failure is reported
            unresolved = f"qualified names could not be resolved through imports ({exc!r})"
    candidates = candidate_lines(spelling, resolved)
    scanner = _Scanner(lines, patterns, module, resolved, is_package=is_package)
    scanner.candidates = candidates
    scanner.scan(tree)
    if comments:
        scanner.scan_comments(text)
    return FileAnalysis(path, lines, tuple(scanner.findings), unresolved)


def _too_large(
    path: str, size: int, lines: tuple[str, ...], patterns: Sequence[Pattern]
) -> FileAnalysis:
    """A file too large to parse in bounded memory is matched line by line, as grep would.

    Text matching finds every line a substring, glob or exact pattern can
    match (as kind ``text``); only a qualified pattern can hide behind an
    alias, so only then is the check incomplete.
    """
    findings = tuple(_text_findings(lines, patterns))
    if any(p.tier is PatternTier.QUALIFIED for p in patterns):
        problem = (
            f"{size / 2**20:.0f} MiB is over the {MAX_PARSE_BYTES // 2**20} MiB parse limit: "
            "matched as text, so aliases of qualified names are not resolved"
        )
        return FileAnalysis(path, lines, findings, problem)
    return FileAnalysis(path, lines, findings)


def candidate_lines(
    spelling: set[int] | None, resolved: dict[_Key, tuple[str, ...]]
) -> list[int] | None:
    """The sorted lines where an occurrence can stand, or ``None`` when any line can.

    A name is reported on a line that spells it (see :func:`spelling_lines`);
    the names resolved through imports are added (an alias spells nothing of
    the qualified name).  Statements that span none of these lines are not walked.
    """
    if spelling is None:
        return None
    found = set(spelling)
    for _, line, _, end_line, _ in resolved:
        found.update(range(line, (end_line or line) + 1))
    return sorted(found)


def spelling_lines(text: str, patterns: Sequence[Pattern]) -> set[int] | None:
    """The lines that spell a needle (or hold an escape that may); ``None``: any line may."""
    needles = [prefilter_needle(pattern) for pattern in patterns]
    if any(needle is None for needle in needles):
        return None
    offsets: set[int] = set()
    for needle in set(needles):
        assert needle is not None
        index = text.find(needle)
        while index != -1:
            offsets.add(index)
            index = text.find(needle, index + 1)
    if _needs_escape_lines(text, patterns):
        offsets.update(m.start() for m in _ESCAPE.finditer(text))
    return _lines_at(text, offsets)


def _lines_at(text: str, offsets: Iterable[int]) -> set[int]:
    """The 1-based lines, as :func:`split_lines` counts them, of character offsets."""
    return set(_line_numbers(text, sorted(offsets)))


def _line_numbers(text: str, offsets: Sequence[int]) -> list[int]:
    """The line of each of these ascending offsets (newlines counted in C, between offsets)."""
    if "\r" in text:  # rare: \r and \r\n also end lines
        starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]
        return [bisect.bisect_right(starts, offset) for offset in offsets]
    numbers: list[int] = []
    line, previous = 1, 0
    for offset in offsets:
        line += text.count("\n", previous, offset)
        previous = offset
        numbers.append(line)
    return numbers


# --------------------------------------------------------------------------- partial parse

#: a line that starts a ``def`` or ``class``, or the decorators of one
_BLOCK = r"([ \t]*)(?:@|def\b|class\b|async[ \t]+def\b)"
_BLOCK_AT_START = re.compile(_BLOCK)
#: after a newline, not ``^`` with re.M: a literal first character is searched for in C
_BLOCK_AFTER_NEWLINE = re.compile("\n" + _BLOCK)
#: a line of code at column 0 (not blank, not a comment): the end of any block above it
_COLUMN_ZERO = re.compile(r"\n[^\s#]")
#: comments and string literals as the tokenizer reads them (tokenize's own expressions);
#: a block start inside one of them starts nothing
_STRING_OR_COMMENT = re.compile(
    r"""
    \#[^\r\n]*
  | \"\"\"[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*(?:\"\"\"|\Z)
  | '''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*(?:'''|\Z)
  | "[^"\\\r\n]*(?:\\(?:\r\n|[\s\S])[^"\\\r\n]*)*(?:"|(?=[\r\n])|\Z)
  | '[^'\\\r\n]*(?:\\(?:\r\n|[\s\S])[^'\\\r\n]*)*(?:'|(?=[\r\n])|\Z)
    """,
    re.X,
)


@dataclass(frozen=True)
class Layout:
    """A module cut into pieces that can each be parsed or left out.

    A top-level piece runs from a ``def`` or ``class`` at column 0 (from the
    first of its decorators) to the line before the next one: a run of whole
    top-level statements.  A top-level class is cut further at its members
    (``def``, ``class`` and decorators at its body's indentation), up to its
    last line.  A member left out becomes a ``pass`` at its indentation, so
    the class keeps a body and no later string becomes its docstring.
    """

    #: the first line of each piece, ascending, from line 1
    starts: list[int]
    #: the index of the top-level piece each piece belongs to (its own for a top-level one)
    top: list[int]
    #: for a class member, the indentation its ``pass`` takes; ``None`` for the others
    indent: list[str | None]
    #: the ``class`` line of each class cut into members
    classes: tuple[int, ...] = ()

    def pieces_of(self, lines: Iterable[int]) -> set[int]:
        """The indexes of the pieces that hold these lines."""
        return {bisect.bisect_right(self.starts, line) - 1 for line in lines}


def layout(text: str) -> Layout:
    """Where the pieces of a module start (see :class:`Layout`)."""
    at_start = _BLOCK_AT_START.match(text)
    blocks = [(0, at_start.group(1))] if at_start else []
    blocks += [(m.start() + 1, m.group(1)) for m in _BLOCK_AFTER_NEWLINE.finditer(text)]
    if not blocks:
        return Layout([1], [0], [None])
    spans = [(m.start(), m.end()) for m in _STRING_OR_COMMENT.finditer(text)]
    span_starts = [start for start, _ in spans]

    def in_string(offset: int) -> bool:
        index = bisect.bisect_right(span_starts, offset) - 1
        return index >= 0 and spans[index][1] > offset

    offsets = [offset for offset, _ in blocks]
    tops = _block_runs(text, [(o, "") for o, indent in blocks if not indent and not in_string(o)])
    starts: list[int] = [0]  # offsets, then lines
    top: list[int] = [0]
    indent_of: list[str | None] = [None]
    classes: list[int] = []
    ends = [offset for offset, _ in tops[1:]] + [len(text)] if tops else []
    for (first, header), end in zip(tops, ends, strict=True):
        if first > 0:
            starts.append(first)
            top.append(len(starts) - 1)
            indent_of.append(None)
        if not text.startswith("class", header):
            continue
        newline = text.find("\n", header)
        body = _COLUMN_ZERO.finditer(text, end if newline == -1 else newline, end)
        body_end = next((m.start() + 1 for m in body if not in_string(m.start() + 1)), end)
        inside = blocks[
            bisect.bisect_right(offsets, header) : bisect.bisect_left(offsets, body_end)
        ]
        for body_indent in sorted({indent for _, indent in inside if indent}, key=len):
            level = [(o, i) for o, i in inside if i == body_indent and not in_string(o)]
            if level:  # the shallowest blocks that are code: the class's members
                break
        else:
            continue
        members = _block_runs(text, level)
        classes.append(header)
        owner = top[-1]
        for member, _ in members:
            starts.append(member)
            top.append(owner)
            indent_of.append(body_indent)
        if body_end < end:
            starts.append(body_end)
            top.append(owner)
            indent_of.append(None)
    lines = [1, *_line_numbers(text, starts[1:])]
    return Layout(lines, top, indent_of, tuple(_line_numbers(text, classes)))


def _block_runs(text: str, blocks: Sequence[tuple[int, str]]) -> list[tuple[int, int]]:
    """Merge decorator runs: ``(first offset, offset of the def or class line)`` per block."""
    runs: list[tuple[int, int]] = []
    decorators = False  # inside a decorator run: its def or class starts nothing new
    for offset, indent in blocks:
        decorator = text.startswith("@", offset + len(indent))
        if decorators:
            if not decorator:
                runs[-1] = (runs[-1][0], offset)
        else:
            runs.append((offset, offset))
        decorators = decorator
    return runs


def top_level_units(text: str) -> list[int]:
    """The first lines of the module's top-level pieces (see :class:`Layout`)."""
    cut = layout(text)
    return [start for index, start in enumerate(cut.starts) if cut.top[index] == index]


def parse_needed(
    text: str,
    lines: Sequence[str],
    path: str,
    spelling: set[int] | None,
    binders: Callable[[ast.Module], set[str]] | None = None,
) -> ast.Module:
    """Parse the pieces of the module that can hold an occurrence, the others left out.

    Kept: the first piece (docstring, ``__future__``), and every piece with a
    line of ``spelling`` (see :func:`spelling_lines`; ``None``: parse it all);
    with the pieces of a class, the class's own first and last lines.  With
    ``binders``, the names that imports bind to a qualified pattern (or to
    something inside one), every piece that imports is kept, then every piece
    that spells a name they bind, until nothing changes: a use of an alias is
    never left out.

    Left-out lines stay as empty lines, so every kept line keeps its number
    and columns.  Syntax is thus checked in the kept pieces; when they do not
    parse, or a ``pass`` left for a member did not land in its class's body,
    the whole file is parsed, so the error reported is the file's first.
    """
    cut = layout(text) if spelling is not None and "\r" not in text else None
    if spelling is None or cut is None or len(cut.starts) == 1:
        return parse_python(text, path)
    keep = {0} | cut.pieces_of(spelling)
    if binders is not None:  # the imports that bind names: their names are then followed
        keep |= cut.pieces_of(_lines_at(text, word_offsets(text, ["import"])))
    seen: set[str] = set()
    while True:
        keep |= {cut.top[piece] for piece in keep}
        if len(keep) == len(cut.starts):
            return parse_python(text, path)
        tree = _parse_pieces(text, lines, path, cut, keep)
        if tree is None:
            return parse_python(text, path)
        names = binders(tree) - seen if binders is not None else set()
        seen |= names
        more = cut.pieces_of(_lines_at(text, word_offsets(text, names))) - keep
        if not more:
            return tree
        keep |= more


def _parse_pieces(
    text: str, lines: Sequence[str], path: str, cut: Layout, keep: set[int]
) -> ast.Module | None:
    """The module with only the ``keep`` pieces; ``None`` when that does not parse as cut."""
    kept: list[str] = []
    passes: set[tuple[int, int]] = set()
    bounds = [*cut.starts, len(lines) + 1]
    for index, (first, end) in enumerate(itertools.pairwise(bounds)):
        indent = cut.indent[index]
        if index in keep:
            kept += lines[first - 1 : end - 1]
        elif indent is not None and cut.top[index] in keep:
            kept += [indent + "pass"] + [""] * (end - first - 1)
            passes.add((first, len(indent)))
        else:
            kept += [""] * (end - first)
    try:
        tree = parse_python("\n".join(kept), path)
    except (SyntaxError, ValueError):
        return None
    landed = {
        (stmt.lineno, stmt.col_offset)
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.lineno in cut.classes
        for stmt in node.body
        if isinstance(stmt, ast.Pass)
    }
    return tree if passes <= landed else None


def parse_python(text: str, path: str) -> ast.Module:
    """``ast.parse``, with the cyclic garbage collector paused.

    A parse allocates one object per node, and each allocation burst would
    start a full collection over everything alive; the nodes form no cycles,
    so pausing it costs nothing and saves about a third of the parse time.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        return ast.parse(text, filename=path, type_comments=False)
    finally:
        if paused:
            gc.enable()


def word_offsets(text: str, names: Iterable[str]) -> list[int]:
    """Where these identifiers stand as whole words."""
    return [offset for name in names for offset in _word_positions(text, name)]


def _word_positions(text: str, name: str) -> Iterator[int]:
    """Each offset where ``name`` stands as a whole word (``str.find`` runs in C; regexes crawl)."""
    index = text.find(name)
    while index != -1:
        end = index + len(name)
        before = text[index - 1] if index else " "
        after = text[end] if end < len(text) else " "
        if not _is_word_char(before) and not _is_word_char(after):
            yield index
        index = text.find(name, index + 1)


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"{exc.reason} at byte {exc.start} ({exc.encoding})"
    return str(exc)


def _parse_problem(exc: SyntaxError | ValueError) -> str:
    version = ".".join(map(str, sys.version_info[:3]))
    if isinstance(exc, SyntaxError):
        where = f"line {exc.lineno}" if exc.lineno else "unknown line"
        what = f"{exc.msg} at {where}"
    else:
        what = str(exc)
    return (
        f"cannot parse with Python {version}: {what}. If the code is written for a newer "
        "Python, run the check under that Python (for example `python3.12 -m pytest "
        "--cleantree`); lines whose text matches are listed"
    )


def module_name_for(path: str) -> str:
    """The dotted module a file is, relative to the root (``a/b/__init__.py`` -> ``a.b``)."""
    stem = path.rsplit(".", 1)[0] if is_python_path(path) else path
    parts = [part for part in stem.split("/") if part]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _text_findings(lines: Sequence[str], patterns: Sequence[Pattern]) -> Iterator[Finding]:
    for number, line in enumerate(lines, start=1):
        for pattern in patterns:
            if match_text(pattern, line):
                yield Finding(
                    pattern.text, Occurrence(number, _column(pattern, line), Kind.TEXT, line)
                )


def _line_findings(lines: Sequence[str], patterns: Sequence[Pattern]) -> Iterator[Finding]:
    """Whole-line patterns (``forbid_lines``, ``line@N:``) on each line, as kind ``text``."""
    for pattern in patterns:
        numbers = [pattern.line] if pattern.line else range(1, len(lines) + 1)
        for number in numbers:
            line = lines[number - 1] if number <= len(lines) else ""
            if match_text(pattern, line):
                column = len(line) - len(line.lstrip())
                yield Finding(pattern.text, Occurrence(number, column, Kind.TEXT, line))


def _column(pattern: Pattern, text: str) -> int:
    index = text.find(pattern.body) if pattern.tier is not PatternTier.REGEX else -1
    return max(index, 0)


# --------------------------------------------------------------------------- resolution


def _needs_resolution(text: str, patterns: Sequence[Pattern]) -> bool:
    """Can a name in this file resolve to a qualified pattern through an import?

    Its last part must be spelt (by the import or the use), and the import
    must spell its first part, unless the import is relative.
    """
    relative = "from ." in text
    for pattern in patterns:
        if pattern.tier is not PatternTier.QUALIFIED:
            continue
        first, _, rest = pattern.body.partition(".")
        last = rest.rsplit(".", 1)[-1]
        if last in text and (relative or _spells_word(text, first)):
            return True
    return False


def _spells_word(text: str, word: str) -> bool:
    """Does ``word`` stand in the text as a whole word?"""
    return next(_word_positions(text, word), None) is not None


def absolute_module(module: str, level: int, target: str | None, *, is_package: bool) -> str:
    """Resolve ``from {'.' * level}{target} import ...`` inside ``module``.

    The root's own package is unknown, so a relative result starts with ``.``
    (see :func:`pytest_cleantree.patterns.match_name`).
    """
    if level == 0:
        return target or ""
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (level - 1)] if level > 1 else parts
    base = ".".join(parts)
    tail = ".".join(x for x in (base, target or "") if x)
    return "." + tail


_Key = tuple[str, int, int, int | None, int | None]


def resolve_qualified(
    text: str,
    parsed: ast.Module,
    module: str,
    patterns: Sequence[Pattern],
    *,
    is_package: bool,
) -> dict[_Key, tuple[str, ...]]:
    """Map Name/Attribute uses to what they resolve to through imports.

    Only names bound by an import on a pattern's path matter.  Nearly all of
    them are bound by imports of one target in module or function scopes, and
    by nothing else: those are resolved here from the ``ast`` alone (see
    :class:`_NameBindings`).  A name also bound any other way (an assignment,
    a parameter, an import in a class body, ``global``, two different targets)
    is left to astroid's scope-by-scope lookup, which follows the rebindings.
    """
    wanted = [p.body for p in patterns if p.tier is PatternTier.QUALIFIED]
    names = import_bound_names(parsed, module=module, is_package=is_package, wanted=wanted)
    if not names:
        return {}
    bindings = _NameBindings(names, module, is_package=is_package)
    bindings.lines = sorted(_lines_at(text, word_offsets(text, names)))
    bindings.visit(parsed)
    resolved = bindings.resolved()
    hard = names - bindings.simple
    if hard:
        resolved.update(_astroid_resolve(text, parsed, module, hard, is_package=is_package))
    return resolved


class _NameBindings(ast.NodeVisitor):
    """Every binding and use of some names, and the scopes each stands in.

    A name is *simple* when everything that binds it is an import in a module
    or function scope, all of one target.  A use of it then resolves to that
    target when an enclosing scope it can see imports it: its own scope, the
    functions around it (not their classes), the module.  As in astroid's
    lookup, a use in the very frame of an import but on an earlier line does
    not see that import.
    """

    def __init__(self, names: set[str], module: str, *, is_package: bool) -> None:
        self.names = names
        self.module = module
        self.is_package = is_package
        #: name -> scope id -> the line of the first import of the name in that scope
        self.imports: dict[str, dict[int, int]] = defaultdict(dict)
        self.targets: dict[str, set[str]] = defaultdict(set)
        #: names bound some other way (or imported in a class body): astroid resolves them
        self.other: set[str] = set()
        #: (node, statement line, visible scope ids innermost first, frame scope id)
        self.uses: list[tuple[ast.Name, int, tuple[int, ...], int]] = []
        self.chains: list[tuple[ast.Attribute, ast.Name, str]] = []  # (node, base, ".a.b")
        self._scopes: list[tuple[int, str]] = [(0, "module")]
        self._scope_ids = itertools.count(1)
        self._line = 0
        #: the lines that spell one of the names (the others are not walked)
        self.lines: list[int] = []

    @property
    def simple(self) -> set[str]:
        return {n for n, targets in self.targets.items() if len(targets) == 1} - self.other

    def resolved(self) -> dict[_Key, tuple[str, ...]]:
        simple = self.simple
        out: dict[_Key, tuple[str, ...]] = {}
        resolvable: set[int] = set()
        for use, line, visible, frame in self.uses:
            name = use.id
            if name not in simple:
                continue
            imported = self.imports[name]
            for scope in visible:
                first = imported.get(scope)
                if first is not None and not (scope == frame and line < first):
                    resolvable.add(id(use))
                    out[_key_of(use)] = (next(iter(self.targets[name])),)
                    break
        for chain, base, suffix in self.chains:
            if id(base) in resolvable:
                out[_key_of(chain)] = (next(iter(self.targets[base.id])) + suffix,)
        return out

    def _bind(self, name: str) -> None:
        if name in self.names:
            self.other.add(name)

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.stmt):
            if not _spans(node, self.lines):
                return  # spells none of the names: neither binds nor uses them
            self._line = node.lineno
        super().visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            bound = alias.asname or alias.name.split(".", 1)[0]
            self._import(bound, alias.name if alias.asname else bound)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = absolute_module(self.module, node.level, node.module, is_package=self.is_package)
        for alias in node.names:
            if alias.name != "*":
                qualified = f"{base}.{alias.name}" if base else alias.name
                self._import(alias.asname or alias.name, qualified)

    def _import(self, bound: str, target: str) -> None:
        if bound not in self.names:
            return
        scope, kind = self._scopes[-1]
        if kind == "class":
            self.other.add(bound)
            return
        self.targets[bound].add(target)
        self.imports[bound].setdefault(scope, self._line)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id not in self.names:
            return
        if not isinstance(node.ctx, ast.Load):
            self.other.add(node.id)
            return
        innermost = self._scopes[-1]
        visible = [innermost[0]]
        visible += [scope for scope, kind in reversed(self._scopes[:-1]) if kind != "class"]
        frame = next(scope for scope, kind in reversed(self._scopes) if kind != "comprehension")
        self.uses.append((node, self._line, tuple(visible), frame))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        suffix = [node.attr]
        base: ast.expr = node.value
        while isinstance(base, ast.Attribute):
            suffix.append(base.attr)
            base = base.value
        if isinstance(base, ast.Name) and base.id in self.names:
            self.chains.append((node, base, "." + ".".join(reversed(suffix))))
        self.generic_visit(node)

    def _scoped(self, node: ast.AST, kind: str) -> None:
        """Visit a def, class, lambda or comprehension as the scope it opens.

        Decorators, defaults and annotations are visited inside it too: a use
        there then sees the scopes around, as it should, but never an import
        inside the body, whose lines all come after the ``def`` line.
        """
        self._scopes.append((next(self._scope_ids), kind))
        try:
            self.generic_visit(node)
        finally:
            self._scopes.pop()

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._scoped(node, "function")

    def visit_ListComp(self, node: ast.expr) -> None:
        self._scoped(node, "comprehension")

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._bind(node.name)
        self._scoped(node, "function")

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._bind(node.name)
        self._scoped(node, "class")

    def visit_arg(self, node: ast.arg) -> None:
        self._bind(node.arg)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        for name in node.names:
            self._bind(name)

    visit_Nonlocal = visit_Global

    def generic_visit(self, node: ast.AST) -> None:
        field_name = _BINDING_FIELD.get(type(node).__name__)
        bound = getattr(node, field_name, None) if field_name else None
        if isinstance(bound, str):
            self._bind(bound)
        super().generic_visit(node)


#: nodes that bind a name held in a field (``except E as name``, ``case [*rest]``,
#: ``case {**rest}``, PEP 695 ``class C[T]``), by node type
_BINDING_FIELD = {
    "ExceptHandler": "name",
    "MatchAs": "name",
    "MatchStar": "name",
    "MatchMapping": "rest",
    "TypeVar": "name",
    "ParamSpec": "name",
    "TypeVarTuple": "name",
}


def _key_of(node: ast.Name | ast.Attribute) -> _Key:
    """How the scan finds a resolved node again: its kind and exact span."""
    kind = "Name" if isinstance(node, ast.Name) else "Attribute"
    return (kind, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def _spans(node: ast.stmt, lines: Sequence[int]) -> bool:
    """Does the statement, decorators included, span one of these ascending lines?"""
    first = node.lineno
    for decorator in getattr(node, "decorator_list", ()):
        first = min(first, decorator.lineno)
    index = bisect.bisect_left(lines, first)
    return index < len(lines) and lines[index] <= (node.end_lineno or node.lineno)


def _astroid_resolve(
    text: str, parsed: ast.Module, module: str, only: set[str], *, is_package: bool
) -> dict[_Key, tuple[str, ...]]:
    """Resolve the names in ``only`` with astroid's lookup, which follows every rebinding."""
    from astroid import nodes
    from astroid.exceptions import AttributeInferenceError
    from astroid.manager import AstroidManager
    from astroid.rebuilder import TreeRebuilder

    class Recorder(TreeRebuilder):  # type: ignore[misc]
        """The rebuilder, noting names as it meets them (no second walk)."""

        def __init__(self, manager: AstroidManager, data: str) -> None:
            super().__init__(manager, data)
            self.names: list[nodes.Name] = []

        def visit_name(self, node: ast.Name, parent: nodes.NodeNG) -> nodes.NodeNG:
            built = super().visit_name(node, parent)
            if isinstance(built, nodes.Name):
                self.names.append(built)
            return built

    # Only what name lookup needs: the rebuilt tree and its locals.  No manager cache
    # (every target stays apart), no inference of ``self.x`` assignments, no imports of
    # other modules (``from m import *`` is left unresolved), no transforms.
    manager = AstroidManager()
    if "builtins" not in manager.astroid_cache:  # what AstroidBuilder would do: once
        manager.bootstrap()
    builder = Recorder(manager, text)
    tree = builder.visit_module(parsed, f"__cleantree_target_{next(_UNIQUE)}__", "", is_package)
    for from_node, global_names in builder._import_from_nodes:  # what the builder would do
        for name, asname in from_node.names:
            bound = asname or name
            if name == "*":
                continue
            target = tree if bound in global_names else from_node.parent
            target.set_local(bound, from_node)
            target.scope().locals[bound].sort(key=lambda n: n.fromlineno or 0)

    def qualify(node: nodes.Name) -> tuple[str, ...]:
        _, assigned = node.lookup(node.name)
        names: list[str] = []
        for stmt in assigned:
            try:
                real = stmt.real_name(node.name)
            except (AttributeError, AttributeInferenceError):  # not an import
                continue
            if isinstance(stmt, nodes.ImportFrom):
                level, modname = stmt.level or 0, stmt.modname
                base = absolute_module(module, level, modname, is_package=is_package)
                names.append(f"{base}.{real}" if base else real)
            elif isinstance(stmt, nodes.Import):
                names.append(real)
        return tuple(names)

    resolved: dict[_Key, tuple[str, ...]] = {}
    for name_node in builder.names:
        if name_node.name not in only:
            continue
        found = qualify(name_node)
        node: nodes.NodeNG = name_node
        kind = "Name"
        while found:
            resolved[(kind, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)] = (
                found
            )
            parent = node.parent
            if not (isinstance(parent, nodes.Attribute) and parent.expr is node):
                break
            found = tuple(f"{base}.{parent.attrname}" for base in found)
            node, kind = parent, "Attribute"
    return resolved


def import_binders(
    patterns: Sequence[Pattern], module: str, *, is_package: bool
) -> Callable[[ast.Module], set[str]]:
    """What :func:`parse_needed` asks of what it parsed: the names that can stand for a pattern.

    Only names bound to a pattern, or to something inside one (``from
    subprocess import Popen as launch``): a use of a name bound to a module
    on the way (``import subprocess``) spells the rest, needle included.
    """
    wanted = [p.body for p in patterns if p.tier is PatternTier.QUALIFIED]
    return functools.partial(
        import_bound_names, module=module, is_package=is_package, wanted=wanted, covering=True
    )


def import_bound_names(
    tree: ast.Module,
    *,
    module: str,
    is_package: bool,
    wanted: Sequence[str],
    covering: bool = False,
) -> set[str]:
    """The local names that the file's imports bind to something on a wanted name's path.

    With ``covering``, only those bound to a wanted name or to something inside one.
    """
    targets = tuple(wanted)

    def relevant(target: str) -> bool:
        return _covers_any(target, targets) if covering else _on_path(target, targets)

    bound: set[str] = set()
    for stmt in _imports(tree.body):
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if relevant(alias.name if alias.asname else alias.name.split(".", 1)[0]):
                    bound.add(alias.asname or alias.name.split(".", 1)[0])
            continue
        base = absolute_module(module, stmt.level, stmt.module, is_package=is_package)
        for alias in stmt.names:
            qualified = f"{base}.{alias.name}" if base else alias.name
            if alias.name != "*" and relevant(qualified):
                bound.add(alias.asname or alias.name)
    return bound


def _imports(body: Sequence[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, nested ones included; no expression is visited."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, _COMPOUND):
            for field_name in ("body", "orelse", "finalbody", "handlers", "cases"):
                stack.extend(getattr(node, field_name, ()))


_COMPOUND = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.ExceptHandler,
    ast.Match,
    ast.match_case,
    *(getattr(ast, name) for name in ("TryStar",) if hasattr(ast, name)),  # 3.11+
)


@functools.lru_cache(maxsize=8192)
def _covers_any(imported: str, wanted: tuple[str, ...]) -> bool:
    """Is the imported name a wanted name, or something inside one?"""
    return any(covers(name, imported) for name in wanted)


@functools.lru_cache(maxsize=8192)
def _on_path(imported: str, wanted: tuple[str, ...]) -> bool:
    """Is the imported name on the way to a wanted qualified name, or inside one?"""
    if imported.startswith("."):  # relative: known only in part; any shared part counts
        parts = set(imported[1:].split("."))
        return any(parts & set(target.split(".")) for target in wanted)
    return any(
        target == imported or target.startswith(imported + ".") or imported.startswith(target + ".")
        for target in wanted
    )


_UNIQUE = itertools.count()


# --------------------------------------------------------------------------- the scan


class _Scanner:
    """Walks a module once, classifying each name that matches a pattern.

    A visitor per node kind, each delegating to :meth:`_emit` with the node's
    own position.  ``condition`` is true inside the test of an
    if/elif/while/assert/ternary/comprehension-if/match guard.
    """

    def __init__(
        self,
        lines: Sequence[str],
        patterns: Sequence[Pattern],
        module: str,
        resolved: dict[_Key, tuple[str, ...]],
        *,
        is_package: bool = False,
    ) -> None:
        self.lines = lines
        self.is_package = is_package
        self.patterns = patterns
        self.module = module
        self.resolved = resolved
        self.findings: list[Finding] = []
        #: how many def/class bodies enclose the node being visited
        self._depth = 0
        #: lines where an occurrence can stand (see :func:`candidate_lines`); None: any line
        self.candidates: list[int] | None = None
        self._name_cache: dict[str, tuple[Pattern, ...]] = {}
        self._qualified_cache: dict[tuple[str, tuple[str, ...], bool], tuple[Pattern, ...]] = {}
        self._qualified = [p for p in patterns if p.tier is PatternTier.QUALIFIED]
        self._plain = [p for p in patterns if p.tier is not PatternTier.QUALIFIED]

    # -- matching

    def _emit(
        self, name: str, line: int, col: int, kind: Kind, qualified: tuple[str, ...] = ()
    ) -> None:
        matched = self._name_cache.get(name)
        if matched is None:
            matched = tuple(p for p in self._plain if match_name(p, name))
            self._name_cache[name] = matched
        if qualified:
            inside = kind is not Kind.DEFINITION
            key = (name, qualified, inside)
            through = self._qualified_cache.get(key)
            if through is None:
                through = tuple(
                    p for p in self._qualified if match_name(p, name, qualified, inside=inside)
                )
                self._qualified_cache[key] = through
            matched += through
        if matched:
            col = self._char_col(line, col)
        for pattern in matched:
            self.findings.append(
                Finding(pattern.text, Occurrence(line, col, kind, name, qualified))
            )

    def _char_col(self, line: int, byte_col: int) -> int:
        """``ast`` columns count UTF-8 bytes; reports count characters."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return byte_col
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))

    def _emit_located(
        self, name: str, kind: Kind, start: tuple[int, int], qualified: tuple[str, ...] = ()
    ) -> None:
        """Emit a name the AST gives no position for, found among the statement's tokens."""
        if not self._wanted(name, qualified):
            return
        line, col = self._locate(name, start)
        self._emit(name, line, col, kind, qualified)

    def _wanted(self, name: str, qualified: tuple[str, ...]) -> bool:
        return any(match_name(p, name, qualified) for p in self.patterns)

    def _locate(self, name: str, start: tuple[int, int]) -> tuple[int, int]:
        """Where the first NAME token ``name`` (its first dotted part) stands at or after ``start``.

        Positions in and out are ``ast``'s (1-based line, UTF-8 byte column).
        """
        first = name.split(".", 1)[0]
        line_no, byte_col = start
        head = _slice_utf8(self.lines[line_no - 1], byte_col, None)
        readline = iter([head + "\n"] + [line + "\n" for line in self.lines[line_no:]]).__next__
        try:
            for token in tokenize.generate_tokens(readline):
                if token.type == tokenize.NAME and token.string == first:
                    row, col = token.start
                    if row == 1:
                        return line_no, byte_col + len(head[:col].encode("utf-8"))
                    text = self.lines[line_no + row - 2]
                    return line_no + row - 1, len(text[:col].encode("utf-8"))
        except (tokenize.TokenError, SyntaxError, StopIteration):
            pass
        return start

    # -- walking

    def scan(self, tree: ast.Module) -> None:
        self._body(tree.body, docstring_allowed=True)

    def _body(self, body: Sequence[ast.stmt], *, docstring_allowed: bool) -> None:
        for index, stmt in enumerate(body):
            if (
                docstring_allowed
                and index == 0
                and isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str)
            ):
                self._string(stmt.value, Kind.DOCSTRING)
            else:
                self.visit(stmt, condition=False)

    def visit(self, node: ast.AST, *, condition: bool, callee: bool = False) -> None:
        if isinstance(node, ast.stmt) and not self._may_hold(node):
            return
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is not None:
            method(node, condition=condition, callee=callee)
        else:
            self._children(node, condition=condition)

    def _may_hold(self, node: ast.stmt) -> bool:
        """Does the statement (decorators included) span a candidate line?"""
        return self.candidates is None or _spans(node, self.candidates)

    def _children(self, node: ast.AST, *, condition: bool) -> None:
        for child in ast.iter_child_nodes(node):
            self.visit(child, condition=condition)

    def _use_kind(self, ctx: ast.expr_context, *, condition: bool, callee: bool) -> Kind:
        if isinstance(ctx, ast.Store):
            return Kind.ASSIGNMENT
        if condition:
            return Kind.CONDITION
        return Kind.CALL if callee else Kind.REFERENCE

    # imports

    def visit_Import(self, node: ast.Import, **_: bool) -> None:
        for alias in node.names:
            start = (alias.lineno, alias.col_offset)
            self._emit(alias.name, *start, Kind.IMPORT, (alias.name,))
            if alias.asname:
                end = (alias.end_lineno or alias.lineno, 0)
                self._emit_located(
                    alias.asname, Kind.IMPORT, self._after_as(start, end), (alias.name,)
                )

    def visit_ImportFrom(self, node: ast.ImportFrom, **_: bool) -> None:
        base = absolute_module(self.module, node.level, node.module, is_package=self.is_package)
        if node.module:
            self._emit_located(
                node.module, Kind.IMPORT, (node.lineno, node.col_offset + 4), (base,)
            )
        for alias in node.names:
            if alias.name == "*":
                continue
            qualified = (f"{base}.{alias.name}" if base else alias.name,)
            start = (alias.lineno, alias.col_offset)
            self._emit(alias.name, *start, Kind.IMPORT, qualified)
            if alias.asname:
                end = (alias.end_lineno or alias.lineno, 0)
                self._emit_located(alias.asname, Kind.IMPORT, self._after_as(start, end), qualified)

    def _after_as(self, start: tuple[int, int], end: tuple[int, int]) -> tuple[int, int]:
        """Where to look for an alias's ``asname``: after the ``as`` keyword."""
        line_no, col = start
        while line_no <= end[0]:
            text = self.lines[line_no - 1]
            match = re.search(r"\bas\b", text[col:])
            if match:
                return line_no, col + match.end()
            line_no, col = line_no + 1, 0
        return start

    # definitions

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef, **_: bool) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator, condition=False)
        self._definition_name(node)
        self._type_params(node)
        self.visit(node.args, condition=False)
        if node.returns:
            self.visit(node.returns, condition=False)
        self._nested_body(node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef, **_: bool) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator, condition=False)
        self._definition_name(node)
        self._type_params(node)
        for base in node.bases:
            self.visit(base, condition=False)
        for keyword in node.keywords:
            self.visit(keyword, condition=False)
        self._nested_body(node.body)

    def _nested_body(self, body: Sequence[ast.stmt]) -> None:
        self._depth += 1
        try:
            self._body(body, docstring_allowed=True)
        finally:
            self._depth -= 1

    def _definition_name(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        """A module-level def or class *is* the qualified name ``module.name``."""
        top_level = self._depth == 0 and self.module
        qualified = (f".{self.module}.{node.name}",) if top_level else ()
        self._emit_located(node.name, Kind.DEFINITION, (node.lineno, node.col_offset), qualified)

    def _type_params(self, node: ast.AST) -> None:
        for param in getattr(node, "type_params", ()):
            self.visit(param, condition=False)

    def visit_TypeVar(self, node: ast.AST, **_: bool) -> None:
        """PEP 695 type parameters (``class C[T]``), Python 3.12+."""
        name: str = getattr(node, "name", "")
        line: int = getattr(node, "lineno", 0)
        self._emit_located(name, Kind.DEFINITION, (line, getattr(node, "col_offset", 0)))
        self._children(node, condition=False)

    visit_ParamSpec = visit_TypeVar
    visit_TypeVarTuple = visit_TypeVar

    def visit_arg(self, node: ast.arg, **_: bool) -> None:
        self._emit(node.arg, node.lineno, node.col_offset, Kind.DEFINITION)
        if node.annotation:
            self.visit(node.annotation, condition=False)

    def visit_Lambda(self, node: ast.Lambda, *, condition: bool, **_: bool) -> None:
        self.visit(node.args, condition=False)
        self.visit(node.body, condition=condition)

    # names and attributes

    def visit_Name(self, node: ast.Name, *, condition: bool, callee: bool) -> None:
        kind = self._use_kind(node.ctx, condition=condition, callee=callee)
        resolved = self.resolved.get(_key_of(node), ())
        self._emit(node.id, node.lineno, node.col_offset, kind, resolved)

    def visit_Attribute(self, node: ast.Attribute, *, condition: bool, callee: bool) -> None:
        kind = self._use_kind(node.ctx, condition=condition, callee=callee)
        line = node.end_lineno or node.lineno
        col = (node.end_col_offset or 0) - len(node.attr)
        self._emit(node.attr, line, max(col, 0), kind, self.resolved.get(_key_of(node), ()))
        self.visit(node.value, condition=condition)

    def visit_Call(self, node: ast.Call, *, condition: bool, **_: bool) -> None:
        self.visit(node.func, condition=condition, callee=True)
        for arg in node.args:
            self.visit(arg, condition=condition)
        for keyword in node.keywords:
            self.visit(keyword, condition=condition)

    def visit_keyword(self, node: ast.keyword, *, condition: bool, **_: bool) -> None:
        if node.arg is not None:
            kind = Kind.CONDITION if condition else Kind.REFERENCE
            self._emit(node.arg, node.lineno, node.col_offset, kind)
        self.visit(node.value, condition=condition)

    def visit_Global(self, node: ast.Global | ast.Nonlocal, **_: bool) -> None:
        for name in node.names:
            self._emit_located(name, Kind.REFERENCE, (node.lineno, node.col_offset + 6))

    visit_Nonlocal = visit_Global

    def visit_ExceptHandler(self, node: ast.ExceptHandler, **_: bool) -> None:
        if node.type:
            self.visit(node.type, condition=False)
        if node.name:
            after = (
                (node.type.end_lineno or node.lineno, node.type.end_col_offset or 0)
                if node.type
                else (node.lineno, node.col_offset)
            )
            self._emit_located(node.name, Kind.ASSIGNMENT, after)
        self._body(node.body, docstring_allowed=False)

    # conditions

    def visit_If(self, node: ast.If | ast.While, **_: bool) -> None:
        self.visit(node.test, condition=True)
        self._body(node.body, docstring_allowed=False)
        self._body(node.orelse, docstring_allowed=False)

    visit_While = visit_If

    def visit_Assert(self, node: ast.Assert, **_: bool) -> None:
        self.visit(node.test, condition=True)
        if node.msg:
            self.visit(node.msg, condition=False)

    def visit_IfExp(self, node: ast.IfExp, *, condition: bool, **_: bool) -> None:
        self.visit(node.test, condition=True)
        self.visit(node.body, condition=condition)
        self.visit(node.orelse, condition=condition)

    def visit_comprehension(self, node: ast.comprehension, *, condition: bool, **_: bool) -> None:
        self.visit(node.target, condition=condition)
        self.visit(node.iter, condition=condition)
        for test in node.ifs:
            self.visit(test, condition=True)

    def visit_match_case(self, node: ast.match_case, **_: bool) -> None:
        self.visit(node.pattern, condition=False)
        if node.guard:
            self.visit(node.guard, condition=True)
        self._body(node.body, docstring_allowed=False)

    def visit_MatchAs(self, node: ast.MatchAs | ast.MatchStar, **_: bool) -> None:
        if isinstance(node, ast.MatchAs) and node.pattern:
            self.visit(node.pattern, condition=False)
        if node.name:
            line = node.end_lineno or node.lineno
            col = (node.end_col_offset or 0) - len(node.name)
            self._emit(node.name, line, max(col, 0), Kind.ASSIGNMENT)

    visit_MatchStar = visit_MatchAs

    def visit_MatchMapping(self, node: ast.MatchMapping, **_: bool) -> None:
        self._children(node, condition=False)
        if node.rest:
            start = node.patterns[-1] if node.patterns else node
            position = (start.end_lineno or start.lineno, start.end_col_offset or 0)
            if start is node:
                position = (node.lineno, node.col_offset)
            self._emit_located(node.rest, Kind.ASSIGNMENT, position)

    def visit_MatchClass(self, node: ast.MatchClass, **_: bool) -> None:
        self.visit(node.cls, condition=False)
        for pattern in node.patterns:
            self.visit(pattern, condition=False)
        for attr, pattern in zip(node.kwd_attrs, node.kwd_patterns, strict=True):
            position = (node.cls.end_lineno or node.lineno, node.cls.end_col_offset or 0)
            self._emit_located(attr, Kind.REFERENCE, position)
            self.visit(pattern, condition=False)

    # strings

    def visit_Constant(self, node: ast.Constant, *, condition: bool, **_: bool) -> None:
        if isinstance(node.value, (str, bytes)):
            self._string(node, Kind.STRING)

    def visit_JoinedStr(self, node: ast.JoinedStr, *, condition: bool, **_: bool) -> None:
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                self.visit(value, condition=condition)
            elif isinstance(value, ast.Constant):
                self._string(value, Kind.STRING)

    def _string(self, node: ast.Constant, kind: Kind) -> None:
        """Emit a string literal at the line(s) of its source where the pattern stands.

        The decoded value decides *whether* it matches; the raw source lines
        decide *where*.  When no raw line shows the match (escapes, implicit
        concatenation over lines), the literal's first line is reported.
        """
        value = node.value
        if isinstance(value, bytes):
            text = value.decode("latin-1")
        elif isinstance(value, str):
            text = value
        else:
            return
        first, last = node.lineno, node.end_lineno or node.lineno
        for pattern in self.patterns:
            if not match_text(pattern, text):
                continue
            placed = False
            for line_no in range(first, last + 1):
                raw = self._segment_line(node, line_no)
                if match_text(pattern, raw):
                    offset = self._char_col(first, node.col_offset) if line_no == first else 0
                    col = _column(pattern, raw) + offset
                    self.findings.append(
                        Finding(pattern.text, Occurrence(line_no, col, kind, text))
                    )
                    placed = True
            if not placed:
                occurrence = Occurrence(first, self._char_col(first, node.col_offset), kind, text)
                self.findings.append(Finding(pattern.text, occurrence))

    def _segment_line(self, node: ast.expr, line_no: int) -> str:
        text = self.lines[line_no - 1] if line_no <= len(self.lines) else ""
        if line_no == (node.end_lineno or node.lineno) and node.end_col_offset is not None:
            text = _slice_utf8(text, None, node.end_col_offset)
        if line_no == node.lineno:
            text = _slice_utf8(text, node.col_offset, None)
        return text

    # comments

    def scan_comments(self, text: str) -> None:
        if "#" not in text:
            return
        if self.candidates is not None and not any(
            "#" in self.lines[line - 1] for line in self.candidates if line <= len(self.lines)
        ):
            return
        try:
            for token in tokenize.generate_tokens(io.StringIO(text).readline):
                if token.type == tokenize.COMMENT:
                    line, col = token.start
                    for pattern in self.patterns:
                        if match_text(pattern, token.string):
                            occurrence = Occurrence(line, col, Kind.COMMENT, token.string)
                            self.findings.append(Finding(pattern.text, occurrence))
        except (tokenize.TokenError, SyntaxError):
            return


def _slice_utf8(text: str, start: int | None, end: int | None) -> str:
    """Slice by the UTF-8 byte offsets that ``ast`` uses for columns."""
    if text.isascii():
        return text[start:end]
    return text.encode("utf-8")[start:end].decode("utf-8", errors="replace")
