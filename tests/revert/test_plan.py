"""The rules a change means, file by file (``revert/plan.py``): planned from file changes built
here (no diff text, no git), and turned into rules without a manifest's text."""

from __future__ import annotations

import sys

import pytest

from pytest_cleantree.core.model import CODE_KINDS, DEFAULT_KINDS
from pytest_cleantree.revert.apply import ChangedFile
from pytest_cleantree.revert.diff import FileChange, FromDiffError, Hunk, Status
from pytest_cleantree.revert.plan import (
    Plan,
    PlannedRule,
    literal_path,
    plan_changes,
    root_folder,
    rules_from_plan,
    unique_id,
)

LINES_WHY = "an experiment line: the change added it"
BLAMED_WHY = "an experiment line: git blame gives it to the change"
NAMES_WHY = "an introduced name: new in this file's code"
REMOVED_WHY = "a line the change removed: a complete revert brings it back"
REPEATED_WHY = (
    "a line the change wrote again (its text stood in the file before): a complete revert "
    "brings its count back"
)
NOTHING_CHANGED_COUNT = (
    "changed, but no line's count and no name changed (lines moved, or whitespace inside "
    "lines changed): not checked (`check --reverted` sees moved lines by git blame)"
)
VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"


def hunk(*lines: str) -> Hunk:
    """A hunk from ``" text"``, ``"-text"`` and ``"+text"`` lines, starting at line 1."""
    ops = tuple((line[0], line[1:]) for line in lines)
    old = sum(op != "+" for op, _ in ops)
    new = sum(op != "-" for op, _ in ops)
    return Hunk(1, old, 1, new, ops)


def modified(path: str, before: bytes | str, after: bytes | str, *lines: str) -> ChangedFile:
    change = FileChange(path, path, Status.MODIFIED, (hunk(*lines),) if lines else ())
    return ChangedFile(
        change,
        before=before.encode() if isinstance(before, str) else before,
        after=after.encode() if isinstance(after, str) else after,
    )


def plan(*changes: ChangedFile, under: str = "", expect_removed: bool = False) -> Plan:
    return plan_changes(
        changes, expect_removed=expect_removed, text_rules=True, under=under, blame=None
    )


TURBO_BEFORE = "import os\n\ndef run():\n    return os.getcwd()\n"
TURBO_AFTER = "import os\nimport turbo_lib\n\ndef run():\n    return turbo_lib.fast(os.getcwd())\n"
TURBO = (
    " import os",
    "+import turbo_lib",
    " ",
    " def run():",
    "-    return os.getcwd()",
    "+    return turbo_lib.fast(os.getcwd())",
)


# --------------------------------------------------------------------------- paths and ids


@pytest.mark.parametrize(
    ("under", "prefix"),
    [
        ("", ""),
        (".", ""),
        ("./", ""),
        ("/", ""),
        ("pkg", "pkg/"),
        ("pkg/", "pkg/"),
        ("/pkg/sub/", "pkg/sub/"),
        ("./pkg", "pkg/"),
        ("././pkg", "pkg/"),
        ("pkg\\sub", "pkg/sub/"),
        (".\\pkg", "pkg/"),
        ("XLAX", "XLAX/"),  # only slashes are stripped
    ],
)
def test_root_folder_is_a_path_prefix(under: str, prefix: str) -> None:
    assert root_folder(under) == prefix


@pytest.mark.parametrize(
    ("path", "literal"),
    [
        ("pkg/mod.py", "pkg/mod.py"),
        ("a*b.py", "a[*]b.py"),
        ("what?.md", "what[?].md"),
        ("[draft] notes.md", "[[]draft] notes.md"),
        ("**/x?[y]", "[*][*]/x[?][[]y]"),
    ],
)
def test_literal_path_brackets_glob_characters(path: str, literal: str) -> None:
    assert literal_path(path) == literal


def test_unique_id_names_what_the_rule_checks_and_numbers_repeats() -> None:
    used: set[str] = set()
    lines = PlannedRule("pkg/mod.py", "lines")
    assert unique_id(lines, used) == "experiment-lines-pkg-mod.py"
    assert unique_id(lines, used) == "experiment-lines-pkg-mod.py-2"
    assert unique_id(lines, used) == "experiment-lines-pkg-mod.py-3"
    assert unique_id(PlannedRule("pkg/mod.py", "names"), used) == "introduced-names-pkg-mod.py"
    assert unique_id(PlannedRule("a b", "removed"), used) == "removed-lines-a-b"
    assert unique_id(PlannedRule("new.py", "absent"), used) == "absent-new.py"
    assert unique_id(PlannedRule("old.py", "restore"), used) == "restore-old.py"
    assert unique_id(PlannedRule("***", "absent"), used) == "absent-file"
    assert used >= {"experiment-lines-pkg-mod.py-3", "absent-file"}


