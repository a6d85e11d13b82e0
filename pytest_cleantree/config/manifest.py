"""The manifest: a TOML file saying which symbols must be absent from (or present in) which files.

``parse_manifest`` is pure: it turns text into a :class:`~pytest_cleantree.core.model.Manifest` or
raises one :class:`~pytest_cleantree.core.errors.ManifestError` carrying *every* problem found, each
starting with where it is (``rule 2 (line 14): forbid[0]: ...``).  ``load_manifest`` reads a
file and parses it; ``find_manifest`` says which file of a folder holds the manifest.
The document's shape (its top keys and tables) is walked here; each ``[[rule]]`` table is
read by :mod:`.rules`, each key's value checked by :mod:`.entries`, and the line of each
problem found in the text by :mod:`.keylines`.

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
import sys
from collections.abc import Mapping
from pathlib import Path, PurePath

from pytest_cleantree.config.entries import read_excludes, read_optional, suggest, toml_type
from pytest_cleantree.config.keylines import (
    deep_nesting,
    locate_end,
    rule_header_lines,
    rule_key_lines,
    top_key_line,
)
from pytest_cleantree.config.layout import LayoutError, normalize_folder
from pytest_cleantree.config.rules import RULE_KEYS as _RULE_KEYS
from pytest_cleantree.config.rules import RuleAt, id_slug, read_rule, with_default_ids
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


def parse_manifest(text: str, path: str) -> Manifest:
    """Parse a manifest's text; ``path`` names it in messages and picks the format.

    When ``path``'s file name is ``pyproject.toml`` the manifest is its ``[tool.cleantree]``
    table, otherwise the whole document.  Raises :class:`ManifestError` with every problem.
    """
    pyproject = PurePath(path).name == PYPROJECT_NAME
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(path, [f"TOML syntax error: {locate_end(str(exc), text)}"]) from None
    except RecursionError:  # the TOML parser recurses once per nested array or table
        raise ManifestError(
            path, [f"TOML syntax error: nested too deeply to read {deep_nesting(text)}"]
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
            rules = with_default_ids(rules)
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
        line = top_key_line(self.text, key, pyproject=bool(self.prefix))
        at = f" (at line {line})" if line else ""
        if key in _RULE_KEYS:
            return f"{where} (it belongs in a [[{self.prefix}rule]] table){at}"
        return f"{where} ({suggest(key, _TOP_KEYS, 'keys', self.prefix)}){at}"

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
        lines = rule_header_lines(self.text, len(value), pyproject=bool(self.prefix))
        seen_ids: dict[str, str] = {}
        rules: list[Rule] = []
        for index, table in enumerate(value):
            line = lines[index] if lines else 0
            label = f"rule {index + 1}" + (f" (line {line})" if line else "")
            if not isinstance(table, dict):
                self.report(f"{label}: must be a table, not {toml_type(table)}")
                continue
            end = lines[index + 1] - 1 if lines and index + 1 < len(lines) else 0
            key_lines = rule_key_lines(self.text, table, line, end) if line else {}
            rule = read_rule(
                table,
                RuleAt(label, line, key_lines),
                seen_ids,
                self.report,
                allow_outside_root=self.allow_outside_root,
            )
            if rule is not None:
                rules.append(rule)
        return rules


def _reason(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "it is a folder"
    if isinstance(exc, PermissionError):
        return "permission denied"
    reason = exc.strerror or str(exc)
    return reason[:1].lower() + reason[1:]
