"""The one walk, the one read and the one needle test, for the local source and for servers.

The local source imports this package; the SSH source sends its modules' text to the server
(:data:`.serve.MODULES`), where the host's Python (3.6 or later) runs :func:`.serve.main`
on a request read from stdin.  So it stays Python 3.6 syntax, stdlib only, importing
nothing of the package, and cheap to start (``typing`` alone costs a 3.6 interpreter
10 ms: it is read by the type checker only).  Paths are bytes on the server (names need
not be UTF-8) and text locally: the walk and the read take either, and answer in the
protocol's records (:mod:`.wire`), which every source hands to the same consumers.

The package is three modules by responsibility, each re-exported here: :mod:`.walk` (the
root and the walk), :mod:`.read` (one file's read record) and :mod:`.needle` (the needle
test); :mod:`.serve` answers requests with them on a server.
"""

from .needle import (
    BREAK_SEARCHES,
    NESTED_HEAD_MAX,
    ONE_LETTER_ESCAPES,
    STRING_ESCAPE,
    YAML_LETTERS,
    could_spell,
    made_chars,
    refused_as_text,
    spelt_across_breaks,
    unescape,
)
from .read import (
    enc,
    git_mode,
    inside,
    lexists,
    needle_pairs,
    read_one,
    real_folder,
    real_path,
    with_needles,
)
from .walk import MODULE_PREFIX, check_folder, find_module, find_module_spec, kind_of, resolve, walk

__all__ = [
    "BREAK_SEARCHES",
    "MODULE_PREFIX",
    "NESTED_HEAD_MAX",
    "ONE_LETTER_ESCAPES",
    "STRING_ESCAPE",
    "YAML_LETTERS",
    "check_folder",
    "could_spell",
    "enc",
    "find_module",
    "find_module_spec",
    "git_mode",
    "inside",
    "kind_of",
    "lexists",
    "made_chars",
    "needle_pairs",
    "read_one",
    "real_folder",
    "real_path",
    "refused_as_text",
    "resolve",
    "spelt_across_breaks",
    "unescape",
    "walk",
    "with_needles",
]