def test_unique_id_keeps_a_long_path_whole() -> None:
    path = "a/" * 40 + "mod.py"
    assert (
        unique_id(PlannedRule(path, "lines"), set()) == "experiment-lines-" + "a-" * 40 + "mod.py"
    )


# --------------------------------------------------------------------------- modified files


def test_a_modified_python_file_has_its_lines_and_its_names() -> None:
    got = plan(modified("pkg/comm.py", TURBO_BEFORE, TURBO_AFTER, *TURBO))
    assert got.rules == [
        PlannedRule(
            "pkg/comm.py",
            "lines",
            lines=("import turbo_lib", "return turbo_lib.fast(os.getcwd())"),
            why=LINES_WHY,
        ),
        PlannedRule("pkg/comm.py", "names", ("fast", "turbo_lib"), why=NAMES_WHY, code=True),
        PlannedRule("pkg/comm.py", "removed", expect=("line:return os.getcwd()",), why=REMOVED_WHY),
    ]
    assert got.notes == []


def test_experiment_lines_are_new_texts_once_each_in_order() -> None:
    before = "a = 1\nb = 2\n"
    after = "b = 2\nzeta = 3\n\n  a = 1\nzeta = 3\nalpha = 4\n"
    got = plan(
        modified(
            "m.txt",
            before,
            after,
            "-a = 1",
            " b = 2",
            "+zeta = 3",  # new
            "+",  # blank: nothing to forbid
            "+  a = 1",  # moved (and indented): the file had its text
            "+zeta = 3",  # the same text again
            "+alpha = 4",
        )
    )
    assert got.rules == [
        PlannedRule("m.txt", "lines", lines=("zeta = 3", "alpha = 4"), why=LINES_WHY)
    ]


def test_a_line_holding_a_carriage_return_is_not_forbidden() -> None:
    got = plan(modified("m.txt", "a\n", "a\nx\ry\nnew\n", " a", "+x\ry", "+new"))
    assert got.rules[0].lines == ("new",)


def test_a_file_that_only_lost_lines_has_them_expected_back() -> None:
    """Issue 43: removed lines are checkable, ``expect_removed`` (names) or not."""
    before = "import os\nimport turbo_lib\n"
    after = "import os\n"
    change = modified("m.py", before, after, " import os", "-import turbo_lib")
    got = plan(change)
    assert got.rules == [
        PlannedRule("m.py", "removed", expect=("line:import turbo_lib",), why=REMOVED_WHY)
    ]
    assert got.notes == []


def test_removed_lines_are_expected_back_with_their_count_before() -> None:
    """2 of the 6 ``block.sync();`` lines of a header removed: 6 are expected back."""
    before = "void f() {\n" + "    block.sync();\n    step();\n" * 6 + "}\n"
    after = before.replace("    block.sync();\n    step();\n", "    step();\n", 2)
    change = modified("k.cuh", before, after, " void f() {", "-    block.sync();", "     step();")
    got = plan(change)
    assert got.rules == [
        PlannedRule("k.cuh", "removed", expect=("line*6:block.sync();",), why=REMOVED_WHY)
    ]


def test_a_known_line_written_again_may_stand_no_more_often_than_before() -> None:
    """Without blame, a line whose text the file had is counted: no more than before."""
    before = "a\nsync\nb\n"
    after = "a\nsync\nb\nsync\n"
    change = modified("run.sh", before, after, " b", "+sync")
    assert plan(change).rules == [
        PlannedRule("run.sh", "repeated", ("line*1:sync",), why=REPEATED_WHY)
    ]
    # with blame, blame pins it: a later commit's line of that text is not the change's
    blame = Blamer()
    got = plan_changes([change], expect_removed=False, text_rules=True, under="", blame=blame)
    assert got.rules == [PlannedRule("run.sh", "lines", (), why=BLAMED_WHY)]


def test_a_change_of_blank_lines_alone_is_compared_as_such() -> None:
    """An added blank line is counted (``line*N:``); with blame, pinned where blame gives it
    (a count would report every blank line of the file)."""
    change = modified("m.py", "x = 1\n", "x = 1\n\n", " x = 1", "+")
    got = plan(change)
    assert got.rules == [PlannedRule("m.py", "repeated", ("line*1:",), why=REPEATED_WHY)]
    blame = Blamer((2, ""))
    got = plan_changes([change], expect_removed=False, text_rules=True, under="", blame=blame)
    assert got.rules == [PlannedRule("m.py", "lines", ("line@2:",), why=BLAMED_WHY)]
    assert blame.blanks == [True]


