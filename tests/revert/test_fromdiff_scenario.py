"""The issue's scenario, end to end, in a real git repository built from copies of standard
library modules.

An "experiment" commit spreads a new symbol (``turbo``) over several files and syntactic
places: a multi-line from-import with an alias, module-level variables, a compound and a
plain condition, an alias import, strings, a shell script line and a new file.  Then:

* ``from-diff`` lists exactly the names it introduced, and nothing that existed before;
* after a narrow partial revert (one compound condition only, as the ``sed`` in the
  founding story), the check reports exactly the leftover lines;
* after ``git revert``, the check passes;
* the manifest round-trips through the core's loader, and a plain diff gives the same one.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from gitrepo import cleantree, from_diff, git

from pytest_cleantree.analysis import analyze
from pytest_cleantree.config.manifest import load_manifest, parse_manifest
from pytest_cleantree.core.checks import iter_checks
from pytest_cleantree.core.model import DEFAULT_KINDS, Kind, Manifest
from pytest_cleantree.revert.git import derive_manifest_for_revert
from pytest_cleantree.run.runner import Runner

STDLIB = Path(json.__file__).parent.parent
SUBJECT = "Enable the turbo JSON path"

# A copy of CPython's Lib/test/ziptestdata/header.sh (not every Python installs the tests).
HEADER_SH = """\
#!/bin/bash
INTERPRETER_UNDER_TEST="$1"
if [[ ! -x "${INTERPRETER_UNDER_TEST}" ]]; then
    echo "Interpreter must be the command line argument."
    exit 4
fi
EXECUTABLE="$0" exec "${INTERPRETER_UNDER_TEST}" -E - <<END_OF_PYTHON
import os
import zipfile

namespace = {}

filename = os.environ['EXECUTABLE']
print(f'Opening {filename} as a zipfile.')
with zipfile.ZipFile(filename, mode='r') as exe_zip:
  for file_info in exe_zip.infolist():
    data = exe_zip.read(file_info)
    exec(data, namespace, namespace)
    break  # Only use the first file in the archive.

print('Favorite number in executable:', namespace["FAVORITE_NUMBER"])

### Archive contents will be appended after this file. ###
END_OF_PYTHON
"""

#: The experiment, as (file, anchor, replacement); every anchor is in Python 3.10 to 3.13.
EXPERIMENT = [
    (  # module-level variables, a string, a function using names that existed before
        "json/decoder.py",
        "NaN = float('nan')\n",
        "NaN = float('nan')\n"
        "TURBO_ENABLED = False\n"
        'TURBO_BACKEND = "turbo-simd"\n'
        "\n\n"
        "def turbo_scanstring(s, end, strict=True):\n"
        "    return py_scanstring(s, end, strict)\n",
    ),
    (  # a multi-line from-import with an alias
        "json/encoder.py",
        "import re\n",
        "import re\nfrom json.decoder import (\n    TURBO_ENABLED,\n"
        "    turbo_scanstring as _turbo_scan,\n)\n",
    ),
    (  # a compound condition: only TURBO_ENABLED is new on this line
        "json/encoder.py",
        "        if isinstance(o, str):\n",
        "        if isinstance(o, str) and not TURBO_ENABLED:\n",
    ),
    (  # an alias import
        "textwrap.py",
        "import re\n",
        "import re\nimport json.decoder as turbo_decoder\n",
    ),
    (  # a plain condition, and a one-word string
        "textwrap.py",
        "        if self.expand_tabs:\n",
        "        if turbo_decoder.TURBO_ENABLED:\n"
        '            text = text.strip("turbo")\n'
        "        if self.expand_tabs:\n",
    ),
    (  # a shell script: an environment variable on an existing line
        "run.sh",
        'EXECUTABLE="$0" exec',
        'EXECUTABLE="$0" TURBO_JSON=1 exec',
    ),
]
NEW_FILE = ("json/turbo.py", '"""Turbo helpers."""\nfrom json.decoder import TURBO_BACKEND\n')

#: The narrow partial revert: the compound condition only.
PARTIAL = ("json/encoder.py", " and not TURBO_ENABLED", "")

#: What the partial revert leaves, as (file, the line's text): every other experiment line.
LEFTOVERS = [
    ("json/decoder.py", "TURBO_ENABLED = False"),
    ("json/decoder.py", 'TURBO_BACKEND = "turbo-simd"'),
    ("json/decoder.py", "def turbo_scanstring(s, end, strict=True):"),
    ("json/decoder.py", "    return py_scanstring(s, end, strict)"),
    ("json/encoder.py", "from json.decoder import ("),
    ("json/encoder.py", "    TURBO_ENABLED,"),
    ("json/encoder.py", "    turbo_scanstring as _turbo_scan,"),
    ("json/encoder.py", ")"),
    (
        "run.sh",
        'EXECUTABLE="$0" TURBO_JSON=1 exec "${INTERPRETER_UNDER_TEST}" -E - <<END_OF_PYTHON',
    ),
    ("textwrap.py", "import json.decoder as turbo_decoder"),
    ("textwrap.py", "        if turbo_decoder.TURBO_ENABLED:"),
    ("textwrap.py", '            text = text.strip("turbo")'),
]

EXPECTED_RULES = """\
[[rule]]
id = "experiment-lines-json-decoder.py"
files = ["json/decoder.py"]
forbid_lines = [
    "TURBO_ENABLED = False",
    "TURBO_BACKEND = \\"turbo-simd\\"",
    "def turbo_scanstring(s, end, strict=True):",
    "return py_scanstring(s, end, strict)",
]
why = "{why}: an experiment line: the change added it"

