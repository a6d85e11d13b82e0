"""The manifest: a TOML file saying which symbols must be absent from (or present in) which files.

``parse_manifest`` is pure: it turns text into a :class:`~pytest_cleantree.core.model.Manifest` or
raises one :class:`~pytest_cleantree.core.errors.ManifestError` carrying *every* problem found, each
starting with where it is (``rule 2 (line 14): forbid[0]: ...``).  ``load_manifest`` reads a
file and parses it; ``find_manifest`` says which file of a folder holds the manifest.
The document's shape (tables, rules, ids, the line of each problem) is walked here; each
key's value is checked by :mod:`.entries`.

The manifest is either a whole ``cleantree.toml`` or the ``[tool.cleantree]`` table of a
``pyproject.toml``::

    root = "src"                      # optional: a path, or module:NAME (resolved by a source)
    allow_outside_root = false        # optional: allow absolute and '..' file entries

    [hosts]                           # optional: label = "user@host:port"
    gpu1 = "me@gpu1"

    [[rule]]
    id = "no-sm120"                   # optional: a default is made from the first pattern
    files = ["kernels/**/*.py"]
    forbid = ["sm120", "re:sm1[0-9]{2}"]
    kinds = ["call", "import"]        # optional
    why = "the sm120 experiment was reverted"
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path, PurePath

from pytest_cleantree.config.entries import (
    Report,
    nearest,
    read_excludes,
    read_forbid_lines,
    read_kinds,
    read_optional,
    read_paths,
    read_patterns,
    suggest,
    toml_type,
)
from pytest_cleantree.config.layout import LayoutError, normalize_folder
from pytest_cleantree.core.errors import ManifestError
from pytest_cleantree.core.model import Manifest, Rule

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    # without tomli installed, mypy (python_version 3.10) cannot see it: ignored, not loosened
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

__all__ = [
    "MANIFEST_NAME",
    "PYPROJECT_NAME",
    "find_manifest",
    "id_slug",
    "load_manifest",
    "parse_manifest",
]

#: The file that holds a manifest on its own.
MANIFEST_NAME = "cleantree.toml"
#: The file whose ``[tool.cleantree]`` table may hold the manifest instead.
PYPROJECT_NAME = "pyproject.toml"

_TOP_KEYS = (
    "root",
    "rule",
    "hosts",
    "allow_outside_root",
    "exclude",
    "import_roots",
    "graph_budget",
)
_RULE_KEYS = (
    "id",
    "files",
    "forbid",
    "forbid_lines",
    "forbid_lines_escaped",
    "expect",
    "absent",
    "kinds",
    "why",
    "missing_ok",
    "must_exist",
    "exclude",
    "unless_lines",
    "unless_lines_escaped",
    "mode",
)
#: the modes a ``mode`` key may expect, as git writes them: a regular file, executable or not
_MODES = ("100644", "100755")

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_NOT_ID = re.compile(r"[^A-Za-z0-9_.-]+")
_SLUG_LENGTH = 40

_KEY = r"[ \t]*(?:{0}|\"{0}\"|'{0}')[ \t]*"
_DOT = r"\."
_RULE_HEADER = re.compile(rf"[ \t]*\[\[{_KEY.format('rule')}\]\][ \t]*(?:#.*)?\r?")
_PYPROJECT_RULE_HEADER = re.compile(
    rf"[ \t]*\[\[{_KEY.format('tool')}{_DOT}{_KEY.format('cleantree')}{_DOT}{_KEY.format('rule')}"
    rf"\]\][ \t]*(?:#.*)?\r?"
)
_END_OF_DOCUMENT = "(at end of document)"
#: a key's own line: ``forbid = [``, ``"forbid" =``
_KEY_LINE = r"[ \t]*(?:{0}|\"{0}\"|'{0}')[ \t]*="
#: the key a rule's problem is about: ``forbid[0]: ...``, ``unknown key 'x' ...``
_PROBLEM_KEY = re.compile(r"(?:unknown key '([^']+)'|([A-Za-z_]+)(?:\[\d+\])?:)")


def parse_manifest(text: str, path: str) -> Manifest:
    """Parse a manifest's text; ``path`` names it in messages and picks the format.

    When ``path``'s file name is ``pyproject.toml`` the manifest is its ``[tool.cleantree]``
    table, otherwise the whole document.  Raises :class:`ManifestError` with every problem.
    """
    pyproject = PurePath(path).name == PYPROJECT_NAME
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(path, [f"TOML syntax error: {_locate(str(exc), text)}"]) from None
    except RecursionError:  # the TOML parser recurses once per nested array or table
        raise ManifestError(
            path, [f"TOML syntax error: nested too deeply to read {_deep_nesting(text)}"]
        ) from None
    if pyproject:
        tool = document.get("tool")
        table = tool.get("cleantree") if isinstance(tool, dict) else None
        if table is None:
            raise ManifestError(path, ["no [tool.cleantree] table"])
        if not isinstance(table, dict):
            raise ManifestError(path, [f"tool.cleantree: must be a table, not {toml_type(table)}"])
        document = table
    parser = _Parser(text, "tool.cleantree." if pyproject else "")
    manifest = parser.manifest(document, path)
    if parser.problems:
        raise ManifestError(path, parser.problems)
    return manifest


def load_manifest(path: Path) -> Manifest:
    """Read a manifest file (UTF-8) and parse it; any failure is a :class:`ManifestError`."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ManifestError(str(path), [f"cannot read the manifest: {_reason(exc)}"]) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        problem = (
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at line {line}, "
            f"offset {exc.start}): save the manifest as UTF-8"
        )
        raise ManifestError(str(path), [problem]) from None
    return parse_manifest(text, str(path))