def test_removed_names_are_expected_back_when_asked() -> None:
    before = "import os\nimport turbo_lib\n"
    change = modified("m.py", before, "import os\n", " import os", "-import turbo_lib")
    got = plan(change, expect_removed=True)
    assert got.rules == [
        PlannedRule(
            "m.py",
            "names",
            (),
            ("turbo_lib",),
            why=NAMES_WHY + "; removed names expected back",
            code=True,
        ),
        PlannedRule("m.py", "removed", expect=("line:import turbo_lib",), why=REMOVED_WHY),
    ]
    assert got.notes == []


def test_a_change_that_moves_lines_alone_is_noted() -> None:
    change = modified("m.py", "x = 1\ny = 2\n", "y = 2\nx = 1\n", "-x = 1", " y = 2", "+x = 1")
    other = modified("n.txt", "", "new\n", "+new")
    for expect_removed in (False, True):
        got = plan(change, other, expect_removed=expect_removed)
        assert got.notes == [("m.py", NOTHING_CHANGED_COUNT)]


def test_a_shell_script_has_its_tokens_as_names_not_code() -> None:
    got = plan(
        modified(
            "run.sh", "exec x\n", "export TURBO_MODE=1\nexec x\n", "+export TURBO_MODE=1", " exec x"
        )
    )
    assert got.rules == [
        PlannedRule("run.sh", "lines", lines=("export TURBO_MODE=1",), why=LINES_WHY),
        PlannedRule("run.sh", "names", ("TURBO_MODE",), why=NAMES_WHY, code=False),
    ]
    assert got.notes == []


def test_prose_has_lines_and_no_names() -> None:
    got = plan(
        modified("notes.md", "Intro\n", "Intro\nTurbo mode here\n", " Intro", "+Turbo mode here")
    )
    assert got.rules == [
        PlannedRule("notes.md", "lines", lines=("Turbo mode here",), why=LINES_WHY)
    ]
    assert got.notes == []


def test_without_text_rules_a_file_that_is_not_python_is_noted() -> None:
    changes = [
        modified("run.sh", "", "export TURBO=1\n", "+export TURBO=1"),
        modified("m.py", "", "turbo_on = 1\n", "+turbo_on = 1"),
    ]
    got = plan_changes(changes, expect_removed=False, text_rules=False, under="", blame=None)
    assert got.notes == [("run.sh", "not Python: not checked (--no-text)")]
    assert [(rule.path, rule.action) for rule in got.rules] == [
        ("m.py", "lines"),
        ("m.py", "names"),
    ]


def test_python_that_does_not_parse_has_its_lines_checked_not_its_names() -> None:
    got = plan(modified("m.py", "x = 1\n", "x = 1\ndef turbo(:\n", " x = 1", "+def turbo(:"))
    assert got.rules == [PlannedRule("m.py", "lines", lines=("def turbo(:",), why=LINES_WHY)]
    [(path, note)] = got.notes
    assert path == "m.py"
    assert note.startswith(f"not valid Python {VERSION} syntax (")
    assert " at line 2): its lines are checked, not its names" in note


def test_python_that_does_not_decode_has_its_lines_checked_not_its_names() -> None:
    got = plan(modified("m.py", b"x = 1\n", b"x = 1\ny = '\xff'\n", " x = 1", "+y = '\udcff'"))
    [(path, note)] = got.notes
    assert path == "m.py"
    assert note.startswith(f"not valid Python {VERSION} syntax (")
    assert "utf-8" in note
    assert note.endswith("): its lines are checked, not its names")
    assert [rule.action for rule in got.rules] == ["lines"]


def test_a_python_line_is_forbidden_as_the_check_decodes_it() -> None:
    before = "# -*- coding: latin-1 -*-\nx = 1\n".encode("latin-1")
    after = "# -*- coding: latin-1 -*-\nx = 1\nname = 'caf\xe9'\n".encode("latin-1")
    # the diff's text holds the byte as a lone surrogate; the check reads the coding line
    got = plan(modified("m.py", before, after, " x = 1", "+name = 'caf\udce9'"))
    assert got.rules[0] == PlannedRule("m.py", "lines", lines=("name = 'caf\xe9'",), why=LINES_WHY)


def test_a_line_of_a_file_read_as_utf8_keeps_its_surrogate() -> None:
    after = "x = 1\nname = 'caf\xe9'\n".encode("latin-1")
    got = plan(modified("notes.txt", b"x = 1\n", after, " x = 1", "+name = 'caf\udce9'"))
    assert got.rules[0].lines == ("name = 'caf\udce9'",)