[[rule]]
id = "introduced-names-json-decoder.py"
files = ["json/decoder.py"]
forbid = [
    "=TURBO_BACKEND",
    "=TURBO_ENABLED",
    "=turbo_scanstring",
]
kinds = ["assignment", "call", "condition", "definition", "import", "reference"]
unless_lines = [
    "TURBO_ENABLED = False",
    "TURBO_BACKEND = \\"turbo-simd\\"",
    "def turbo_scanstring(s, end, strict=True):",
]
why = "{why}: an introduced name: new in this file's code"

[[rule]]
id = "experiment-lines-json-encoder.py"
files = ["json/encoder.py"]
forbid_lines = [
    "from json.decoder import (",
    "TURBO_ENABLED,",
    "turbo_scanstring as _turbo_scan,",
    ")",
    "if isinstance(o, str) and not TURBO_ENABLED:",
]
why = "{why}: an experiment line: the change added it"

[[rule]]
id = "introduced-names-json-encoder.py"
files = ["json/encoder.py"]
forbid = [
    "=TURBO_ENABLED",
    "=_turbo_scan",
    "=decoder",
    "=json",
    "=json.decoder",
    "=turbo_scanstring",
]
kinds = ["assignment", "call", "condition", "definition", "import", "reference"]
unless_lines = [
    "from json.decoder import (",
    "TURBO_ENABLED,",
    "turbo_scanstring as _turbo_scan,",
    "if isinstance(o, str) and not TURBO_ENABLED:",
]
why = "{why}: an introduced name: new in this file's code"

[[rule]]
id = "removed-lines-json-encoder.py"
files = ["json/encoder.py"]
expect = [
    "line*2:if isinstance(o, str):",
]
must_exist = true
why = "{why}: a line the change removed: a complete revert brings it back"

[[rule]]
id = "absent-json-turbo.py"
absent = ["json/turbo.py"]
why = "{why}: the change added this file"

[[rule]]
id = "experiment-lines-run.sh"
files = ["run.sh"]
forbid_lines = [
    "EXECUTABLE=\\"$0\\" TURBO_JSON=1 exec \\"${INTERPRETER_UNDER_TEST}\\" -E - <<END_OF_PYTHON",
]
why = "{why}: an experiment line: the change added it"

[[rule]]
id = "introduced-names-run.sh"
files = ["run.sh"]
forbid = [
    "=TURBO_JSON",
]
unless_lines = [
    "EXECUTABLE=\\"$0\\" TURBO_JSON=1 exec \\"${INTERPRETER_UNDER_TEST}\\" -E - <<END_OF_PYTHON",
]
why = "{why}: an introduced name: new in this file's code"

[[rule]]
id = "removed-lines-run.sh"
files = ["run.sh"]
expect = [
    "line:EXECUTABLE=\\"$0\\" exec \\"${INTERPRETER_UNDER_TEST}\\" -E - <<END_OF_PYTHON",
]
must_exist = true
why = "{why}: a line the change removed: a complete revert brings it back"

[[rule]]
id = "experiment-lines-textwrap.py"
files = ["textwrap.py"]
forbid_lines = [
    "import json.decoder as turbo_decoder",
    "if turbo_decoder.TURBO_ENABLED:",
    "text = text.strip(\\"turbo\\")",
]
why = "{why}: an experiment line: the change added it"

