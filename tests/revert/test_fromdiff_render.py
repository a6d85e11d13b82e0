"""derive_manifest: the whole rendered manifest as golden strings, its round trip through the
core's parser, and the cases a manifest cannot express (noted, never silently dropped)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pytest_cleantree.config.manifest import parse_manifest
from pytest_cleantree.core.checks import iter_checks
from pytest_cleantree.core.model import PatternTier
from pytest_cleantree.revert.apply import ChangedFile, resolve_images
from pytest_cleantree.revert.diff import FromDiffError, parse_unified_diff
from pytest_cleantree.revert.toml import derive_manifest
from pytest_cleantree.run.runner import Runner

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

WHY = '1a2b3c4 "Enable SM120"'

DIFF = """\
diff --git a/pkg/comm.py b/pkg/comm.py
index 1111111..2222222 100644
--- a/pkg/comm.py
+++ b/pkg/comm.py
@@ -1,4 +1,4 @@
-from utils import is_sm100_supported
+from utils import is_sm100_supported, is_sm120_supported
{blank}
-if is_sm100_supported():
-    fuse()
+if is_sm100_supported() or is_sm120_supported():
+    fuse(backend="sm120")
diff --git "a/docs/[draft] *notes*.md" "b/docs/[draft] *notes*.md"
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ "b/docs/[draft] *notes*.md"
@@ -0,0 +1 @@
+Draft notes
diff --git a/pkg/legacy.py b/pkg/legacy.py
deleted file mode 100644
index 4444444..0000000
--- a/pkg/legacy.py
+++ /dev/null
@@ -1,3 +0,0 @@
-def old_path():
-    pass
-LIMIT = 3
diff --git a/pkg/a.py b/pkg/b.py
similarity index 100%
rename from pkg/a.py
rename to pkg/b.py
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
index 5555555..6666666
--- a/run.sh
+++ b/run.sh
@@ -1,2 +1,3 @@
 #!/bin/sh
+export NCCL_MIN_NCHANNELS=8
 exec python serve.py
diff --git a/logo.png b/logo.png
index 7777777..8888888 100644
Binary files a/logo.png and b/logo.png differ
diff --git a/pkg/new_kernel.py b/pkg/new_kernel.py
new file mode 100644
index 0000000..9999999
--- /dev/null
+++ b/pkg/new_kernel.py
@@ -0,0 +1 @@
+SM120 = True
""".replace("{blank}", " ")

TREE = {
    "pkg/comm.py": (
        "from utils import is_sm100_supported, is_sm120_supported\n\n"
        "if is_sm100_supported() or is_sm120_supported():\n"
        '    fuse(backend="sm120")\n'
    ),
    "pkg/b.py": "A = 1\n",
    "run.sh": "#!/bin/sh\nexport NCCL_MIN_NCHANNELS=8\nexec python serve.py\n",
}

HEADER = """\
# What a complete revert of this change means, derived by `cleantree from-diff`:
#   1a2b3c4 "Enable SM120"
# experiment-lines: the lines it added (whole lines, compared stripped); none was in
# its file before.  introduced-names: the names it introduced into a file's code
# (`=name` is that whole name); none was a name there before.  removed-lines: the
# lines it removed, expected back as many times as before (`line*N:`); repeated-lines:
# a line it wrote again, no more often than before.  Review, then commit.
"""


def changed_files(diff: str = DIFF, tree: dict[str, str] | None = None) -> list[ChangedFile]:
    files = TREE if tree is None else tree

    def read(path: str) -> bytes | None:
        return files[path].encode() if path in files else None

    return resolve_images(parse_unified_diff(diff), read)


def test_every_kind_of_change() -> None:
    text = derive_manifest(changed_files(), expect_removed=False, text_rules=True, why=WHY)
    assert text == HEADER + (
        """\
#
# Not checked:
#   logo.png: a binary file changed: its contents cannot be checked

[[rule]]
id = "absent-docs-draft-notes-.md"
absent = ["docs/[[]draft] [*]notes[*].md"]
why = "1a2b3c4 \\"Enable SM120\\": the change added this file"

[[rule]]
id = "restore-pkg-a.py"
files = ["pkg/a.py"]
expect = [
    "=A",
]
must_exist = true
why = "1a2b3c4 \\"Enable SM120\\": the change renamed it to pkg/b.py"

[[rule]]
id = "absent-pkg-b.py"
absent = ["pkg/b.py"]
why = "1a2b3c4 \\"Enable SM120\\": the change renamed pkg/a.py to it"

