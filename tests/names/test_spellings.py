"""Spellings of a qualified pattern through re-exports, read through a real local Source."""

from __future__ import annotations

from pathlib import Path

from pytest_cleantree.config.layout import parse_layout
from pytest_cleantree.names.spellings import StarSite, import_bases, pattern_spellings
from pytest_cleantree.sources.local import LocalSource, resolve_local_root

FILES = {
    "python/sglang/__init__.py": "",
    "python/sglang/srt/__init__.py": "",
    "python/sglang/srt/utils/__init__.py": "from sglang.srt.utils.common import *\n",
    "python/sglang/srt/utils/common.py": "def is_sm120_supported():\n    return 1\n",
}
DEFINED = "sglang.srt.utils.common.is_sm120_supported"
REEXPORTED = "sglang.srt.utils.is_sm120_supported"


def test_both_sites_give_the_same_spellings_and_the_star_line(tmp_path: Path) -> None:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    layout = parse_layout(FILES)
    named = {path: name for path in FILES if (name := layout.module_name(path))}
    bases = import_bases(layout, named, ())
    assert bases == ["python", ""]
    source = LocalSource(resolve_local_root("", tmp_path))

    found = pattern_spellings(source, [DEFINED, REEXPORTED, "other.name"], bases)

    assert found.names[DEFINED] == found.names[REEXPORTED] == {DEFINED, REEXPORTED}
    assert found.names["other.name"] == {"other.name"}
    star = StarSite(
        "python/sglang/srt/utils/__init__.py",
        1,
        "sglang.srt.utils.common",
        REEXPORTED,
        "from sglang.srt.utils.common import *",
    )
    assert found.stars[DEFINED] == found.stars[REEXPORTED] == (star,)