def test_a_moved_line_is_known_as_the_check_decodes_the_file_before() -> None:
    before = "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n".encode("latin-1")
    after = "# -*- coding: latin-1 -*-\nx = 1\nname = 'caf\xe9'\n".encode("latin-1")
    change = modified(
        "m.py",
        before,
        after,
        " # -*- coding: latin-1 -*-",
        "+x = 1",
        "-name = 'caf\udce9'",
        "+name = 'caf\udce9'",
    )
    assert plan(change).rules[0].lines == ("x = 1",)


def test_a_python_file_whose_lines_the_coding_splits_keeps_the_diff_s_text() -> None:
    # in UTF-7, "+AAo-" is a line break: the check's lines and the diff's do not pair up
    before = b"# coding: utf-7\nx = 1\n"
    after = b"# coding: utf-7\nx = 1\ny = 1  # note+AAo-turbo = 2\n"
    got = plan(modified("m.py", before, after, " x = 1", "+y = 1  # note+AAo-turbo = 2"))
    assert got.rules[0].lines == ("y = 1  # note+AAo-turbo = 2",)
    assert got.rules[1].forbid == ("turbo",)


def test_a_python_line_with_a_lone_carriage_return_is_not_forbidden() -> None:
    # the check splits the line in two at the carriage return; the diff keeps it whole
    before = "# -*- coding: latin-1 -*-\nx = 1\n".encode("latin-1")
    after = "# -*- coding: latin-1 -*-\nx = 1\ny = 'caf\xe9'\rz = 2\nlast = 3\n".encode("latin-1")
    got = plan(modified("m.py", before, after, " x = 1", "+y = 'caf\udce9'\rz = 2", "+last = 3"))
    assert got.rules[0].lines == ("last = 3",)


def test_a_file_whose_text_before_is_unknown_has_every_name_introduced() -> None:
    python = FileChange("m.py", "m.py", Status.MODIFIED, (hunk("+turbo_on = fast_path"),))
    shell = FileChange("run.sh", "run.sh", Status.MODIFIED, (hunk("+export TURBO_MODE=1"),))
    got = plan(
        ChangedFile(python, after=b"turbo_on = fast_path\n"),
        ChangedFile(shell, after=b"export TURBO_MODE=1\n"),
    )
    assert got.rules == [
        PlannedRule("m.py", "lines", lines=("turbo_on = fast_path",), why=LINES_WHY),
        PlannedRule("m.py", "names", ("fast_path", "turbo_on"), why=NAMES_WHY, code=True),
        PlannedRule("run.sh", "lines", lines=("export TURBO_MODE=1",), why=LINES_WHY),
        PlannedRule("run.sh", "names", ("TURBO_MODE",), why=NAMES_WHY),
    ]


def test_a_name_the_file_had_before_is_not_introduced() -> None:
    before = "export TURBO_MODE=0\n"
    after = "export TURBO_MODE=1\nexport FAST_MODE=1\n"
    lines = ("-export TURBO_MODE=0", "+export TURBO_MODE=1", "+export FAST_MODE=1")
    got = plan(modified("run.sh", before, after, *lines))
    assert got.rules[1] == PlannedRule("run.sh", "names", ("FAST_MODE",), why=NAMES_WHY)


def test_a_file_s_names_are_its_language_s() -> None:
    before = "jobs:\n"
    after = "jobs:\n  turbo_cache: the words of a value\n"
    got = plan(modified("ci.yml", before, after, " jobs:", "+  turbo_cache: the words of a value"))
    assert got.rules[1] == PlannedRule("ci.yml", "names", ("turbo_cache",), why=NAMES_WHY)
    assert got.notes == []


def test_python_with_an_unknown_coding_has_its_lines_checked_not_its_names() -> None:
    before = b"# coding: no-such-codec\nx = 1\n"
    after = b"# coding: no-such-codec\nx = 1\nturbo = 2\n"
    got = plan(modified("m.py", before, after, " x = 1", "+turbo = 2"))
    [(_, note)] = got.notes
    assert note.startswith(f"not valid Python {VERSION} syntax (")
    # the reason ends with the coding's name: no line to give
    assert note.endswith("no-such-codec): its lines are checked, not its names")


# --------------------------------------------------------------------------- blame


class Blamer:
    """A blame that answers fixed lines and records what it was asked."""

    def __init__(self, *found: tuple[int, str]) -> None:
        self.found = list(found)
        self.asked: list[tuple[str, frozenset[str], bytes | None]] = []
        self.blanks: list[bool] = []

    def __call__(
        self, path: str, introduced: frozenset[str], before: bytes | None, blanks: bool
    ) -> list[tuple[int, str]]:
        self.asked.append((path, introduced, before))
        self.blanks.append(blanks)
        return self.found


