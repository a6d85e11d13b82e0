"""What reading non-Python text costs: this tool's model against pygments' lexers.

Issue 34 proposes pygments (name / string / comment per language) as the one model of
non-Python text, shared with the revert guard.  This measures what it would cost on the text
files of a real tree, beside the hand-written model in ``analysis/textfiles.py`` (decoding,
JSON strings, ``#`` comments) that the checker uses now:

    python bench/textlex.py [FOLDER ...] [--max-files N]

Default folders: the site-packages folder on this Python's path.  Prints one Markdown table;
no timing is asserted anywhere.
"""

from __future__ import annotations

import argparse
import site
import sys
import time
from collections.abc import Callable
from pathlib import Path

SUFFIXES = {".yaml", ".yml", ".json", ".ipynb", ".sh", ".toml", ".cfg", ".ini", ".md", ".txt"}
NAMES = {"Makefile", "Dockerfile"}


def text_files(folders: list[Path], limit: int) -> list[tuple[str, bytes]]:
    found: list[tuple[str, bytes]] = []
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if (path.suffix in SUFFIXES or path.name in NAMES) and path.is_file():
                data = path.read_bytes()
                if len(data) < 1_000_000:
                    found.append((str(path), data))
            if len(found) >= limit:
                return found
    return found


def ours(path: str, data: bytes) -> int:
    from pytest_cleantree.analysis.text import split_lines
    from pytest_cleantree.analysis.textfiles import decode_text, json_views, text_comments

    text, _ = decode_text(data)
    lines = split_lines(text)
    views = json_views(path, lines) or ()
    comments = text_comments(path, lines) or ()
    return len(lines) + len(views) + len(comments)


def with_pygments(path: str, data: bytes) -> int:
    from pygments.lexers import get_lexer_for_filename
    from pygments.lexers.special import TextLexer
    from pygments.util import ClassNotFound

    from pytest_cleantree.analysis.textfiles import decode_text

    text, _ = decode_text(data)
    try:
        lexer = get_lexer_for_filename(path, stripnl=False, ensurenl=False)
    except ClassNotFound:  # the fallback: the file as plain text
        lexer = TextLexer()
    return sum(1 for _ in lexer.get_tokens_unprocessed(text))


def measure(name: str, run: Callable[[str, bytes], int], files: list[tuple[str, bytes]]) -> str:
    started = time.perf_counter()
    for path, data in files:
        run(path, data)
    seconds = time.perf_counter() - started
    size = sum(len(data) for _, data in files) / 1e6
    per_mb = seconds / max(size, 1e-9)
    return f"| {name} | {len(files)} | {size:.1f} | {seconds:.3f} | {per_mb:.3f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--max-files", type=int, default=2000)
    args = parser.parse_args()
    folders = args.folders or [Path(p) for p in site.getsitepackages()]
    files = text_files(folders, args.max_files)
    started = time.perf_counter()
    import pygments.lexers  # noqa: F401  (its import, apart)

    imported = time.perf_counter() - started
    print(f"Python {sys.version.split()[0]}; pygments imported in {imported * 1000:.0f} ms\n")
    print("| model | files | MB | seconds | s per MB |")
    print("| --- | --- | --- | --- | --- |")
    ours(*files[0]) if files else None  # warm imports of both, out of the timing
    with_pygments(*files[0]) if files else None
    print(measure("analysis/textfiles.py (decode, JSON strings, # comments)", ours, files))
    print(measure("pygments (lexer by file name, TextLexer fallback)", with_pygments, files))


if __name__ == "__main__":
    main()