def _deep_nesting(text: str, limit: int = 100) -> str:
    """Where brackets and braces first nest past ``limit`` deep: ``(at line L, column C)``."""
    depth, line, column = 0, 1, 0
    for char in text:
        column += 1
        if char == "\n":
            line, column = line + 1, 0
        elif char in "[{":
            depth += 1
            if depth > limit:
                break
        elif char in "]}":
            depth -= 1
    return f"(at line {line}, column {column})"


def find_manifest(folder: Path) -> Path | None:
    """The manifest of ``folder``: its ``cleantree.toml``, else a ``pyproject.toml`` there
    that has a ``[tool.cleantree]`` table, else ``None``.

    A ``pyproject.toml`` that mentions ``cleantree`` but is not valid UTF-8 TOML is returned,
    so that loading it reports the error instead of silently checking nothing.
    """
    candidate = folder / MANIFEST_NAME
    if candidate.exists():
        return candidate
    pyproject = folder / PYPROJECT_NAME
    try:
        data = pyproject.read_bytes()
    except OSError:
        return None
    if b"cleantree" not in data:
        return None
    try:
        document = tomllib.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return pyproject
    tool = document.get("tool")
    if isinstance(tool, dict) and "cleantree" in tool:
        return pyproject
    return None


class _Parser:
    """Walks a parsed TOML document, collecting problems instead of stopping at the first."""

    def __init__(self, text: str, prefix: str) -> None:
        self.text = text
        #: what top-level keys are called in messages ("" or "tool.cleantree.")
        self.prefix = prefix
        self.problems: list[str] = []
        self.allow_outside_root = False

    def report(self, problem: str) -> None:
        self.problems.append(problem)

    def manifest(self, document: Mapping[str, object], path: str) -> Manifest:
        for key in document:
            if key not in _TOP_KEYS:
                self.report(self._unknown_top_key(key))
        root = read_optional(document, "root", str, "", self.prefix, self.report)
        hosts = self._hosts(document.get("hosts"))
        self.allow_outside_root = read_optional(
            document, "allow_outside_root", bool, False, self.prefix, self.report
        )
        exclude = read_excludes(document, self.prefix, self.report)
        import_roots = self._import_roots(document.get("import_roots"))
        graph_budget = self._graph_budget(document.get("graph_budget"))
        rules = self._rules(document.get("rule"))
        if not self.problems:
            rules = _with_default_ids(rules)
            if exclude:
                rules = [dataclasses.replace(r, exclude=exclude + r.exclude) for r in rules]
        return Manifest(
            path=path,
            root=root,
            rules=tuple(rules),
            hosts=hosts,
            allow_outside_root=self.allow_outside_root,
            exclude=exclude,
            import_roots=import_roots,
            graph_budget=graph_budget,
        )

    def _import_roots(self, value: object) -> tuple[str, ...]:
        """Folders on ``sys.path``, relative to the root (see :mod:`.importroots`)."""
        if value is None:
            return ()
        key = f"{self.prefix}import_roots"
        if not isinstance(value, list):
            self.report(f'{key}: must be a list of folders (["python"]), not {toml_type(value)}')
            return ()
        roots: list[str] = []
        for index, folder in enumerate(value):
            if not isinstance(folder, str):
                self.report(f"{key}[{index}]: must be a string, not {toml_type(folder)}")
                continue
            try:
                roots.append(normalize_folder(folder))
            except LayoutError as exc:
                self.report(f"{key}[{index}]: {exc}")
        return tuple(roots)

    def _graph_budget(self, value: object) -> int | None:
        """The symbol graph's bound on steps of work: a whole number from 1."""
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            return value
        shown = repr(value) if isinstance(value, int) and not isinstance(value, bool) else None
        self.report(
            f"{self.prefix}graph_budget: must be a whole number of steps from 1 "
            f"(10000000), not {shown or toml_type(value)}"
        )
        return None

    def _unknown_top_key(self, key: str) -> str:
        where = f"unknown key '{self.prefix}{key}'"
        line = self._top_key_line(key)
        at = f" (at line {line})" if line else ""
        if key in _RULE_KEYS:
            return f"{where} (it belongs in a [[{self.prefix}rule]] table){at}"
        return f"{where} ({suggest(key, _TOP_KEYS, 'keys', self.prefix)}){at}"

    def _top_key_line(self, key: str) -> int:
        """The 1-based line where top-level ``key`` is written (``key =`` in the manifest's
        own table, or a ``[key]``/``[[key]]``/``[key.sub]`` header), 0 when not found."""
        table = [_KEY.format("tool"), _KEY.format("cleantree")] if self.prefix else []
        own = re.compile(rf"[ \t]*\[{_DOT.join(table)}\][ \t]*(?:#.*)?\r?") if table else None
        named = _DOT.join([*table, _KEY.format(re.escape(key))])
        header = re.compile(rf"[ \t]*\[\[?{named}(?:\]|{_DOT})")
        assignment = re.compile(_KEY_LINE.format(re.escape(key)))
        inside = own is None  # the manifest's own table: the document, or [tool.cleantree]
        for number, text in enumerate(self.text.split("\n"), 1):
            if header.match(text):
                return number
            if text.lstrip().startswith("["):
                inside = own is not None and own.fullmatch(text) is not None
            elif inside and assignment.match(text):
                return number
        return 0

    def _hosts(self, value: object) -> tuple[tuple[str, str], ...]:
        if value is None:
            return ()
        key = f"{self.prefix}hosts"
        if not isinstance(value, dict):
            self.report(f'{key}: must be a table of name = "host" strings, not {toml_type(value)}')
            return ()
        hosts: list[tuple[str, str]] = []
        for name, host in value.items():
            if isinstance(host, str):
                hosts.append((name, host))
            else:
                self.report(f"{key}.{name}: must be a string, not {toml_type(host)}")
        return tuple(hosts)

    def _rules(self, value: object) -> list[Rule]:
        header = f"[[{self.prefix}rule]]"
        if value is None or value == []:
            self.report(f"no {header} tables: nothing to check")
            return []
        if not isinstance(value, list):
            self.report(
                f"{self.prefix}rule: must be an array of tables ({header}), not {toml_type(value)}"
            )
            return []
        lines = self._header_lines(len(value))
        seen_ids: dict[str, str] = {}
        rules: list[Rule] = []
        for index, table in enumerate(value):
            line = lines[index] if lines else 0
            label = f"rule {index + 1}" + (f" (line {line})" if line else "")
            if not isinstance(table, dict):
                self.report(f"{label}: must be a table, not {toml_type(table)}")
                continue
            end = lines[index + 1] - 1 if lines and index + 1 < len(lines) else 0
            key_lines = self._key_lines(table, line, end) if line else {}
            rule = self._rule(table, label, line, seen_ids, key_lines)
            if rule is not None:
                rules.append(rule)
        return rules

    def _header_lines(self, count: int) -> list[int]:
        """1-based lines of the rule headers, when there is exactly one per rule."""
        header = _PYPROJECT_RULE_HEADER if self.prefix else _RULE_HEADER
        # TOML ends lines at "\n" only: str.splitlines() would also split at "\f" and others
        lines = self.text.split("\n")
        found = [number for number, line in enumerate(lines, 1) if header.fullmatch(line)]
        return found if len(found) == count else []

    def _key_lines(self, table: Mapping[str, object], start: int, end: int) -> dict[str, int]:
        """The 1-based line of each key of the rule whose header is at ``start`` (up to
        ``end``, 0: the end of the document), so that a problem points at its own key."""
        text_lines = self.text.split("\n")
        stop = end or len(text_lines)
        found: dict[str, int] = {}
        for key in table:
            pattern = _KEY_LINE.format(re.escape(key))
            for number in range(start + 1, stop + 1):
                if re.match(pattern, text_lines[number - 1]):
                    found[key] = number
                    break
        return found

    def _rule(
        self,
        table: Mapping[str, object],
        label: str,
        line: int,
        seen_ids: dict[str, str],
        key_lines: Mapping[str, int] | None = None,
    ) -> Rule | None:
        before = len(self.problems)
        index_label = label.split(" (", 1)[0]

        def report(problem: str) -> None:
            key = _PROBLEM_KEY.match(problem)
            at = (key_lines or {}).get(key[1] or key[2]) if key else None
            self.report(f"{index_label} (line {at}): {problem}" if at else f"{label}: {problem}")

        meant = set(table)  # the keys as the user meant them: one mistake, one problem
        for key in table:
            if key not in _RULE_KEYS:
                report(f"unknown key '{key}' ({suggest(key, _RULE_KEYS, 'keys')})")
                meant.add(nearest(key, _RULE_KEYS) or key)

        rule_id = read_optional(table, "id", str, "", "", report)
        if "id" in table and isinstance(table["id"], str):
            if not _ID.fullmatch(rule_id):
                report(
                    f"id: '{rule_id}' is not a valid id: use letters, digits, '_', '.' and '-', "
                    "starting with a letter or digit"
                )
            elif rule_id in seen_ids:
                report(f"id: '{rule_id}' is already the id of {seen_ids[rule_id]}")
            else:
                seen_ids[rule_id] = label

        files = read_paths(table, "files", report, allow_outside_root=self.allow_outside_root)
        forbid = read_patterns(table, "forbid", report) + read_forbid_lines(table, report)
        expect = read_patterns(table, "expect", report)
        absent = read_paths(table, "absent", report, allow_outside_root=self.allow_outside_root)
        kinds = read_kinds(table, report)
        why = read_optional(table, "why", str, "", "", report)
        missing_ok = read_optional(table, "missing_ok", bool, False, "", report)
        must_exist = read_optional(table, "must_exist", bool, False, "", report)
        if missing_ok and must_exist:
            report("missing_ok and must_exist contradict each other: keep one")
        exclude = read_excludes(table, "", report)
        mode = _read_mode(table, report)

        unless = read_forbid_lines(table, report, "unless_lines")
        _check_coverage(meant, report)
        for both in sorted(set(files) & set(absent)):
            report(f"'{both}' is in both files and absent")

        if len(self.problems) > before:
            return None
        return Rule(
            id=rule_id,
            files=files,
            forbid=forbid,
            expect=expect,
            absent=absent,
            kinds=kinds,
            why=why,
            missing_ok=missing_ok,
            must_exist=must_exist,
            line=line,
            exclude=exclude,
            unless=unless,
            mode=mode,
        )