def test_with_blame_experiment_lines_are_pinned_where_blame_gives_them() -> None:
    blame = Blamer((2, "import turbo_lib"), (5, "return turbo_lib.fast(os.getcwd())"))
    change = modified("pkg/comm.py", TURBO_BEFORE, TURBO_AFTER, *TURBO)
    got = plan_changes([change], expect_removed=False, text_rules=True, under="pkg", blame=blame)
    assert got.rules[0] == PlannedRule(
        "comm.py",
        "lines",
        ("line@2:import turbo_lib", "line@5:return turbo_lib.fast(os.getcwd())"),
        why=BLAMED_WHY,
    )
    assert got.rules[1].action == "names"
    [(path, introduced, before)] = blame.asked
    assert path == "pkg/comm.py"  # the path in the tree, not under the root
    assert introduced == {"import turbo_lib", "return turbo_lib.fast(os.getcwd())"}
    assert before == TURBO_BEFORE.encode()


def test_with_blame_a_file_with_no_line_left_still_has_its_rule() -> None:
    change = modified("m.txt", "a\n", "a\nnew\n", " a", "+new")
    got = plan_changes([change], expect_removed=False, text_rules=True, under="", blame=Blamer())
    assert got.rules == [PlannedRule("m.txt", "lines", (), why=BLAMED_WHY)]


def test_with_blame_removed_lines_are_expected_back() -> None:
    blame = Blamer()
    before = "keep\nold one\nmoved\nold one\n"
    after = "keep\nmoved\n\n"
    change = modified(
        "m.txt", before, after, " keep", "-old one", "-moved", "+", "-old one", " moved", "+"
    )
    got = plan_changes([change], expect_removed=False, text_rules=True, under="", blame=blame)
    # blank added lines call no blame; "moved" is still in the file: not expected back
    assert blame.asked == []
    assert got.rules == [
        PlannedRule("m.txt", "removed", expect=("line*2:old one",), why=REMOVED_WHY)
    ]


def test_with_blame_removed_lines_are_expected_back_as_the_check_decodes_them() -> None:
    before = "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n".encode("latin-1")
    after = b"# -*- coding: latin-1 -*-\n"
    change = modified("m.py", before, after, " # -*- coding: latin-1 -*-", "-name = 'caf\udce9'")
    got = plan_changes([change], expect_removed=False, text_rules=True, under="", blame=Blamer())
    assert got.rules[0] == PlannedRule(
        "m.py", "removed", expect=("line:name = 'caf\xe9'",), why=REMOVED_WHY
    )


def test_with_blame_a_file_that_lost_only_blank_lines_has_them_expected_back() -> None:
    change = modified("m.txt", "a\n\n", "a\n", " a", "-")
    other = ChangedFile(FileChange(None, "new.txt", Status.ADDED))
    got = plan_changes(
        [change, other], expect_removed=False, text_rules=True, under="", blame=Blamer()
    )
    # split as the check splits: the text after the last line break is a (blank) line too
    assert got.rules[0] == PlannedRule("m.txt", "removed", expect=("line*2:",), why=REMOVED_WHY)
    assert got.notes == []


# --------------------------------------------------------------------------- other changes


def test_an_added_or_copied_file_must_be_absent() -> None:
    added = ChangedFile(FileChange(None, "pkg/new.py", Status.ADDED))
    copied = ChangedFile(FileChange("pkg/a.py", "pkg/copy.py", Status.COPIED))
    got = plan(added, copied)
    assert got.rules == [
        PlannedRule("pkg/copy.py", "absent", why="the change added this file"),
        PlannedRule("pkg/new.py", "absent", why="the change added this file"),
    ]


def test_a_deleted_file_must_be_there_again_with_its_names() -> None:
    before = b"def zeta():\n    pass\n\nALPHA = 3\n"
    got = plan(ChangedFile(FileChange("pkg/old.py", None, Status.DELETED), before=before))
    assert got.rules == [
        PlannedRule(
            "pkg/old.py", "restore", expect=("ALPHA", "zeta"), why="the change deleted this file"
        )
    ]


@pytest.mark.parametrize(
    ("change", "what"),
    [
        (FileChange("old.bin", None, Status.DELETED, binary=True), "a binary file"),
        (FileChange("link", None, Status.DELETED, old_mode="120000"), "a symbolic link"),
        (FileChange("sub", None, Status.DELETED, old_mode="160000"), "a submodule"),
    ],
)
def test_a_deleted_file_without_text_is_noted(change: FileChange, what: str) -> None:
    with pytest.raises(FromDiffError, match="nothing a manifest can check"):
        plan(ChangedFile(change, before=b"TURBO_NAME\n"))
    got = plan(
        ChangedFile(change, before=b"TURBO_NAME\n"),
        ChangedFile(FileChange(None, "x", Status.ADDED)),
    )
    assert got.notes == [
        (change.path, f"the change deleted this file; {what} cannot be expected by its contents")
    ]


