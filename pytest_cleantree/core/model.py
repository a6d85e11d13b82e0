"""Plain, frozen data shared by every layer.  No I/O and no third-party imports."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Kind(str, enum.Enum):
    """What an occurrence *is*, by its syntactic place.

    When one name plays several roles (a call inside an ``if`` test), the most
    specific place wins, in this order: import, definition, assignment,
    condition, call, reference.
    """

    IMPORT = "import"
    DEFINITION = "definition"
    ASSIGNMENT = "assignment"
    CONDITION = "condition"
    CALL = "call"
    REFERENCE = "reference"
    STRING = "string"
    DOCSTRING = "docstring"
    COMMENT = "comment"
    TEXT = "text"

    def __str__(self) -> str:
        return self.value


#: Kinds a rule looks at unless its ``kinds`` key says otherwise.
DEFAULT_KINDS: frozenset[Kind] = frozenset(Kind) - {Kind.DOCSTRING, Kind.COMMENT}

#: The kinds of code: not a string, docstring, comment or line of text.  The revert guard
#: looks for the names an experiment introduced in these only.
CODE_KINDS: frozenset[Kind] = frozenset(
    {Kind.IMPORT, Kind.DEFINITION, Kind.ASSIGNMENT, Kind.CONDITION, Kind.CALL, Kind.REFERENCE}
)

#: Kinds a rule may name in ``kinds`` (``text`` is implied for non-Python files).
SELECTABLE_KINDS: frozenset[Kind] = frozenset(Kind) - {Kind.TEXT}


#: the files read as Python (parsed); any other file is matched as text
PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")


def is_python_path(path: str) -> bool:
    """Is ``path`` read as Python (its names parsed), not as text?"""
    return path.endswith(PYTHON_SUFFIXES)


class PatternTier(str, enum.Enum):
    """How a pattern is matched against a name (see :mod:`pytest_cleantree.core.patterns`)."""

    SUBSTRING = "substring"
    GLOB = "glob"
    REGEX = "regex"
    QUALIFIED = "qualified"
    EXACT = "exact"
    #: a whole line, compared after stripping whitespace (``forbid_lines``)
    LINE = "line"


@dataclass(frozen=True)
class Pattern:
    """One forbidden or expected symbol, as written in the manifest."""

    text: str
    tier: PatternTier
    #: the part matched against names: the text less any ``re:``/``=`` prefix
    body: str
    #: a line pattern pinned to this 1-based line (``line@N:...``); 0: any line
    line: int = 0
    #: a counted line pattern (``line*N:...``): the number of lines it stands for (in
    #: ``expect``: at least that many; in ``forbid``: more is a violation); ``None``: not
    #: counted
    count: int | None = None
    #: a qualified name spelt through a module alias (``os.path`` for ``posixpath.join``):
    #: the words one of which every use of it that leads to its target spells (the target's
    #: last names), the prefilter's needles in place of its own last part
    needles: tuple[str, ...] = ()

    def __hash__(self) -> int:
        """The text decides the rest: hashing it alone is cheap (a str caches its hash)."""
        return hash(self.text)


@dataclass(frozen=True)
class Rule:
    """One ``[[rule]]`` table: which symbols must be absent from (or present in) which files."""

    id: str
    files: tuple[str, ...]
    forbid: tuple[Pattern, ...] = ()
    expect: tuple[Pattern, ...] = ()
    absent: tuple[str, ...] = ()
    kinds: frozenset[Kind] = DEFAULT_KINDS
    why: str = ""
    missing_ok: bool = False
    #: a missing file is a violation (its expectations are missing), not an error
    must_exist: bool = False
    #: lines matching one of these are not reported by this rule (another rule reports them)
    unless: tuple[Pattern, ...] = ()
    #: 1-based line of the rule's header in the manifest, for reports (0 when built in code)
    line: int = 0
    #: gitignore-style patterns of files (relative to the root) the rule does not look at:
    #: the manifest's top-level ``exclude`` followed by the rule's own
    exclude: tuple[str, ...] = ()
    #: the mode each of its files must have, as git writes it (``100644``, ``100755``);
    #: "" for none (the revert guard's mode rules: a mode is content)
    mode: str = ""

    @property
    def patterns(self) -> tuple[Pattern, ...]:
        return self.forbid + self.expect + self.unless


@dataclass(frozen=True)
class Manifest:
    """A parsed manifest; ``root`` is as written (a path or ``module:NAME``)."""

    path: str
    root: str
    rules: tuple[Rule, ...]
    hosts: tuple[tuple[str, str], ...] = ()
    #: absolute and ``..`` file entries were explicitly allowed
    allow_outside_root: bool = False
    #: the top-level ``exclude`` patterns (already part of every rule's ``exclude``)
    exclude: tuple[str, ...] = ()
    #: folders on ``sys.path``, relative to the root: module names are read from there
    import_roots: tuple[str, ...] = ()
    #: the symbol graph's bound on steps of work (``None``: the default, see ``names/budget.py``)
    graph_budget: int | None = None


@dataclass(frozen=True)
class Occurrence:
    """One place where a name (or text) stands in a file.  ``line`` is 1-based, ``col`` 0-based."""

    line: int
    col: int
    kind: Kind
    #: the name or text matched (an identifier, a dotted import path, a string's value, a comment)
    name: str
    #: what a name resolves to through imports, when resolution was asked for and succeeded
    qualified: tuple[str, ...] = ()


@dataclass(frozen=True)
class Hit:
    """A source line where a rule's forbidden patterns occur: one per line, with all its kinds."""

    path: str
    line: int
    kinds: tuple[Kind, ...]
    source: str
    col: int = 0
    patterns: tuple[str, ...] = ()
    #: why an allow comment on this line did not suppress it ("" when there is none)
    note: str = ""