[[rule]]
id = "introduced-names-textwrap.py"
files = ["textwrap.py"]
forbid = [
    "=TURBO_ENABLED",
    "=decoder",
    "=json",
    "=json.decoder",
    "=turbo_decoder",
]
kinds = ["assignment", "call", "condition", "definition", "import", "reference"]
unless_lines = [
    "import json.decoder as turbo_decoder",
    "if turbo_decoder.TURBO_ENABLED:",
]
why = "{why}: an introduced name: new in this file's code"
"""


def expected_manifest(why: str) -> str:
    escaped = why.replace('"', '\\"')
    return (
        "# What a complete revert of this change means, derived by `cleantree from-diff`:\n"
        f"#   {why}\n"
        "# experiment-lines: the lines it added (whole lines, compared stripped); none was in\n"
        "# its file before.  introduced-names: the names it introduced into a file's code\n"
        "# (`=name` is that whole name); none was a name there before.  removed-lines: the\n"
        "# lines it removed, expected back as many times as before (`line*N:`); repeated-lines:\n"
        "# a line it wrote again, no more often than before.  Review, then commit.\n"
        "\n" + EXPECTED_RULES.replace("{why}", escaped)
    )


@dataclass(frozen=True)
class Repo:
    path: Path
    base: str
    experiment: str

    def short(self, rev: str) -> str:
        return git(self.path, "rev-parse", "--short", rev).strip()

    @property
    def range_why(self) -> str:
        return f'base..experiment ({self.short("base")}..{self.short("experiment")}) "{SUBJECT}"'


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) >= 1, f"{path.name}: anchor {old!r} not found"
    path.write_text(text.replace(old, new, 1))


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    path = tmp_path / "repo"
    (path / "json").mkdir(parents=True)
    for name in ("json/encoder.py", "json/decoder.py", "textwrap.py"):
        (path / name).write_bytes((STDLIB / name).read_bytes())
    (path / "run.sh").write_text(HEADER_SH)
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "Copies of standard library modules")
    git(path, "tag", "base")
    for name, old, new in EXPERIMENT:
        edit(path / name, old, new)
    (path / NEW_FILE[0]).write_text(NEW_FILE[1])
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", SUBJECT)
    git(path, "branch", "experiment")
    return Repo(
        path, git(path, "rev-parse", "base").strip(), git(path, "rev-parse", "HEAD").strip()
    )


def derive(repo: Repo, *args: str) -> str:
    done = from_diff(repo.path, "--rev", "base..experiment", *args)
    assert (done.returncode, done.stderr) == (0, "")
    return done.stdout


def hits_of(manifest: Manifest) -> tuple[set[tuple[str, int]], tuple[str, ...]]:
    """Run the real engine: the (path, line) of every forbidden line, and files present."""
    runner = Runner(manifest)
    try:
        results = list(runner.run(list(iter_checks(manifest.rules))).values())
    finally:
        runner.close()
    assert all(result.complete for result in results), [r.problems for r in results]
    hits = {(hit.path, hit.line) for result in results for hit in result.hits}
    present = tuple(path for result in results for path in result.present)
    return hits, present


def leftover_lines(repo: Repo) -> set[tuple[str, int]]:
    """Where each leftover line stands now (each occurs once in its file)."""
    found = set()
    for name, text in LEFTOVERS:
        lines = (repo.path / name).read_text().split("\n")
        assert lines.count(text) == 1, (name, text)
        found.add((name, lines.index(text) + 1))
    return found


def test_from_diff_lists_exactly_the_introduced_names(repo: Repo) -> None:
    assert derive(repo) == expected_manifest(repo.range_why)


def test_no_derived_name_occurs_in_the_base_version_and_each_occurs_in_the_experiment(
    repo: Repo,
) -> None:
    manifest = parse_manifest(derive(repo), "cleantree.toml")
    for rule in manifest.rules:
        for path in rule.files:
            base = git(repo.path, "show", f"base:{path}").encode()
            experiment = git(repo.path, "show", f"experiment:{path}").encode()
            for pattern in rule.forbid:
                before = analyze(path, base, [pattern]).findings
                after = analyze(path, experiment, [pattern]).findings
                counted = DEFAULT_KINDS | {Kind.TEXT}
                assert not [f for f in before if f.occurrence.kind in counted], pattern.text
                assert [f for f in after if f.occurrence.kind in counted], pattern.text


@pytest.mark.slow
def test_a_narrow_partial_revert_reports_exactly_the_leftover_lines(repo: Repo) -> None:
    (repo.path / "cleantree.toml").write_text(derive(repo))
    edit(repo.path / PARTIAL[0], PARTIAL[1], PARTIAL[2])
    expected = leftover_lines(repo)

    done = cleantree(repo.path, "check", "--manifest", "cleantree.toml")
    assert done.returncode == 1, done.stderr
    reported = {
        (match.group(1), int(match.group(2)))
        for match in re.finditer(r"^(\S+?):(\d+)(?::\d+)?\s", done.stdout, re.MULTILINE)
    }
    assert reported == expected
    assert "json/turbo.py  present  must not exist" in done.stdout
    # a line with introduced names is reported once, as an experiment line (unless_lines)
    assert done.stdout.splitlines()[-1] == (
        "cleantree: 12 forbidden lines in 4 files; 1 expected pattern missing in 1 file; "
        "1 file that must not exist (11 rules checked)"
    )
    # the same through the engine in process, on the loaded manifest
    assert hits_of(load_manifest(repo.path / "cleantree.toml")) == (expected, ("json/turbo.py",))


@pytest.mark.slow
def test_after_git_revert_the_check_passes(repo: Repo) -> None:
    (repo.path / "cleantree.toml").write_text(derive(repo))
    git(repo.path, "revert", "--no-edit", "experiment")
    done = cleantree(repo.path, "check", "--manifest", "cleantree.toml")
    assert (done.returncode, done.stderr) == (0, ""), done.stdout
    assert hits_of(derive_manifest_for_revert("experiment", repo.path)) == (set(), ())


def test_check_reverted_sees_the_experiment_until_it_is_reverted(repo: Repo) -> None:
    edit(repo.path / PARTIAL[0], PARTIAL[1], PARTIAL[2])
    manifest = derive_manifest_for_revert("experiment", repo.path)
    assert manifest.path == str(repo.path / f"<reverted {repo.short('experiment')}>")
    assert manifest.root == ""
    assert hits_of(manifest) == (leftover_lines(repo), ("json/turbo.py",))


def test_the_manifest_round_trips_through_the_loader(repo: Repo, tmp_path: Path) -> None:
    text = derive(repo)
    (tmp_path / "cleantree.toml").write_text(text)
    loaded = load_manifest(tmp_path / "cleantree.toml")
    assert loaded.rules == parse_manifest(text, "other.toml").rules
    # in the work tree, git blame gives the experiment lines instead: the rest is the same
    derived = derive_manifest_for_revert("base..experiment", repo.path).rules
    # (and so are the experiment lines a names rule spares: written lines, or pinned ones)
    same = [
        dataclasses.replace(r, line=0, unless=()) for r in loaded.rules if "experiment-" not in r.id
    ]
    assert same == [dataclasses.replace(r, unless=()) for r in derived if "experiment-" not in r.id]
    assert (
        [rule.id for rule in loaded.rules]
        == [rule.id for rule in derived]
        == [
            "experiment-lines-json-decoder.py",
            "introduced-names-json-decoder.py",
            "experiment-lines-json-encoder.py",
            "introduced-names-json-encoder.py",
            "removed-lines-json-encoder.py",
            "absent-json-turbo.py",
            "experiment-lines-run.sh",
            "introduced-names-run.sh",
            "removed-lines-run.sh",
            "experiment-lines-textwrap.py",
            "introduced-names-textwrap.py",
        ]
    )


@pytest.mark.slow
def test_a_single_commit_and_a_root(repo: Repo) -> None:
    single = from_diff(repo.path, "--rev", "experiment").stdout
    why = f'experiment ({repo.short("experiment")}) "{SUBJECT}"'
    assert single == expected_manifest(why)
    # --root keeps json/ only, written as the manifest's root
    rooted = from_diff(repo.path, "--rev", "experiment", "--root", "json")
    assert rooted.returncode == 0, rooted.stderr
    manifest = parse_manifest(rooted.stdout, "cleantree.toml")
    assert manifest.root == "json"
    assert [(r.files, r.absent) for r in manifest.rules] == [
        (("decoder.py",), ()),
        (("decoder.py",), ()),
        (("encoder.py",), ()),
        (("encoder.py",), ()),
        (("encoder.py",), ()),
        ((), ("turbo.py",)),
    ]
    assert "#   run.sh: outside the root 'json': not checked\n" in rooted.stdout


@pytest.mark.slow
def test_a_plain_diff_gives_the_same_manifest_with_the_tree_in_either_state(repo: Repo) -> None:
    diff = git(repo.path, "diff", "base", "experiment").encode()
    assert derive(repo) == expected_manifest(repo.range_why)
    from_rev = expected_manifest("the diff on stdin")
    applied = from_diff(repo.path, "-", stdin=diff)
    assert (applied.returncode, applied.stderr) == (0, "")
    assert applied.stdout == from_rev
    git(repo.path, "checkout", "-q", "base")
    not_applied = from_diff(repo.path, "-", stdin=diff)
    assert (not_applied.returncode, not_applied.stdout) == (0, from_rev)


def test_a_patch_file_names_its_subject(repo: Repo, tmp_path: Path) -> None:
    patch = tmp_path / "turbo.patch"
    patch.write_text(git(repo.path, "format-patch", "-1", "--stdout", "experiment"))
    done = from_diff(repo.path, str(patch))
    why = f'the patch {patch} ("{SUBJECT}")'
    assert (done.returncode, done.stdout) == (0, expected_manifest(why))


def test_a_plain_diff_on_a_partly_reverted_tree_is_derived_from_the_diff_alone(
    repo: Repo, tmp_path: Path
) -> None:
    """Issue 24: the partly reverted file is derived from the diff alone, without applying
    it, and named as not verified (with both reasons); the other files as before.  The
    manifest still finds every leftover line."""
    diff = git(repo.path, "diff", "base", "experiment").encode()
    edit(repo.path / PARTIAL[0], PARTIAL[1], PARTIAL[2])
    done = from_diff(repo.path, "-", stdin=diff)
    assert done.returncode == 0, done.stderr
    assert (
        "#   json/encoder.py: the diff does not apply to the tree (a partly reverted file?): "
        "as already applied, hunk 2 ("
    ) in done.stdout
    assert done.stderr.startswith(
        "cleantree: not verified against the tree (the diff applies to it neither way): "
        "json/encoder.py: derived from the diff alone"
    )
    assert "Traceback" not in done.stderr
    manifest = parse_manifest(done.stdout, "cleantree.toml")
    assert "introduced-names-json-encoder.py" not in [rule.id for rule in manifest.rules]
    (repo.path / "cleantree.toml").write_text(done.stdout)
    checked = cleantree(repo.path, "check")
    assert checked.returncode == 1
    assert _reported(checked.stdout) == leftover_lines(repo)


def _reported(stdout: str) -> set[tuple[str, int]]:
    return {
        (match.group(1), int(match.group(2)))
        for match in re.finditer(r"^(\S+?):(\d+)(?::\d+)?\s", stdout, re.MULTILINE)
    }


@pytest.mark.slow
def test_cli_check_reverted_in_one_line(repo: Repo) -> None:
    """`cleantree check --reverted REV`: no manifest file, the same leftover lines."""
    edit(repo.path / PARTIAL[0], PARTIAL[1], PARTIAL[2])
    done = cleantree(repo.path, "check", "--reverted", "experiment")
    assert done.returncode == 1, done.stderr
    assert _reported(done.stdout) == leftover_lines(repo)
    # each experiment line once, as such, though most hold introduced names too
    assert done.stdout.splitlines()[-1] == (
        "cleantree: 12 forbidden lines in 4 files; 1 expected pattern missing in 1 file; "
        "1 file that must not exist (11 rules checked)"
    )
    assert "introduced-names-" not in done.stdout
    git(repo.path, "checkout", "--", ".")
    git(repo.path, "revert", "--no-edit", "experiment")
    done = cleantree(repo.path, "check", "--reverted", "experiment")
    assert (done.returncode, done.stderr) == (0, ""), done.stdout
    bad = cleantree(repo.path, "check", "--reverted", "no-such-commit")
    assert bad.returncode == 2
    assert "no-such-commit" in bad.stderr
    assert "Traceback" not in bad.stderr


@pytest.mark.slow
def test_pytest_cleantree_reverted_in_one_line(repo: Repo) -> None:
    """`pytest --cleantree-reverted REV` runs only the derived checks, as test items."""
    (repo.path / "test_would_fail.py").write_text("def test_x():\n    assert False\n")
    edit(repo.path / PARTIAL[0], PARTIAL[1], PARTIAL[2])
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--rootdir", "."]
    done = subprocess.run(
        [*command, "--cleantree-reverted", "experiment"],
        cwd=repo.path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert _reported(done.stdout) == leftover_lines(repo)
    assert "test_would_fail" not in done.stdout
    assert "FAILED reverted-experiment::" in done.stdout
    git(repo.path, "checkout", "--", ".")
    git(repo.path, "revert", "--no-edit", "experiment")
    done = subprocess.run(
        [*command, "--cleantree-reverted", "experiment", "-rA"],
        cwd=repo.path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASSED reverted-experiment::" in done.stdout