def test_a_deleted_file_whose_text_is_unknown_is_noted() -> None:
    got = plan(
        ChangedFile(FileChange("old.txt", None, Status.DELETED)),
        ChangedFile(FileChange(None, "x", Status.ADDED)),
    )
    assert got.notes == [
        (
            "old.txt",
            "the change deleted this file; a binary file cannot be expected by its contents",
        )
    ]


def test_a_deleted_file_without_a_name_has_its_lines_expected_back() -> None:
    """Issue 43: a file deleted is lines removed; an empty one must exist again."""
    got = plan(
        ChangedFile(FileChange("old.txt", None, Status.DELETED), before=b"a b c\n\na b c\n"),
        ChangedFile(FileChange("empty.txt", None, Status.DELETED), before=b""),
    )
    deleted = "the change deleted this file"
    assert got.rules == [
        PlannedRule("empty.txt", "restore", why=f"{deleted}; it was empty: it must exist"),
        PlannedRule(
            "old.txt", "removed", expect=("line*2:a b c",), why=f"{deleted}; {REMOVED_WHY}"
        ),
    ]
    assert got.notes == []
    [empty, old] = rules_from_plan(got, why="w")
    assert (empty.files, empty.must_exist, empty.expect) == (("empty.txt",), True, ())
    assert (old.must_exist, [p.text for p in old.expect]) == (True, ["line*2:a b c"])


def test_a_renamed_file_is_back_under_its_old_name_and_gone_under_its_new_one() -> None:
    change = FileChange("pkg/a.py", "pkg/b.py", Status.RENAMED)
    got = plan(ChangedFile(change, before=b"def turbo():\n    pass\n"))
    assert got.rules == [
        PlannedRule(
            "pkg/a.py", "restore", expect=("turbo",), why="the change renamed it to pkg/b.py"
        ),
        PlannedRule("pkg/b.py", "absent", why="the change renamed pkg/a.py to it"),
    ]
    got = plan(ChangedFile(change, before=b"def turbo():\n    pass\n"), under="pkg")
    assert got.rules == [
        PlannedRule("a.py", "restore", expect=("turbo",), why="the change renamed it to b.py"),
        PlannedRule("b.py", "absent", why="the change renamed a.py to it"),
    ]


def test_a_renamed_link_is_noted_as_a_link() -> None:
    change = FileChange("old-link", "new-link", Status.RENAMED, old_mode="120000")
    got = plan(ChangedFile(change))
    assert got.notes == [
        (
            "old-link",
            "the change renamed it to new-link; a symbolic link cannot be expected by its contents",
        )
    ]
    assert got.rules == [PlannedRule("new-link", "absent", why="the change renamed old-link to it")]


def test_a_file_renamed_across_the_root_names_the_other_side_in_full() -> None:
    out = FileChange("pkg/a.py", "other/b.py", Status.RENAMED)
    got = plan(ChangedFile(out, before=b"def turbo():\n    pass\n"), under="pkg")
    assert got.rules == [
        PlannedRule("a.py", "restore", expect=("turbo",), why="the change renamed it to other/b.py")
    ]
    assert got.notes == [("other/b.py", "outside the root 'pkg': not checked")]
    into = FileChange("other/a.py", "pkg/b.py", Status.RENAMED)
    got = plan(ChangedFile(into, before=b"x\n"), under="pkg")
    assert got.rules == [PlannedRule("b.py", "absent", why="the change renamed other/a.py to it")]
    assert got.notes == [("other/a.py", "outside the root 'pkg': not checked")]


def test_paths_outside_the_root_or_unwritable_are_noted() -> None:
    changes = [
        ChangedFile(FileChange(None, "pkg/in.py", Status.ADDED)),
        ChangedFile(FileChange(None, "docs/out.py", Status.ADDED)),
        ChangedFile(FileChange(None, "pkgx/out.py", Status.ADDED)),
        ChangedFile(FileChange(None, "pkg/back\\slash.py", Status.ADDED)),
        ChangedFile(FileChange(None, "pkg/bad\udcff.py", Status.ADDED)),
        ChangedFile(FileChange("pkg/gone.txt", None, Status.DELETED), before=b"TURBO_NAME\n"),
        ChangedFile(FileChange("outside.txt", None, Status.DELETED), before=b"TURBO_NAME\n"),
    ]
    got = plan(*changes, under="./pkg/")
    assert got.rules == [
        PlannedRule(
            "gone.txt", "restore", expect=("TURBO_NAME",), why="the change deleted this file"
        ),
        PlannedRule("in.py", "absent", why="the change added this file"),
    ]
    assert got.notes == [
        ("docs/out.py", "outside the root 'pkg': not checked"),
        ("pkgx/out.py", "outside the root 'pkg': not checked"),
        ("back\\slash.py", "a path a manifest cannot name: not checked"),
        ("bad\udcff.py", "a path a manifest cannot name: not checked"),
        ("outside.txt", "outside the root 'pkg': not checked"),
    ]


