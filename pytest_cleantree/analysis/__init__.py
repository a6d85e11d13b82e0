"""Where do a file's names stand, and what is each occurrence?

The package is layered, each layer importing only those below it (bottom first; the
``layers`` contract of the analysis package in ``pyproject.toml`` is this list):

- :mod:`.comments_base` (what every comment grammar reads with), under
  :mod:`.comments_braces` (``//`` and ``/* */`` languages), :mod:`.comments_js`
  (JavaScript and TypeScript) and :mod:`.comments_script` (Ruby and Perl);
- :mod:`.records` (why a file could not be analysed), :mod:`.breaks` (a needle spelt
  across string breaks), :mod:`.comments` (a text file's comments by its language's
  grammar), :mod:`.codetext` (a pattern no name holds, on the code lines grep finds it
  on), :mod:`.offsets` (lines, offsets and whole words);
- :mod:`.views`: the text in every view a needle can stand in (as the tokenizer reads it);
- :mod:`.text` (lines, pattern sets, which patterns a file may spell: the prefilter),
  :mod:`.deep` (whatever Python compiles is analysed, however nested), :mod:`.bindings`
  (which names a scope binds), :mod:`.allnames` (what a star import takes: ``__all__`` as
  Python computes it), :mod:`.positions` (where a token stands);
- :mod:`.reader`: the one ``ast`` reader, what a binding or expression refers to,
  construct by construct;
- :mod:`.astroid_names`: astroid's independent reading, mapped onto the reader's keys
  (the only astroid importer);
- :mod:`.resolve` (qualified names through imports), :mod:`.pieces` (the partial parse:
  cut a module, parse what can hold an occurrence), :mod:`.decoding` (a Python file's
  bytes to its text, PEP 263), :mod:`.literals` (which line of a joined literal a match
  stands on), :mod:`.parts` (a file's part of a run's pattern list), :mod:`.constructs`
  (the reader's constructs, each with the text tests the fast path asks:
  :data:`.constructs.CONSTRUCTS`), :mod:`.asking` (which patterns of a run's list a file
  is asked, each needle once, each way only where the file may reach it);
- :mod:`.strings` (strings and comments reported), :mod:`.emit` (names reported);
- :mod:`.scan`: the occurrence scan (one ``ast`` walk, kinds and exact positions);
- :mod:`.aliases` (aliases made by assignment), :mod:`.lines` (grep-like line findings and
  the allow comments lines hold), :mod:`.codenames` (a file's code names, the scan's own:
  what the revert guard asks), :mod:`.textfiles` (a file that is not Python, read as its
  language writes it);
- :mod:`.reference`: decode, parse it all, walk it all: the oracle;
- :mod:`.fast`: the reference's answer with the shortcuts; what runs by default.

``CLEANTREE_ENGINE=reference`` runs the reference path instead (for
debugging: when a result looks wrong, it rules the shortcuts out); ``words`` runs the fast
path without its byte test (every Python file decoded and split into words).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from pytest_cleantree.core.findings import FileAnalysis, Finding
from pytest_cleantree.core.model import Pattern

from .codenames import CodeNames, code_names
from .codetext import with_code_text
from .decoding import decode_python
from .fast import analyze_fast, analyze_words
from .reader import absolute_module
from .reference import analyze_reference
from .resolve import module_name_for
from .text import MAX_PARSE_BYTES, is_python_path, split_lines

__all__ = [
    "ENGINE_ENV",
    "MAX_PARSE_BYTES",
    "CodeNames",
    "FileAnalysis",
    "Finding",
    "absolute_module",
    "analyze",
    "analyze_fast",
    "analyze_reference",
    "analyze_words",
    "code_names",
    "decode_python",
    "is_python_path",
    "module_name_for",
    "split_lines",
]

#: set to ``reference`` to analyse every file on the reference path, ``words`` on the fast
#: path without its byte test
ENGINE_ENV = "CLEANTREE_ENGINE"
_ENGINES = {"reference": analyze_reference, "words": analyze_words}


def analyze(
    path: str,
    data: bytes,
    patterns: Sequence[Pattern],
    *,
    comments: bool = True,
    module: str | None = None,
    stars: Mapping[str, frozenset[str]] | None = None,
) -> FileAnalysis:
    """Find every occurrence of ``patterns`` in one file's bytes.

    Python files are analysed by syntax; other files line by line (kind
    ``text``).  A Python file that cannot be decoded or parsed gets a
    ``problem`` and text findings.  ``module`` is the file's dotted module
    name as the tree's layout gives it; without it, the path under the root.
    ``stars`` maps a module of the tree to the names its ``from M import *``
    binds (that patterns end with): a use of such a name after that import is
    an occurrence of ``M.name``.
    """
    engine = with_code_text(_ENGINES.get(os.environ.get(ENGINE_ENV, ""), analyze_fast))
    return engine(path, data, patterns, comments=comments, module=module, stars=stars)
