"""One question, asked of every tool in its own language.

A :class:`Question` is "which lines use these names?" for N names of one kind:

* ``substring``: names that contain the text, as grep would find them (cleantree's substring
  tier);
* ``qualified``: ``module.name`` resolved through imports and aliases (cleantree's qualified
  tier, ruff's banned-api).

Each ``render_*`` function is pure and returns the text of one tool's configuration, the
closest equivalent that tool can express (the README says what each one misses).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from names import QUALIFIED, SUBSTRINGS

KINDS = ("substring", "qualified")
SIZES = (1, 20, 200)


@dataclass(frozen=True)
class Question:
    kind: str  # "substring" or "qualified"
    names: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"{self.kind}-{len(self.names)}"


def question(kind: str, size: int) -> Question:
    names = SUBSTRINGS if kind == "substring" else QUALIFIED
    if kind not in KINDS or not 0 < size <= len(names):
        raise ValueError(f"no question {kind}-{size}")
    return Question(kind, names[:size])


def _toml_string(text: str) -> str:
    return json.dumps(text)  # a JSON string of plain names is a valid TOML basic string


def render_manifest(q: Question) -> str:
    """A cleantree manifest: one rule per name, each over ``**/*.py``, default kinds."""
    out = [
        f"# cleantree benchmark: {q.label}, by bench/run.py (the root is given with --root)",
        'root = "."',
    ]
    for number, name in enumerate(q.names, 1):
        out += [
            "",
            "[[rule]]",
            f'id = "{q.kind[0]}{number:03d}"',
            'files = ["**/*.py"]',
            f"forbid = [{_toml_string(name)}]",
        ]
    return "\n".join(out) + "\n"


def rg_patterns(q: Question) -> tuple[list[str], bool]:
    """rg's patterns (one per line of a ``-f`` file), and whether they are fixed strings (``-F``).

    A substring is looked for literally.  A qualified name is looked for as its last part, as
    a word: the one thing that any line importing or using it must spell (``Popen`` for
    ``subprocess.Popen``) -- what someone with grep would search for.
    """
    if q.kind == "substring":
        return list(q.names), True
    return sorted({rf"\b{re.escape(name.rsplit('.', 1)[-1])}\b" for name in q.names}), False


def render_ruff(q: Question) -> str | None:
    """ruff's ``TID251`` (banned-api) over exactly the benchmark's files; ``None`` for
    substring questions, which banned-api cannot ask."""
    if q.kind != "qualified":
        return None
    out = [
        "# ruff banned-api (flake8-tidy-imports TID251): the closest ruff has to a qualified name",
        'include = ["*.py"]',
        "exclude = []  # ruff's defaults would skip folders named build, dist, site-packages ...",
        "respect-gitignore = false",
        "",
        "[lint]",
        'select = ["TID251"]',
        "",
        "[lint.flake8-tidy-imports.banned-api]",
    ]
    out += [f'{_toml_string(name)}.msg = "forbidden by the benchmark"' for name in q.names]
    return "\n".join(out) + "\n"


def _yaml(text: str) -> str:
    return json.dumps(text)  # JSON strings are valid YAML flow scalars


def render_ast_grep(q: Question) -> str:
    """ast-grep rules (a multi-document YAML file): one rule per name.

    substring: an identifier or the content of a string whose text holds the name (ast-grep
    cannot tell a docstring from a string, and never looks in comments).  qualified: the dotted
    expression as written, or the name in a ``from module import`` statement; ast-grep does
    not follow aliases (``import subprocess as sp; sp.Popen``).
    """
    docs: list[str] = []
    for number, name in enumerate(q.names, 1):
        head = [f"id: {q.kind[0]}{number:03d}", "language: python", "severity: info", "rule:"]
        if q.kind == "substring":
            regex = _yaml(re.escape(name))
            body = [
                "  any:",
                f"    - {{kind: identifier, regex: {regex}}}",
                f"    - {{kind: string_content, regex: {regex}}}",
            ]
        else:
            module, _, last = name.rpartition(".")
            module_regex = _yaml(f"^{re.escape(module)}$")
            last_regex = _yaml(f"^{re.escape(last)}$")
            body = [
                "  any:",
                f"    - pattern: {_yaml(name)}",
                "    - all:",
                "        - kind: import_from_statement",
                f"        - has: {{field: module_name, regex: {module_regex}}}",
                f"        - has: {{kind: dotted_name, regex: {last_regex}, stopBy: end}}",
            ]
        docs.append("\n".join(head + body))
    return "\n---\n".join(docs) + "\n"


def render_semgrep(q: Question) -> str:
    """semgrep rules: one per name.

    substring: ``pattern-regex`` (semgrep's way to find text; it looks in comments and
    docstrings as grep does).  qualified: the expression and the ``from`` import, which
    semgrep resolves through imports and aliases.
    """
    out = ["rules:"]
    for number, name in enumerate(q.names, 1):
        out += [
            f"  - id: {q.kind[0]}{number:03d}",
            "    languages: [python]",
            "    severity: INFO",
            f"    message: {_yaml('forbidden: ' + name)}",
        ]
        if q.kind == "substring":
            out.append(f"    pattern-regex: {_yaml(re.escape(name))}")
        else:
            module, _, last = name.rpartition(".")
            out += [
                "    pattern-either:",
                f"      - pattern: {name}",
                f"      - pattern: from {module} import {last}",
            ]
    return "\n".join(out) + "\n"