def test_a_root_ending_in_any_letter_is_named_whole() -> None:
    got = plan(
        ChangedFile(FileChange(None, "APEX/in.py", Status.ADDED)),
        ChangedFile(FileChange(None, "out.py", Status.ADDED)),
        under="APEX",
    )
    assert got.notes == [("out.py", "outside the root 'APEX': not checked")]


def test_without_a_root_every_path_is_checked() -> None:
    got = plan(ChangedFile(FileChange(None, "deep/in.py", Status.ADDED)), under=".")
    assert got.rules == [PlannedRule("deep/in.py", "absent", why="the change added this file")]


def test_a_modified_file_notes_what_cannot_be_checked() -> None:
    def change(path: str, **extra: object) -> ChangedFile:
        lines = (hunk(" a", "+turbo_line"),)
        return ChangedFile(
            FileChange(path, path, Status.MODIFIED, lines, **extra),  # type: ignore[arg-type]
            before=b"a\n",
            after=b"a\nturbo_line\n",
        )

    got = plan(
        change("mode.txt", old_mode="100644", new_mode="100755"),
        change("same.txt", old_mode="100644", new_mode="100644"),
        change("half.txt", old_mode=None, new_mode="100755"),
        change("link", old_mode="120000", new_mode="120000"),
        change("blob.bin", binary=True),
        ChangedFile(
            FileChange(
                "empty.txt", "empty.txt", Status.MODIFIED, old_mode="100644", new_mode="100755"
            )
        ),
    )
    assert got.notes == [
        ("link", "a symbolic link changed: its target cannot be checked"),
        ("blob.bin", "a binary file changed: its contents cannot be checked"),
    ]
    # a mode is content (issue 43): the mode before the change is expected back
    assert [(rule.path, rule.action, rule.expect) for rule in got.rules] == [
        ("empty.txt", "mode", ("100644",)),
        ("half.txt", "lines", ()),
        ("mode.txt", "lines", ()),
        ("mode.txt", "mode", ("100644",)),
        ("same.txt", "lines", ()),
    ]
    [rule] = [r for r in rules_from_plan(got, why="w") if r.id == "mode-mode.txt"]
    assert (rule.files, rule.mode, rule.must_exist, rule.forbid, rule.expect) == (
        ("mode.txt",),
        "100644",
        True,
        (),
        (),
    )


def test_a_partly_reverted_file_is_planned_from_the_diff_alone() -> None:
    lines = (" keep", "-gone", "+turbo one", "+gone", "+ keep", "+", "+turbo one", "+turbo two")
    change = FileChange("m.py", "m.py", Status.MODIFIED, (hunk(*lines),))
    got = plan(ChangedFile(change, unverified="REASON"))
    assert got.rules == [
        PlannedRule("m.py", "lines", lines=("turbo one", "turbo two"), why=LINES_WHY)
    ]
    assert got.notes == [
        (
            "m.py",
            "REASON. Not verified: derived from the diff alone, its lines are checked, not its "
            "names (--rev BASE..EXPERIMENT checks both)",
        )
    ]


def test_a_partly_reverted_file_without_a_new_line_has_the_note_alone() -> None:
    change = FileChange("m.py", "m.py", Status.MODIFIED, (hunk(" keep", "-gone", "+keep"),))
    with pytest.raises(FromDiffError, match=r"m\.py: REASON\. Not verified"):
        plan(ChangedFile(change, unverified="REASON"))


def test_rules_are_sorted_by_path_then_by_what_they_check() -> None:
    got = plan(
        ChangedFile(FileChange(None, "z.py", Status.ADDED)),
        modified(
            "m.py",
            "import os\nimport turbo_old\n",
            "import os\nimport turbo_new\n",
            " import os",
            "-import turbo_old",
            "+import turbo_new",
        ),
        ChangedFile(FileChange("a.py", None, Status.DELETED), before=b"def alpha():\n    pass\n"),
        expect_removed=True,
    )
    assert [(rule.path, rule.action) for rule in got.rules] == [
        ("a.py", "restore"),
        ("m.py", "lines"),
        ("m.py", "names"),
        ("m.py", "removed"),
        ("z.py", "absent"),
    ]
    assert got.rules[2].forbid == ("turbo_new",)
    assert got.rules[2].expect == ("turbo_old",)