@dataclass(frozen=True)
class Suppressed:
    """A hit that a ``# cleantree: allow RULE_ID -- reason`` comment on its line allows."""

    hit: Hit
    reason: str


@dataclass(frozen=True)
class Missing:
    """An expected pattern that does not occur in a file the rule names."""

    path: str
    pattern: str


@dataclass(frozen=True)
class Problem:
    """Something that kept a check from being complete, attached to what it concerns.

    ``path`` is the file or manifest entry at fault (empty: the host or the whole
    source), ``line`` the 1-based line in that file when known (0: unknown), so every
    format can attach a file's problem to that file.  ``str()`` gives the one-line
    message users have always seen: ``path: message``.
    """

    message: str
    path: str = ""
    line: int = 0

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    @classmethod
    def at(cls, path: str, text: str, line: int = 0) -> Problem:
        """The problem ``text`` about ``path`` (a leading ``path: `` is not repeated)."""
        prefix = f"{path}: "
        return cls(text[len(prefix) :] if text.startswith(prefix) else text, path, line)


@dataclass(frozen=True)
class Result:
    """The outcome of one rule on one manifest entry (a path or glob), on one host.

    ``problems`` are things that prevented a full check (a missing file, a file
    that cannot be read or parsed): they fail the check even when no hit is
    found, because a false "clean" is the worst outcome this tool can have.
    """

    rule: Rule
    entry: str
    host: str = ""
    hits: tuple[Hit, ...] = ()
    missing: tuple[Missing, ...] = ()
    present: tuple[str, ...] = ()
    problems: tuple[Problem, ...] = ()
    files: tuple[str, ...] = field(default=(), compare=False)
    #: hits allowed inline, with their reasons: they do not fail the check
    suppressed: tuple[Suppressed, ...] = ()

    @property
    def ok(self) -> bool:
        return not (self.hits or self.missing or self.present or self.problems)

    @property
    def complete(self) -> bool:
        """True when every file was read and parsed: the result can be trusted either way."""
        return not self.problems
