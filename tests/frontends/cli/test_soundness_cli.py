"""The inputs that once gave a false clean, through the real ``cleantree check``.

Each tree holds a forbidden name in place; the check must exit 1 and print the
exact ``path:line`` where it stands (issue 11; the engine-level cases are in
``tests/analysis/test_soundness.py``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FULLWIDTH_SM = "\uff53\uff4d"

#: (id, module source, forbidden pattern, the line that must be reported)
CASES = [
    ("escape beside a literal needle", 'Y = 1  # sm120\nX = "\\x73m120"\n', "sm120", 2),
    ("backslash-newline in a string", 'x = 1\nX = "sm\\\n120"\n', "sm120", 2),
    ("implicit concatenation", 'x = 1\nX = ("sm"\n     "120")\n', "sm120", 2),
    ("relative import, no space", "from..utils import f as ok\n\n\nok()\n", "pkg.utils.f", 4),
    ("relative import, two spaces", "from  ..utils import f as ok\n\n\nok()\n", "pkg.utils.f", 4),
    ("NFKC identifier", f"def g():\n    return is_{FULLWIDTH_SM}120()\n", "=is_sm120", 2),
    ("continued dotted import", "import os.\\\n    sm120\n", "sm120", 2),
    ("a join wholly on a joined string's second line", 'x = ("a"\n     "sm" "120")\n', "sm120", 2),
]


@pytest.mark.parametrize(
    ("source", "pattern", "line"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_the_cli_reports_the_line_that_remains(
    tmp_path: Path, source: str, pattern: str, line: int
) -> None:
    module = tmp_path / "pkg" / "sub" / "mod.py"
    module.parent.mkdir(parents=True)
    module.write_text(source, encoding="utf-8")
    # the module a qualified pattern names is in the tree (a pattern must name something)
    (tmp_path / "pkg" / "utils.py").write_text("def f():\n    pass\n", encoding="utf-8")
    (tmp_path / "cleantree.toml").write_text(
        f'root = "."\n[[rule]]\nid = "gone"\nfiles = ["pkg/sub/mod.py"]\nforbid = ["{pattern}"]\n',
        encoding="utf-8",
    )
    completed = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "check", "--manifest", "cleantree.toml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"CLEANTREE_CACHE_DIR": "", "PATH": "/usr/bin:/bin"},
    )
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert f"pkg/sub/mod.py:{line}" in completed.stdout, completed.stdout