def test_nothing_to_plan_says_so_with_each_note_once() -> None:
    binary = ChangedFile(FileChange("b.bin", "b.bin", Status.MODIFIED, binary=True))
    link = ChangedFile(FileChange("a", "a", Status.MODIFIED, old_mode="120000", new_mode="120000"))
    with pytest.raises(FromDiffError) as caught:
        plan(binary, binary, link)
    assert str(caught.value) == (
        "the change leaves nothing a manifest can check (a: a symbolic link changed: its "
        "target cannot be checked; b.bin: a binary file changed: its contents cannot be checked)"
    )
    with pytest.raises(FromDiffError) as caught:
        plan()
    assert str(caught.value) == "the change leaves nothing a manifest can check"


# --------------------------------------------------------------------------- rules


def test_rules_from_plan_builds_each_rule_as_the_manifest_would() -> None:
    planned = Plan(
        [
            PlannedRule("a*.py", "lines", ("line@3:turbo()",), why="W1"),
            PlannedRule("a*.py", "names", ("turbo", "a.b"), ("keep_me",), why="W2", code=True),
            PlannedRule("run.sh", "lines", lines=("  export TURBO=1  ",), why="W3"),
            PlannedRule("run.sh", "names", ("TURBO",), why="W4"),
            PlannedRule("gone.txt", "removed", expect=("line:old text",), why="W5"),
            PlannedRule("new.py", "absent", why="W6"),
            PlannedRule("old.py", "restore", expect=("alpha",), why="W7"),
        ]
    )
    rules = rules_from_plan(planned, why="abc123 'turbo'")
    by_id = {rule.id: rule for rule in rules}
    assert list(by_id) == [
        "experiment-lines-a-.py",
        "introduced-names-a-.py",
        "experiment-lines-run.sh",
        "introduced-names-run.sh",
        "removed-lines-gone.txt",
        "absent-new.py",
        "restore-old.py",
    ]
    pinned = by_id["experiment-lines-a-.py"]
    assert pinned.files == ("a[*].py",)
    assert pinned.absent == ()
    assert [(p.text, p.body, p.line) for p in pinned.forbid] == [("line@3:turbo()", "turbo()", 3)]
    assert pinned.expect == ()
    assert pinned.why == "abc123 'turbo': W1"
    assert not pinned.must_exist
    assert pinned.kinds == DEFAULT_KINDS
    assert pinned.unless == ()

    names = by_id["introduced-names-a-.py"]
    assert [p.text for p in names.forbid] == ["=turbo", "=a.b"]
    assert [p.text for p in names.expect] == ["=keep_me"]
    assert names.kinds == CODE_KINDS
    # an experiment line is reported once, by the lines rule: the names rule lets it be
    assert [p.text for p in names.unless] == ["line@3:turbo()"]
    assert not names.must_exist

    lines = by_id["experiment-lines-run.sh"]
    assert [p.text for p in lines.forbid] == ["line:export TURBO=1"]
    tokens = by_id["introduced-names-run.sh"]
    assert tokens.kinds == DEFAULT_KINDS
    assert tokens.unless == ()  # the lines rule has no pinned line: nothing to exempt

    removed = by_id["removed-lines-gone.txt"]
    assert [p.text for p in removed.expect] == ["line:old text"]
    assert removed.must_exist
    assert removed.forbid == ()

    absent = by_id["absent-new.py"]
    assert absent.files == ()
    assert absent.absent == ("new.py",)
    assert not absent.must_exist

    restore = by_id["restore-old.py"]
    assert restore.files == ("old.py",)
    assert restore.absent == ()
    assert [p.text for p in restore.expect] == ["=alpha"]
    assert restore.must_exist
    assert restore.why == "abc123 'turbo': W7"


def test_a_names_rule_without_a_lines_rule_exempts_no_line() -> None:
    planned = Plan([PlannedRule("m.py", "names", ("turbo",), code=True)])
    [rule] = rules_from_plan(planned, why="w")
    assert rule.unless == ()
    assert [p.text for p in rule.forbid] == ["=turbo"]


def test_rules_from_plan_numbers_repeated_ids() -> None:
    planned = Plan([PlannedRule("a b", "absent"), PlannedRule("a-b", "absent")])
    assert [rule.id for rule in rules_from_plan(planned, why="w")] == ["absent-a-b", "absent-a-b-2"]