def _read_mode(table: Mapping[str, object], report: Report) -> str:
    """The rule's ``mode``: one git writes for a regular file, or ``""``."""
    mode = read_optional(table, "mode", str, "", "", report)
    if mode and mode not in _MODES:
        report(f"mode: '{mode}' is not a file mode git writes: use {' or '.join(_MODES)}")
    return mode


def _check_coverage(meant: AbstractSet[str], report: Report) -> None:
    """A rule checks something, and what looks in files has files to look in (``meant``:
    its keys as the user meant them, a misspelt one as the key it is nearest)."""
    lined = ("forbid_lines", "forbid_lines_escaped")
    searched = [key for key in ("forbid", *lined, "expect", "mode") if key in meant]
    if not searched and "absent" not in meant:
        report("nothing to check: give forbid, expect or absent")
    if searched and "files" not in meant:
        report(f"{' and '.join(searched)} need{'s' * (len(searched) == 1)} files to look in")
    if not searched and "files" in meant:
        report("files: has no effect without forbid or expect")


def _with_default_ids(rules: Sequence[Rule]) -> list[Rule]:
    """Give each rule without an id a readable one, unique among all the manifest's ids."""
    used = {rule.id for rule in rules if rule.id}
    named: list[Rule] = []
    for rule in rules:
        if not rule.id:
            base = _default_id(rule)
            rule_id, counter = base, 1
            while rule_id in used:
                counter += 1
                rule_id = f"{base}-{counter}"
            used.add(rule_id)
            rule = dataclasses.replace(rule, id=rule_id)
        named.append(rule)
    return named