[[rule]]
id = "experiment-lines-pkg-comm.py"
files = ["pkg/comm.py"]
forbid_lines = [
    "from utils import is_sm100_supported, is_sm120_supported",
    "if is_sm100_supported() or is_sm120_supported():",
    "fuse(backend=\\"sm120\\")",
]
why = "1a2b3c4 \\"Enable SM120\\": an experiment line: the change added it"

[[rule]]
id = "introduced-names-pkg-comm.py"
files = ["pkg/comm.py"]
forbid = [
    "=backend",
    "=is_sm120_supported",
]
kinds = ["assignment", "call", "condition", "definition", "import", "reference"]
unless_lines = [
    "from utils import is_sm100_supported, is_sm120_supported",
    "if is_sm100_supported() or is_sm120_supported():",
    "fuse(backend=\\"sm120\\")",
]
why = "1a2b3c4 \\"Enable SM120\\": an introduced name: new in this file's code"

[[rule]]
id = "removed-lines-pkg-comm.py"
files = ["pkg/comm.py"]
expect = [
    "line:from utils import is_sm100_supported",
    "line:if is_sm100_supported():",
    "line:fuse()",
]
must_exist = true
why = "1a2b3c4 \\"Enable SM120\\": a line the change removed: a complete revert brings it back"

[[rule]]
id = "restore-pkg-legacy.py"
files = ["pkg/legacy.py"]
expect = [
    "=LIMIT",
    "=old_path",
]
must_exist = true
why = "1a2b3c4 \\"Enable SM120\\": the change deleted this file"

[[rule]]
id = "absent-pkg-new_kernel.py"
absent = ["pkg/new_kernel.py"]
why = "1a2b3c4 \\"Enable SM120\\": the change added this file"

[[rule]]
id = "experiment-lines-run.sh"
files = ["run.sh"]
forbid_lines = [
    "export NCCL_MIN_NCHANNELS=8",
]
why = "1a2b3c4 \\"Enable SM120\\": an experiment line: the change added it"

[[rule]]
id = "introduced-names-run.sh"
files = ["run.sh"]
forbid = [
    "=NCCL_MIN_NCHANNELS",
]
unless_lines = [
    "export NCCL_MIN_NCHANNELS=8",
]
why = "1a2b3c4 \\"Enable SM120\\": an introduced name: new in this file's code"

[[rule]]
id = "mode-run.sh"
files = ["run.sh"]
mode = "100644"
must_exist = true
why = "1a2b3c4 \\"Enable SM120\\": the change made its mode 100755: a complete revert gives it back"
"""
    )


def test_the_manifest_round_trips_through_the_core_parser() -> None:
    text = derive_manifest(changed_files(), expect_removed=False, text_rules=True, why=WHY)
    manifest = parse_manifest(text, "cleantree.toml")
    assert [(r.id, r.files, r.absent) for r in manifest.rules] == [
        ("absent-docs-draft-notes-.md", (), ("docs/[[]draft] [*]notes[*].md",)),
        ("restore-pkg-a.py", ("pkg/a.py",), ()),
        ("absent-pkg-b.py", (), ("pkg/b.py",)),
        ("experiment-lines-pkg-comm.py", ("pkg/comm.py",), ()),
        ("introduced-names-pkg-comm.py", ("pkg/comm.py",), ()),
        ("removed-lines-pkg-comm.py", ("pkg/comm.py",), ()),
        ("restore-pkg-legacy.py", ("pkg/legacy.py",), ()),
        ("absent-pkg-new_kernel.py", (), ("pkg/new_kernel.py",)),
        ("experiment-lines-run.sh", ("run.sh",), ()),
        ("introduced-names-run.sh", ("run.sh",), ()),
        ("mode-run.sh", ("run.sh",), ()),
    ]
    assert manifest.rules[-1].mode == "100644"  # a mode is content (issue 43)
    tiers = [{p.tier for p in rule.patterns} for rule in manifest.rules if rule.patterns]
    line, exact = {PatternTier.LINE}, {PatternTier.EXACT}
    # a names rule also holds the experiment lines it must not report again (unless_lines)
    assert tiers == [exact, line, exact | line, line, exact, line, exact | line]
    assert [r.must_exist for r in manifest.rules if r.id.startswith("restore-")] == [True, True]
    assert manifest.rules[5].must_exist  # the removed lines of a file gone again: missing
    assert manifest.rules[3].why == f"{WHY}: an experiment line: the change added it"


def test_the_same_input_renders_the_same_text_in_any_order() -> None:
    files = changed_files()
    first = derive_manifest(files, expect_removed=True, text_rules=True, why=WHY)
    again = derive_manifest(files[::-1], expect_removed=True, text_rules=True, why=WHY)
    assert first == again


def test_a_root_keeps_only_the_files_inside_it_relative_to_it() -> None:
    text = derive_manifest(
        changed_files(), expect_removed=False, text_rules=True, why=WHY, root="src", under="pkg/"
    )
    assert text == HEADER + (
        """\