def _default_id(rule: Rule) -> str:
    if rule.forbid:
        verb, subject = "forbid", rule.forbid[0].text
    elif rule.expect:
        verb, subject = "expect", rule.expect[0].text
    elif rule.absent:
        verb, subject = "absent", rule.absent[0]
    else:  # a mode alone
        verb, subject = "mode", rule.files[0]
    slug = id_slug(subject)
    return f"{verb}-{slug}" if slug else verb


def id_slug(text: str, length: int | None = _SLUG_LENGTH) -> str:
    """``text`` as the tail of a rule id: runs of other characters become one ``-``."""
    slug = re.sub(r"-{2,}", "-", _NOT_ID.sub("-", text)).strip("-")
    return slug[:length].rstrip("-")


def _locate(message: str, text: str) -> str:
    """tomllib's message, with "at end of document" turned into a line and column."""
    if not message.endswith(_END_OF_DOCUMENT):
        return message
    lines = text.split("\n")
    where = f"(at line {len(lines)}, column {len(lines[-1]) + 1})"
    return message[: -len(_END_OF_DOCUMENT)] + where


def _reason(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "it is a folder"
    if isinstance(exc, PermissionError):
        return "permission denied"
    reason = exc.strerror or str(exc)
    return reason[:1].lower() + reason[1:]