#
# Not checked:
#   docs/[draft] *notes*.md: outside the root 'pkg': not checked
#   logo.png: outside the root 'pkg': not checked
#   run.sh: outside the root 'pkg': not checked

root = "src"

[[rule]]
id = "restore-a.py"
files = ["a.py"]
expect = [
    "=A",
]
must_exist = true
why = "1a2b3c4 \\"Enable SM120\\": the change renamed it to b.py"

[[rule]]
id = "absent-b.py"
absent = ["b.py"]
why = "1a2b3c4 \\"Enable SM120\\": the change renamed a.py to it"

[[rule]]
id = "experiment-lines-comm.py"
files = ["comm.py"]
forbid_lines = [
    "from utils import is_sm100_supported, is_sm120_supported",
    "if is_sm100_supported() or is_sm120_supported():",
    "fuse(backend=\\"sm120\\")",
]
why = "1a2b3c4 \\"Enable SM120\\": an experiment line: the change added it"

[[rule]]
id = "introduced-names-comm.py"
files = ["comm.py"]
forbid = [
    "=backend",
    "=is_sm120_supported",
]
kinds = ["assignment", "call", "condition", "definition", "import", "reference"]
unless_lines = [
    "from utils import is_sm100_supported, is_sm120_supported",
    "if is_sm100_supported() or is_sm120_supported():",
    "fuse(backend=\\"sm120\\")",
]
why = "1a2b3c4 \\"Enable SM120\\": an introduced name: new in this file's code"

[[rule]]
id = "removed-lines-comm.py"
files = ["comm.py"]
expect = [
    "line:from utils import is_sm100_supported",
    "line:if is_sm100_supported():",
    "line:fuse()",
]
must_exist = true
why = "1a2b3c4 \\"Enable SM120\\": a line the change removed: a complete revert brings it back"

[[rule]]
id = "restore-legacy.py"
files = ["legacy.py"]
expect = [
    "=LIMIT",
    "=old_path",
]
must_exist = true
why = "1a2b3c4 \\"Enable SM120\\": the change deleted this file"

[[rule]]
id = "absent-new_kernel.py"
absent = ["new_kernel.py"]
why = "1a2b3c4 \\"Enable SM120\\": the change added this file"
"""
    )


SWAP = """\
--- a/fuse.py
+++ b/fuse.py
@@ -1,2 +1,2 @@
-from kernels import sm100_fusion
-run(sm100_fusion)
+from kernels import sm120_fusion
+run(sm120_fusion)
--- a/env.sh
+++ b/env.sh
@@ -1 +1 @@
-export NCCL_BUFFSIZE=4
+export NCCL_MIN_NCHANNELS=8
"""


def test_expect_removed_checks_the_revert_both_ways_and_no_text_skips_other_files() -> None:
    tree = {
        "fuse.py": "from kernels import sm120_fusion\nrun(sm120_fusion)\n",
        "env.sh": "export NCCL_MIN_NCHANNELS=8\n",
    }
    files = changed_files(SWAP, tree)
    text = derive_manifest(files, expect_removed=True, text_rules=False, why="the patch x.diff")
    assert text == (
        """\
# What a complete revert of this change means, derived by `cleantree from-diff`:
#   the patch x.diff
# experiment-lines: the lines it added (whole lines, compared stripped); none was in
# its file before.  introduced-names: the names it introduced into a file's code
# (`=name` is that whole name); none was a name there before.  removed-lines: the
# lines it removed, expected back as many times as before (`line*N:`); repeated-lines:
# a line it wrote again, no more often than before.  Review, then commit.
#
# Not checked:
#   env.sh: not Python: not checked (--no-text)

[[rule]]
id = "experiment-lines-fuse.py"
files = ["fuse.py"]
forbid_lines = [
    "from kernels import sm120_fusion",
    "run(sm120_fusion)",
]
why = "the patch x.diff: an experiment line: the change added it"

[[rule]]
id = "introduced-names-fuse.py"
files = ["fuse.py"]
forbid = [
    "=sm120_fusion",
]
expect = [
    "=sm100_fusion",
]
kinds = ["assignment", "call", "condition", "definition", "import", "reference"]
unless_lines = [
    "from kernels import sm120_fusion",
    "run(sm120_fusion)",
]
why = "the patch x.diff: an introduced name: new in this file's code; removed names expected back"

[[rule]]
id = "removed-lines-fuse.py"
files = ["fuse.py"]
expect = [
    "line:from kernels import sm100_fusion",
    "line:run(sm100_fusion)",
]
must_exist = true
why = "the patch x.diff: a line the change removed: a complete revert brings it back"
"""
    )


def test_a_change_that_only_removes_lines_expects_them_back() -> None:
    """Issue 43: removed lines are checkable, ``--expect-removed`` or not (that option is
    about names)."""
    diff = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1 @@\n x = 1\n-legacy_fusion()\n"
    files = changed_files(
        diff + "--- a/n.py\n+++ b/n.py\n@@ -1 +1 @@\n-a = 1\n+a = new\n",
        {
            "m.py": "x = 1\n",
            "n.py": "a = new\n",
        },
    )
    text = derive_manifest(files, expect_removed=False, text_rules=True, why="w")
    assert "added no line" not in text
    assert (
        '[[rule]]\nid = "removed-lines-m.py"\nfiles = ["m.py"]\nexpect = [\n'
        '    "line:legacy_fusion()",\n]\nmust_exist = true\n'
    ) in text


def test_a_python_file_that_does_not_parse_is_checked_by_its_lines() -> None:
    diff = "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x = 1\n+x = (turbo_mode\n"
    files = changed_files(diff, {"m.py": "x = (turbo_mode\n"})
    text = derive_manifest(files, expect_removed=False, text_rules=True, why="w")
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert (
        f"#   m.py: not valid Python {version} syntax ('(' was never closed at line 1): its lines "
        "are checked, not its names\n"
    ) in text
    assert 'forbid_lines = [\n    "x = (turbo_mode",\n]' in text
    assert "forbid = " not in text  # a name pattern would make the check parse it, and fail
    assert derive_manifest(files, expect_removed=False, text_rules=False, why="w") == text


def test_nothing_to_check_is_an_error_naming_each_file() -> None:
    diff = (
        "diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n"
        "diff --git a/l b/l\nindex 1..2 120000\n--- a/l\n+++ b/l\n@@ -1 +1 @@\n-x\n+y\n"
    )
    with pytest.raises(FromDiffError) as info:
        derive_manifest(changed_files(diff, {}), expect_removed=False, text_rules=True, why="w")
    assert str(info.value) == (
        "the change leaves nothing a manifest can check (i.png: a binary file changed: its "
        "contents cannot be checked; l: a symbolic link changed: its target cannot be checked)"
    )


def test_colliding_ids_unrepresentable_paths_and_escaping() -> None:
    # git quotes a path with a quote, tab, backslash or non-ASCII byte (here not UTF-8)
    diff = "".join(
        f"diff --git {a} {b}\nnew file mode 100644\n"
        for a, b in [
            ("a/a-b.py", "b/a-b.py"),
            ("a/a/b.py", "b/a/b.py"),
            ('"a/q\\"uote\\tx.py"', '"b/q\\"uote\\tx.py"'),
            ('"a/back\\\\slash.py"', '"b/back\\\\slash.py"'),
            ('"a/\\377.py"', '"b/\\377.py"'),
        ]
    )
    text = derive_manifest(
        changed_files(diff, {}), expect_removed=False, text_rules=True, why='say "why"\n'
    )
    document = tomllib.loads(text)
    assert [(r["id"], r["absent"]) for r in document["rule"]] == [
        ("absent-a-b.py", ["a-b.py"]),
        ("absent-a-b.py-2", ["a/b.py"]),
        ("absent-q-uote-x.py", ['q"uote\tx.py']),
    ]
    assert document["rule"][0]["why"] == 'say "why"\n: the change added this file'
    assert "#   \\xff.py: a path a manifest cannot name: not checked\n" in text
    assert "#   back\\slash.py: a path a manifest cannot name: not checked\n" in text
    assert '#   say "why"\\x0a\n' in text


def test_bracketed_glob_characters_match_only_the_file_itself(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "[draft] *notes*.md").write_text("x")
    (docs / "d notesX.md").write_text("y")
    text = derive_manifest(changed_files(), expect_removed=False, text_rules=True, why=WHY)
    manifest = parse_manifest(text, str(tmp_path / "cleantree.toml"))
    (rule,) = [r for r in manifest.rules if r.id == "absent-docs-draft-notes-.md"]
    runner = Runner(manifest)
    try:
        (result,) = runner.run(list(iter_checks([rule]))).values()
    finally:
        runner.close()
    assert result.present == ("docs/[draft] *notes*.md",)
