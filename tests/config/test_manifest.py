"""Table tests of the manifest parser: valid manifests parse to exact values, and an invalid
one raises ManifestError whose problems are exactly the expected tuple, in order."""

from __future__ import annotations

import errno
import textwrap
from pathlib import Path

import pytest

from pytest_cleantree.config import manifest as manifest_module
from pytest_cleantree.config.manifest import (
    MANIFEST_NAME,
    find_manifest,
    load_manifest,
    parse_manifest,
)
from pytest_cleantree.core.errors import ManifestError
from pytest_cleantree.core.model import DEFAULT_KINDS, Kind, Manifest, Pattern, PatternTier, Rule
from pytest_cleantree.core.patterns import parse_pattern

VALID_KEYS = (
    "absent, exclude, expect, files, forbid, forbid_lines, forbid_lines_escaped, id, kinds, "
    "missing_ok, mode, must_exist, unless_lines, unless_lines_escaped, why"
)
VALID_TOP_KEYS = "allow_outside_root, exclude, graph_budget, hosts, import_roots, root, rule"
OUTSIDE = "(set allow_outside_root = true to allow it)"
ABSOLUTE = f"is absolute: paths are relative to the root {OUTSIDE}"

# A valid rule body, appended after a [[rule]] header where a case needs one that is valid.
OK = 'files = ["a.py"]\nforbid = ["x"]\n'


def problems_of(text: str, path: str = MANIFEST_NAME) -> tuple[str, ...]:
    with pytest.raises(ManifestError) as info:
        parse_manifest(text, path)
    assert info.value.source == path
    return info.value.problems


def forbid_rule(rule_id: str, line: int, files: tuple[str, ...] = ("a.py",), *forbid: str) -> Rule:
    return Rule(
        id=rule_id,
        files=files,
        forbid=tuple(parse_pattern(text) for text in forbid or ("x",)),
        line=line,
    )


# ---------------------------------------------------------------- valid manifests


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            '[[rule]]\nid = "r"\n' + OK,
            Manifest(path=MANIFEST_NAME, root="", rules=(forbid_rule("r", 1),)),
            id="minimal",
        ),
        pytest.param(
            'root = "src"\n'
            "allow_outside_root = false\n"
            "\n"
            "[hosts]\n"
            'gpu2 = "me@gpu2:2222"\n'
            'gpu1 = "gpu1"\n'
            "\n"
            "# the reverted experiment\n"
            "[[rule]]\n"
            'id = "no-sm120.v2"\n'
            'files = ["./kernels/a.py", "kernels/**/*.cu"]\n'
            'forbid = ["sm120", "re:sm1[0-9]{2}", "=flag", "torch.cuda.x", "k_*"]\n'
            'expect = ["sm90"]\n'
            'absent = ["kernels/sm120.py"]\n'
            'kinds = ["call", "import", "docstring"]\n'
            'why = "reverted in #12"\n'
            "missing_ok = true\n",
            Manifest(
                path=MANIFEST_NAME,
                root="src",
                hosts=(("gpu2", "me@gpu2:2222"), ("gpu1", "gpu1")),
                rules=(
                    Rule(
                        id="no-sm120.v2",
                        files=("kernels/a.py", "kernels/**/*.cu"),
                        forbid=tuple(
                            parse_pattern(text)
                            for text in ("sm120", "re:sm1[0-9]{2}", "=flag", "torch.cuda.x", "k_*")
                        ),
                        expect=(parse_pattern("sm90"),),
                        absent=("kernels/sm120.py",),
                        kinds=frozenset({Kind.CALL, Kind.IMPORT, Kind.DOCSTRING}),
                        why="reverted in #12",
                        missing_ok=True,
                        line=9,
                    ),
                ),
            ),
            id="every-key",
        ),
        pytest.param(
            '[[rule]]\nid = "r"\nfiles = ["./a.py", "././b/c.py", "d/./e.py"]\nforbid = ["x"]\n',
            Manifest(
                path=MANIFEST_NAME,
                root="",
                rules=(forbid_rule("r", 1, ("a.py", "b/c.py", "d/./e.py")),),
            ),
            id="leading-dot-slash-stripped",
        ),
        pytest.param(
            "allow_outside_root = true\n"
            "[[rule]]\n"
            'id = "r"\n'
            'files = ["/etc/hosts", "../x.py", "a/../b.py", "C:/x.py"]\n'
            'forbid = ["x"]\n',
            Manifest(
                path=MANIFEST_NAME,
                root="",
                rules=(forbid_rule("r", 2, ("/etc/hosts", "../x.py", "a/../b.py", "C:/x.py")),),
                allow_outside_root=True,
            ),
            id="allow-outside-root",
        ),
        pytest.param(
            'import_roots = ["python", "./src/", "."]\n'
            "[[rule]]\n"
            'id = "r"\n'
            'files = ["a.py"]\n'
            'forbid = ["x"]\n',
            Manifest(
                path=MANIFEST_NAME,
                root="",
                rules=(forbid_rule("r", 2, ("a.py",)),),
                import_roots=("python", "src", ""),
            ),
            id="import-roots",
        ),
        pytest.param(
            'graph_budget = 1000\n[[rule]]\nid = "r"\nfiles = ["a.py"]\nforbid = ["x"]\n',
            Manifest(
                path=MANIFEST_NAME,
                root="",
                rules=(forbid_rule("r", 2, ("a.py",)),),
                graph_budget=1000,
            ),
            id="graph-budget",
        ),
        pytest.param(  # the smallest budget there is: one step
            'graph_budget = 1\n[[rule]]\nid = "r"\nfiles = ["a.py"]\nforbid = ["x"]\n',
            Manifest(
                path=MANIFEST_NAME,
                root="",
                rules=(forbid_rule("r", 2, ("a.py",)),),
                graph_budget=1,
            ),
            id="graph-budget-of-one",
        ),
        pytest.param(
            '[[rule]]\nid = "r"\nfiles = ["run.sh"]\nmode = "100755"\n',
            Manifest(
                path=MANIFEST_NAME,
                root="",
                rules=(Rule(id="r", files=("run.sh",), mode="100755", line=1),),
            ),
            id="mode-is-read",
        ),
        pytest.param(
            'rule = [{id = "a", files = ["a.py"], forbid = ["x"]},\n'
            '        {id = "b", absent = ["b.py"]}]\n',
            Manifest(
                path=MANIFEST_NAME,
                root="",
                rules=(forbid_rule("a", 0), Rule(id="b", files=(), absent=("b.py",))),
            ),
            id="inline-rules-have-no-line",
        ),
    ],
)
def test_valid_manifest(text: str, expected: Manifest) -> None:
    assert parse_manifest(text, MANIFEST_NAME) == expected


def test_header_lines_with_spacing_quotes_and_comments() -> None:
    text = (
        "# comment\n"
        "\n"
        '  [[ rule ]]  # indented, spaced, commented\nid = "a"\n' + OK + "\n"
        "[['rule']]\r\n"
        'id = "b"\n' + OK
    )
    manifest = parse_manifest(text, MANIFEST_NAME)
    assert [(rule.id, rule.line) for rule in manifest.rules] == [("a", 3), ("b", 8)]


def test_header_lines_fall_back_to_zero_on_mismatch() -> None:
    # three header-looking lines for two rules (one is inside a string): none can be trusted
    text = '[[rule]]\nid = "a"\n' + OK + 'why = """\n[[rule]]\n"""\n[[rule]]\nid = "b"\n' + OK
    manifest = parse_manifest(text, MANIFEST_NAME)
    assert [(rule.id, rule.line) for rule in manifest.rules] == [("a", 0), ("b", 0)]


def test_line_counts_only_newlines() -> None:
    # U+2028 is a line break for str.splitlines() but not for TOML
    text = '# line\u2028separator\n[[rule]]\nid = "a"\n' + OK
    assert parse_manifest(text, MANIFEST_NAME).rules[0].line == 2


def test_forbid_lines_are_line_patterns_of_forbid() -> None:
    text = "[[rule]]\n" + OK + 'forbid_lines = ["  f(x)  "]\nmust_exist = true\n'
    (rule,) = parse_manifest(text, MANIFEST_NAME).rules
    assert rule.forbid == (
        Pattern("x", PatternTier.SUBSTRING, "x"),
        Pattern("line:f(x)", PatternTier.LINE, "f(x)"),
    )
    assert rule.must_exist


def test_unless_lines_are_kept_on_the_rule() -> None:
    unless = 'unless_lines = ["  keep()  "]\nunless_lines_escaped = ["k\\\\xff"]\n'
    text = "[[rule]]\n" + OK + unless
    (rule,) = parse_manifest(text, MANIFEST_NAME).rules
    assert rule.unless == (
        Pattern("line:keep()", PatternTier.LINE, "keep()"),
        Pattern("line:k\udcff", PatternTier.LINE, "k\udcff"),
    )
    assert rule.forbid == (Pattern("x", PatternTier.SUBSTRING, "x"),)


def test_default_kinds() -> None:
    rule = parse_manifest("[[rule]]\n" + OK, MANIFEST_NAME).rules[0]
    assert rule.kinds == DEFAULT_KINDS
    assert isinstance(rule.kinds, frozenset)


@pytest.mark.parametrize(
    ("bodies", "expected_ids"),
    [
        pytest.param(['files = ["a.py"]\nforbid = ["sm120"]'], ["forbid-sm120"], id="forbid"),
        pytest.param(['files = ["a.py"]\nexpect = ["sm90", "x"]'], ["expect-sm90"], id="expect"),
        pytest.param(['absent = ["src/old.py"]'], ["absent-src-old.py"], id="absent"),
        pytest.param(['files = ["run.sh"]\nmode = "100755"'], ["mode-run.sh"], id="mode"),
        pytest.param(
            ['files = ["a.py"]\nexpect = ["e"]\nforbid = ["f"]\nabsent = ["b"]'],
            ["forbid-f"],
            id="forbid-first",
        ),
        pytest.param(
            ['files = ["a.py"]\nexpect = ["e"]\nabsent = ["b"]'],
            ["expect-e"],
            id="expect-before-absent",
        ),
        pytest.param(
            ['files = ["a.py"]\nforbid = ["re:sm1[0-9]"]'], ["forbid-re-sm1-0-9"], id="slug-regex"
        ),
        pytest.param(
            ['files = ["a.py"]\nforbid = ["torch.cuda.sm_x"]'],
            ["forbid-torch.cuda.sm_x"],
            id="slug-keeps-dots-underscores",
        ),
        pytest.param(['files = ["a.py"]\nforbid = ["=flag"]'], ["forbid-flag"], id="slug-exact"),
        pytest.param(['files = ["a.py"]\nforbid = ["*"]'], ["forbid"], id="slug-empty"),
        pytest.param(
            ['files = ["a.py"]\nforbid = ["XLA_FLAGX"]'], ["forbid-XLA_FLAGX"], id="slug-keeps-x"
        ),
        pytest.param(
            ['files = ["a.py"]\nforbid = ["re:é +  x"]'], ["forbid-re-x"], id="slug-non-ascii"
        ),
        pytest.param(
            ['files = ["a.py"]\nforbid = ["' + "abcdefghij" * 3 + "-/" + "k" * 20 + '"]'],
            ["forbid-" + "abcdefghij" * 3 + "-" + "k" * 9],
            id="slug-truncated-to-40",
        ),
        pytest.param(
            ['files = ["a.py"]\nforbid = ["' + "a" * 39 + '/b"]'],
            ["forbid-" + "a" * 39],
            id="slug-truncated-no-trailing-dash",
        ),
        pytest.param(
            ['files = ["a.py"]\nforbid = ["x"]'] * 3,
            ["forbid-x", "forbid-x-2", "forbid-x-3"],
            id="collisions-numbered",
        ),
        pytest.param(
            ['files = ["a.py"]\nforbid = ["x"]', 'id = "forbid-x"\nabsent = ["b"]'],
            ["forbid-x-2", "forbid-x"],
            id="explicit-id-wins",
        ),
        pytest.param(
            [
                'id = "forbid-x-2"\nabsent = ["b"]',
                'files = ["a.py"]\nforbid = ["x"]',
                'files = ["a.py"]\nforbid = ["x"]',
            ],
            ["forbid-x-2", "forbid-x", "forbid-x-3"],
            id="numbering-skips-explicit",
        ),
    ],
)
def test_default_ids(bodies: list[str], expected_ids: list[str]) -> None:
    text = "".join(f"[[rule]]\n{body}\n" for body in bodies)
    manifest = parse_manifest(text, MANIFEST_NAME)
    assert [rule.id for rule in manifest.rules] == expected_ids


# ---------------------------------------------------------------- problems


def case(text: str, *problems: str, id: str) -> object:
    return pytest.param(text, problems, id=id)


TOP_LEVEL_CASES = [
    case("root = 1\n[[rule]]\n" + OK, "root: must be a string, not an integer", id="root-type"),
    case('root = ["a"]\n[[rule]]\n' + OK, "root: must be a string, not an array", id="root-array"),
    case(
        'hosts = ["gpu1"]\n[[rule]]\n' + OK,
        'hosts: must be a table of name = "host" strings, not an array',
        id="hosts-type",
    ),
    case(
        '[hosts]\na = "ok"\nb = 2\nc = 1979-05-27\n[[rule]]\n' + OK,
        "hosts.b: must be a string, not an integer",
        "hosts.c: must be a string, not a date",
        id="hosts-values",
    ),
    case(
        'allow_outside_root = "yes"\n[[rule]]\n' + OK,
        "allow_outside_root: must be true or false, not a string",
        id="allow-outside-root-type",
    ),
    case(
        "allow_outside_root = 1\n[[rule]]\n" + OK,
        "allow_outside_root: must be true or false, not an integer",
        id="allow-outside-root-int",
    ),
    case(
        'import_roots = "python"\n[[rule]]\n' + OK,
        'import_roots: must be a list of folders (["python"]), not a string',
        id="import-roots-type",
    ),
    case(
        'import_roots = ["/abs", 3, "../up", "ok"]\n[[rule]]\n' + OK,
        "import_roots[0]: '/abs' is absolute; import roots are relative to the tree",
        "import_roots[1]: must be a string, not an integer",
        "import_roots[2]: '../up' leaves the tree; import roots are relative to the tree",
        id="import-roots-values",
    ),
    case(
        'graph_budget = "big"\n[[rule]]\n' + OK,
        "graph_budget: must be a whole number of steps from 1 (10000000), not a string",
        id="graph-budget-type",
    ),
    case(
        "graph_budget = true\n[[rule]]\n" + OK,
        "graph_budget: must be a whole number of steps from 1 (10000000), not a boolean",
        id="graph-budget-bool",
    ),
    case(
        "graph_budget = 0\n[[rule]]\n" + OK,
        "graph_budget: must be a whole number of steps from 1 (10000000), not 0",
        id="graph-budget-zero",
    ),
    case(
        "graph_budget = 1.5\n[[rule]]\n" + OK,
        "graph_budget: must be a whole number of steps from 1 (10000000), not a float",
        id="graph-budget-float",
    ),
    case(
        '[[rules]]\nfiles = ["a.py"]\nforbid = ["x"]\n',
        "unknown key 'rules' (did you mean 'rule'?) (at line 1)",
        "no [[rule]] tables: nothing to check",
        id="unknown-rules",
    ),
    case(
        'roots = "src"\n[[rule]]\n' + OK,
        "unknown key 'roots' (did you mean 'root'?) (at line 1)",
        id="unknown-roots",
    ),
    case(
        "host = {}\nallow_outside = true\n[[rule]]\n" + OK,
        "unknown key 'host' (did you mean 'hosts'?) (at line 1)",
        "unknown key 'allow_outside' (did you mean 'allow_outside_root'?) (at line 2)",
        id="unknown-several-in-order",
    ),
    case(
        "zzz = 1\n[[rule]]\n" + OK,
        f"unknown key 'zzz' (valid keys: {VALID_TOP_KEYS}) (at line 1)",
        id="unknown-nothing-near",
    ),
    case(
        'forbid = ["x"]\n[[rule]]\n' + OK,
        "unknown key 'forbid' (it belongs in a [[rule]] table) (at line 1)",
        id="rule-key-at-top-level",
    ),
    case("", "no [[rule]] tables: nothing to check", id="empty-document"),
    case('root = "src"\n', "no [[rule]] tables: nothing to check", id="no-rules"),
    case("rule = []\n", "no [[rule]] tables: nothing to check", id="empty-rule-array"),
    case(
        '[rule]\nfiles = ["a.py"]\nforbid = ["x"]\n',
        "rule: must be an array of tables ([[rule]]), not a table",
        id="rule-is-a-table",
    ),
    case(
        'rule = "x"\n', "rule: must be an array of tables ([[rule]]), not a string", id="rule-str"
    ),
    case(
        'rule = [1, {files = ["a.py"], forbid = ["x"]}, "s"]\n',
        "rule 1: must be a table, not an integer",
        "rule 3: must be a table, not a string",
        id="rule-items-not-tables",
    ),
]

RULE_KEY_CASES = [
    case(
        "[[rule]]\nid = 1\n" + OK,
        "rule 1 (line 2): id: must be a string, not an integer",
        id="id-type",
    ),
    case(
        '[[rule]]\nid = "no sm120"\n' + OK,
        "rule 1 (line 2): id: 'no sm120' is not a valid id: use letters, digits, '_', '.' and '-', "
        "starting with a letter or digit",
        id="id-space",
    ),
    case(
        '[[rule]]\nid = "-x"\n' + OK,
        "rule 1 (line 2): id: '-x' is not a valid id: use letters, digits, '_', '.' and '-', "
        "starting with a letter or digit",
        id="id-leading-dash",
    ),
    case(
        '[[rule]]\nid = ""\n' + OK,
        "rule 1 (line 2): id: '' is not a valid id: use letters, digits, '_', '.' and '-', "
        "starting with a letter or digit",
        id="id-empty",
    ),
    case(
        '[[rule]]\nid = "a"\n' + OK + '[[rule]]\nid = "b"\n' + OK + '[[rule]]\nid = "a"\n' + OK,
        "rule 3 (line 10): id: 'a' is already the id of rule 1 (line 1)",
        id="id-duplicate",
    ),
    case(
        'rule = [{id = "a", absent = ["x"]}, {id = "a", absent = ["y"]}]\n',
        "rule 2: id: 'a' is already the id of rule 1",
        id="id-duplicate-inline",
    ),
    case(
        '[[rule]]\nfiles = "a.py"\nforbid = ["x"]\n',
        "rule 1 (line 2): files: must be a list of strings, not a string",
        id="files-string",
    ),
    case(
        '[[rule]]\nfiles = []\nforbid = ["x"]\n',
        "rule 1 (line 2): files: must not be empty",
        id="files-empty",
    ),
    case(
        '[[rule]]\nfiles = ["a.py", 2, ["b"]]\nforbid = ["x"]\n',
        "rule 1 (line 2): files[1]: must be a string, not an integer",
        "rule 1 (line 2): files[2]: must be a string, not an array",
        id="files-items",
    ),
    case(
        '[[rule]]\nfiles = ["a.py"]\nforbid = "x"\n',
        "rule 1 (line 3): forbid: must be a list of strings, not a string",
        id="forbid-string",
    ),
    case(
        '[[rule]]\nfiles = ["a.py"]\nforbid = []\n',
        "rule 1 (line 3): forbid: must not be empty",
        id="forbid-empty",
    ),
    case(
        '[[rule]]\nfiles = ["a.py"]\nforbid = [1.5]\n',
        "rule 1 (line 3): forbid[0]: must be a string, not a float",
        id="forbid-item",
    ),
    case(
        '[[rule]]\nfiles = ["a.py"]\nexpect = {x = 1}\n',
        "rule 1 (line 3): expect: must be a list of strings, not a table",
        id="expect-table",
    ),
    case(
        '[[rule]]\nfiles = ["a.py"]\nexpect = []\n',
        "rule 1 (line 3): expect: must not be empty",
        id="expect-empty",
    ),
    case(
        '[[rule]]\nfiles = ["a.py"]\nexpect = [true]\n',
        "rule 1 (line 3): expect[0]: must be a string, not a boolean",
        id="expect-item",
    ),
    case(
        '[[rule]]\nabsent = "a.py"\n',
        "rule 1 (line 2): absent: must be a list of strings, not a string",
        id="absent-string",
    ),
    case(
        "[[rule]]\nabsent = []\n", "rule 1 (line 2): absent: must not be empty", id="absent-empty"
    ),
    case(
        "[[rule]]\nabsent = [07:32:00]\n",
        "rule 1 (line 2): absent[0]: must be a string, not a time",
        id="absent-item",
    ),
    case(
        '[[rule]]\nkinds = "call"\n' + OK,
        "rule 1 (line 2): kinds: must be a list of strings, not a string",
        id="kinds-string",
    ),
    case(
        "[[rule]]\nkinds = []\n" + OK, "rule 1 (line 2): kinds: must not be empty", id="kinds-empty"
    ),
    case(
        "[[rule]]\nkinds = [1979-05-27T07:32:00]\n" + OK,
        "rule 1 (line 2): kinds[0]: must be a string, not a date-time",
        id="kinds-item",
    ),
    case(
        '[[rule]]\nkinds = ["calls", "imports", "zebra", "call", "call", "text"]\n' + OK,
        "rule 1 (line 2): kinds[0]: unknown kind 'calls' (did you mean 'call'?)",
        "rule 1 (line 2): kinds[1]: unknown kind 'imports' (did you mean 'import'?)",
        "rule 1 (line 2): kinds[2]: unknown kind 'zebra' (valid kinds: assignment, call, comment, "
        "condition, definition, docstring, import, reference, string)",
        "rule 1 (line 2): kinds[4]: 'call' is already listed",
        "rule 1 (line 2): kinds[5]: 'text' cannot be selected: it is implied for files that are "
        "not Python",
        id="kinds-values",
    ),
    case(
        "[[rule]]\nwhy = 1\n" + OK,
        "rule 1 (line 2): why: must be a string, not an integer",
        id="why-type",
    ),
    case(
        '[[rule]]\nmissing_ok = "yes"\n' + OK,
        "rule 1 (line 2): missing_ok: must be true or false, not a string",
        id="missing-ok-string",
    ),
    case(
        "[[rule]]\nmissing_ok = 0\n" + OK,
        "rule 1 (line 2): missing_ok: must be true or false, not an integer",
        id="missing-ok-int",
    ),
    case(
        '[[rule]]\nforbids = ["y"]\nfile = ["b.py"]\n' + OK,
        "rule 1 (line 2): unknown key 'forbids' (did you mean 'forbid'?)",
        "rule 1 (line 3): unknown key 'file' (did you mean 'files'?)",
        id="unknown-rule-keys",
    ),
    # one mistake, one problem: the misspelt key is taken as meant for what follows from it
    case(
        '[[rule]]\nforbidd = ["y"]\nfiles = ["b.py"]\n',
        "rule 1 (line 2): unknown key 'forbidd' (did you mean 'forbid'?)",
        id="misspelt-forbid-alone",
    ),
    case(
        '[[rule]]\nfilez = ["b.py"]\nforbid = ["y"]\n',
        "rule 1 (line 2): unknown key 'filez' (did you mean 'files'?)",
        id="misspelt-files-alone",
    ),
    case(
        '[[rule]]\npattern = "x"\n' + OK,
        f"rule 1 (line 2): unknown key 'pattern' (valid keys: {VALID_KEYS})",
        id="unknown-rule-key-nothing-near",
    ),
    case(
        '[[rule]]\nroot = "src"\n' + OK,
        f"rule 1 (line 2): unknown key 'root' (valid keys: {VALID_KEYS})",
        id="top-level-key-in-rule",
    ),
    case(
        "[[rule]]\n" + OK + "[rule.sub]\nx = 1\n",
        f"rule 1 (line 1): unknown key 'sub' (valid keys: {VALID_KEYS})",
        id="sub-table-in-rule",
    ),
]

CROSS_KEY_CASES = [
    case(
        '[[rule]]\nfiles = ["a.py"]\nforbid_lines = ["x()", "", "a\\nb", "  x()  ", 3]\n',
        "rule 1 (line 3): forbid_lines[1]: a blank line cannot be told apart from any other",
        "rule 1 (line 3): forbid_lines[2]: one line only (it holds a line break)",
        "rule 1 (line 3): forbid_lines[3]: the same line as forbid_lines[0]",
        "rule 1 (line 3): forbid_lines[4]: must be a string, not an integer",
        id="forbid-lines-problems",
    ),
    case(
        '[[rule]]\nforbid_lines = ["x()"]\n',
        "rule 1 (line 1): forbid_lines needs files to look in",
        id="forbid-lines-need-files",
    ),
    case(
        '[[rule]]\nfiles = ["a.py"]\nexpect = ["x"]\nmissing_ok = true\nmust_exist = 1\n',
        "rule 1 (line 5): must_exist: must be true or false, not an integer",
        id="must-exist-type",
    ),
    case(
        '[[rule]]\nfiles = ["a.py"]\nexpect = ["x"]\nmissing_ok = true\nmust_exist = true\n',
        "rule 1 (line 1): missing_ok and must_exist contradict each other: keep one",
        id="must-exist-and-missing-ok",
    ),
    case(
        '[[rule]]\nid = "a"\n',
        "rule 1 (line 1): nothing to check: give forbid, expect or absent",
        id="nothing-to-check",
    ),
    case(
        '[[rule]]\nfiles = ["a.py"]\nwhy = "x"\n',
        "rule 1 (line 1): nothing to check: give forbid, expect or absent",
        "rule 1 (line 2): files: has no effect without forbid or expect",
        id="files-only",
    ),
    case(
        '[[rule]]\nfiles = ["a.py"]\nabsent = ["b.py"]\n',
        "rule 1 (line 2): files: has no effect without forbid or expect",
        id="files-with-absent-only",
    ),
    case(
        '[[rule]]\nforbid = ["x"]\n',
        "rule 1 (line 1): forbid needs files to look in",
        id="forbid-without-files",
    ),
    case(
        '[[rule]]\nexpect = ["x"]\nabsent = ["b.py"]\n',
        "rule 1 (line 1): expect needs files to look in",
        id="expect-without-files",
    ),
    case(
        '[[rule]]\nforbid = ["x"]\nexpect = ["y"]\n',
        "rule 1 (line 1): forbid and expect need files to look in",
        id="both-without-files",
    ),
    case(
        '[[rule]]\nfiles = ["a.py", "./b.py", "c.py"]\nforbid = ["x"]\nabsent = ["b.py", "a.py"]\n',
        "rule 1 (line 1): 'a.py' is in both files and absent",
        "rule 1 (line 1): 'b.py' is in both files and absent",
        id="files-and-absent-overlap",
    ),
    case(
        "[[rule]]\nfiles = []\nforbid = []\n",
        "rule 1 (line 2): files: must not be empty",
        "rule 1 (line 3): forbid: must not be empty",
        id="empty-lists-no-cross-problems",
    ),
    case(
        '[[rule]]\nmode = "100755"\n',
        "rule 1 (line 1): mode needs files to look in",
        id="mode-without-files",
    ),
    case(
        '[[rule]]\nfiles = ["a.sh"]\nmode = "755"\n',
        "rule 1 (line 3): mode: '755' is not a file mode git writes: use 100644 or 100755",
        id="mode-not-git-s",
    ),
    case(
        '[[rule]]\nfiles = ["a.sh"]\nmode = 755\n',
        "rule 1 (line 3): mode: must be a string, not an integer",
        id="mode-not-a-string",
    ),
]

PATTERN_CASES = [
    case(
        '[[rule]]\nfiles = ["a.py"]\nforbid = ["ok", "re:sm1[0-9", "re:("]\n',
        "rule 1 (line 3): forbid[1]: bad regular expression 'sm1[0-9': unterminated character set "
        "at position 3",
        "rule 1 (line 3): forbid[2]: bad regular expression '(': missing ), unterminated "
        "subpattern at position 0",
        id="bad-regex",
    ),
    case(
        '[[rule]]\nfiles = ["a.py"]\nforbid = ["", " x", "re:", "="]\n',
        "rule 1 (line 3): forbid[0]: empty pattern",
        "rule 1 (line 3): forbid[1]: pattern ' x' has leading or trailing whitespace",
        "rule 1 (line 3): forbid[2]: empty regular expression after 're:'",
        "rule 1 (line 3): forbid[3]: empty name after '='",
        id="bad-patterns",
    ),
    case(
        '[[rule]]\nfiles = ["a.py"]\nexpect = ["x", 1, "re:(", "x"]\n',
        "rule 1 (line 3): expect[1]: must be a string, not an integer",
        "rule 1 (line 3): expect[2]: bad regular expression '(': missing ), unterminated "
        "subpattern at position 0",
        "rule 1 (line 3): expect[3]: 'x' is already expect[0]",
        id="expect-problems-in-index-order",
    ),
]

PATH_CASES = [
    case(
        '[[rule]]\nfiles = ["src\\\\a.py"]\nforbid = ["x"]\n',
        "rule 1 (line 2): files[0]: 'src\\a.py' uses '\\': write 'src/a.py'",
        id="backslash",
    ),
    case(
        '[[rule]]\nfiles = ["", "./", "."]\nforbid = ["x"]\n',
        "rule 1 (line 2): files[0]: empty path",
        "rule 1 (line 2): files[1]: empty path",
        "rule 1 (line 2): files[2]: empty path",
        id="empty-paths",
    ),
    case(
        '[[rule]]\nfiles = ["src/"]\nforbid = ["x"]\n',
        "rule 1 (line 2): files[0]: 'src/' ends with '/': name files or globs ('src/**')",
        id="trailing-slash",
    ),
    case(
        '[[rule]]\nfiles = ["/etc/x.py", "C:/x.py"]\nforbid = ["x"]\n',
        f"rule 1 (line 2): files[0]: '/etc/x.py' {ABSOLUTE}",
        f"rule 1 (line 2): files[1]: 'C:/x.py' {ABSOLUTE}",
        id="absolute",
    ),
    case(
        '[[rule]]\nfiles = ["../x.py", "a/../../b.py", "a/..", "..a/b.py"]\nforbid = ["x"]\n',
        f"rule 1 (line 2): files[0]: '../x.py' goes outside the root with '..' {OUTSIDE}",
        f"rule 1 (line 2): files[1]: 'a/../../b.py' goes outside the root with '..' {OUTSIDE}",
        f"rule 1 (line 2): files[2]: 'a/..' goes outside the root with '..' {OUTSIDE}",
        id="dot-dot",
    ),
    case(
        '[[rule]]\nfiles = ["a//b.py"]\nforbid = ["x"]\n',
        "rule 1 (line 2): files[0]: 'a//b.py' has an empty segment ('//')",
        id="double-slash",
    ),
    case(
        '[[rule]]\nfiles = ["a.py", "./a.py"]\nforbid = ["x"]\n',
        "rule 1 (line 2): files[1]: 'a.py' is already files[0]",
        id="duplicate-after-normalising",
    ),
    case(
        '[[rule]]\nabsent = ["/x", "..\\\\y", "../z"]\n',
        f"rule 1 (line 2): absent[0]: '/x' {ABSOLUTE}",
        "rule 1 (line 2): absent[1]: '..\\y' uses '\\': write '../y'",
        f"rule 1 (line 2): absent[2]: '../z' goes outside the root with '..' {OUTSIDE}",
        id="absent-paths",
    ),
    case(
        'allow_outside_root = true\n[[rule]]\nabsent = ["a\\\\b", "", "x/"]\n',
        "rule 1 (line 3): absent[0]: 'a\\b' uses '\\': write 'a/b'",
        "rule 1 (line 3): absent[1]: empty path",
        "rule 1 (line 3): absent[2]: 'x/' ends with '/': name files or globs ('x/**')",
        id="allow-outside-root-still-checks-the-rest",
    ),
    case(
        'allow_outside_root = "yes"\n[[rule]]\nabsent = ["../x"]\n',
        "allow_outside_root: must be true or false, not a string",
        f"rule 1 (line 3): absent[0]: '../x' goes outside the root with '..' {OUTSIDE}",
        id="bad-allow-outside-root-means-false",
    ),
]

SYNTAX_CASES = [
    case(
        '[[rule]]\nid = "a" "b"\n',
        "TOML syntax error: Expected newline or end of document after a statement "
        "(at line 2, column 10)",
        id="syntax",
    ),
    case(
        '[[rule]]\nfiles = ["a.py"]\nforbid = ',
        "TOML syntax error: Invalid value (at line 3, column 10)",
        id="syntax-at-end-of-document",
    ),
    case(
        '[rule]\nid = "a"\n[[rule]]\n',
        "TOML syntax error: Cannot overwrite a value (at line 3, column 7)",
        id="syntax-table-then-array",
    ),
]

SEVERAL_CASES = [
    case(
        'rules = 1\nroot = 2\n\n[[rule]]\nid = "a b"\nfiles = "a.py"\nforbid = ["re:("]\n'
        'kinds = ["cal"]\n\n[[rule]]\nid = "ok"\nwhy = "x"\n\n[[rule]]\nid = "ok"\n'
        'files = ["../a.py"]\nexpect = []\nmising_ok = true\n',
        "unknown key 'rules' (did you mean 'rule'?) (at line 1)",
        "root: must be a string, not an integer",
        "rule 1 (line 5): id: 'a b' is not a valid id: use letters, digits, '_', '.' and '-', "
        "starting with a letter or digit",
        "rule 1 (line 6): files: must be a list of strings, not a string",
        "rule 1 (line 7): forbid[0]: bad regular expression '(': missing ), unterminated "
        "subpattern at position 0",
        "rule 1 (line 8): kinds[0]: unknown kind 'cal' (did you mean 'call'?)",
        "rule 2 (line 10): nothing to check: give forbid, expect or absent",
        "rule 3 (line 18): unknown key 'mising_ok' (did you mean 'missing_ok'?)",
        "rule 3 (line 15): id: 'ok' is already the id of rule 2 (line 10)",
        f"rule 3 (line 16): files[0]: '../a.py' goes outside the root with '..' {OUTSIDE}",
        "rule 3 (line 17): expect: must not be empty",
        id="several-problems",
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    TOP_LEVEL_CASES
    + RULE_KEY_CASES
    + CROSS_KEY_CASES
    + PATTERN_CASES
    + PATH_CASES
    + SYNTAX_CASES
    + SEVERAL_CASES,
)
def test_problems(text: str, expected: tuple[str, ...]) -> None:
    assert problems_of(text) == expected


# ---------------------------------------------------------------- pyproject.toml


PYPROJECT_HEAD = '[project]\nname = "x"\n\n'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        case('[project]\nname = "x"\n', "no [tool.cleantree] table", id="no-table"),
        case("", "no [tool.cleantree] table", id="empty"),
        case('tool = "x"\n', "no [tool.cleantree] table", id="tool-not-a-table"),
        case(
            "[tool]\ncleantree = 1\n",
            "tool.cleantree: must be a table, not an integer",
            id="cleantree-not-a-table",
        ),
        case(
            PYPROJECT_HEAD + "[tool.cleantree]\n",
            "no [[tool.cleantree.rule]] tables: nothing to check",
            id="no-rules",
        ),
        case(
            PYPROJECT_HEAD + "[tool.cleantree]\nroot = 1\nrules = 2\n\n[[tool.cleantree.rule]]\n"
            'forbid = ["x"]\n',
            "unknown key 'tool.cleantree.rules' (did you mean 'tool.cleantree.rule'?) (at line 6)",
            "tool.cleantree.root: must be a string, not an integer",
            "rule 1 (line 8): forbid needs files to look in",
            id="keys-named-by-full-path",
        ),
        case(
            PYPROJECT_HEAD + '[tool.cleantree]\nforbid = ["x"]\n[tool.cleantree.rule]\n',
            "unknown key 'tool.cleantree.forbid' (it belongs in a [[tool.cleantree.rule]] table) "
            "(at line 5)",
            "tool.cleantree.rule: must be an array of tables ([[tool.cleantree.rule]]), "
            "not a table",
            id="rule-table-and-misplaced-key",
        ),
        case(
            PYPROJECT_HEAD
            + "[tool.cleantree]\nzzz = 1\nallow_outside_root = 0\n[tool.cleantree.hosts]\na = 1\n",
            "unknown key 'tool.cleantree.zzz' (valid keys: tool.cleantree.allow_outside_root, "
            "tool.cleantree.exclude, tool.cleantree.graph_budget, tool.cleantree.hosts, "
            "tool.cleantree.import_roots, "
            "tool.cleantree.root, "
            "tool.cleantree.rule) (at line 5)",
            "tool.cleantree.hosts.a: must be a string, not an integer",
            "tool.cleantree.allow_outside_root: must be true or false, not an integer",
            "no [[tool.cleantree.rule]] tables: nothing to check",
            id="hosts-allow-and-suggestion-lists",
        ),
        case(
            '[tool.cleantree]\nroot = "src"\n[[tool.cleantree.rule]]\nid = "x"\n',
            "rule 1 (line 3): nothing to check: give forbid, expect or absent",
            id="rule-line-from-pyproject-header",
        ),
        case(
            '[project]\nname = "x" x\n[tool.cleantree]\n',
            "TOML syntax error: Expected newline or end of document after a statement "
            "(at line 2, column 12)",
            id="syntax-error-anywhere",
        ),
    ],
)
def test_pyproject_problems(text: str, expected: tuple[str, ...]) -> None:
    assert problems_of(text, "some/dir/pyproject.toml") == expected


def test_pyproject_manifest() -> None:
    text = (
        PYPROJECT_HEAD + "[tool.ruff]\nline-length = 100\n\n"
        '[tool.cleantree]\nroot = "src"\n\n'
        "[[tool.cleantree.rule]]\n" + OK + "\n"
        '[[ tool . "cleantree" . rule ]]  # spaced\nabsent = ["old.py"]\n'
        "\n[[rule]]\n# a [[rule]] outside tool.cleantree is not ours\n"
    )
    manifest = parse_manifest(text, "pyproject.toml")
    assert manifest == Manifest(
        path="pyproject.toml",
        root="src",
        rules=(
            forbid_rule("forbid-x", 10),
            Rule(id="absent-old.py", files=(), absent=("old.py",), line=14),
        ),
    )


def test_docstring_example_parses() -> None:
    example = textwrap.dedent(manifest_module.__doc__.split("::\n", 1)[1]).lstrip("\n")
    manifest = parse_manifest(example, MANIFEST_NAME)
    assert (manifest.root, manifest.hosts) == ("src", (("gpu1", "me@gpu1"),))
    assert [(rule.id, rule.line) for rule in manifest.rules] == [("no-sm120", 7)]


def test_pyproject_name_decides_the_format() -> None:
    # the same text is a whole manifest under any other name
    text = '[[rule]]\nid = "a"\n' + OK
    assert parse_manifest(text, "conf/pyproject.toml.bak").rules[0].id == "a"
    assert problems_of(text, "conf/pyproject.toml") == ("no [tool.cleantree] table",)


def test_error_renders_every_problem() -> None:
    with pytest.raises(ManifestError) as info:
        parse_manifest("roots = 1\n", "m.toml")
    assert str(info.value) == (
        "m.toml: 2 problems\n"
        "  - unknown key 'roots' (did you mean 'root'?) (at line 1)\n"
        "  - no [[rule]] tables: nothing to check"
    )


# ---------------------------------------------------------------- load_manifest


def test_load_manifest(tmp_path: Path) -> None:
    path = tmp_path / MANIFEST_NAME
    path.write_bytes(b'\xef\xbb\xbf[[rule]]\nid = "a"\n' + OK.encode())
    manifest = load_manifest(path)
    assert manifest == Manifest(path=str(path), root="", rules=(forbid_rule("a", 1),))


def test_load_manifest_pyproject(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.cleantree]\n[[tool.cleantree.rule]]\nid = "a"\n' + OK, encoding="utf-8")
    assert load_manifest(path).rules == (forbid_rule("a", 2),)


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        pytest.param(None, "cannot read the manifest: no such file", id="missing"),
        pytest.param("dir", "cannot read the manifest: it is a folder", id="folder"),
        pytest.param(
            b'root = "a"\n# caf\xe9\n',
            "not valid UTF-8 (byte 0xe9 at line 2, offset 16): save the manifest as UTF-8",
            id="latin-1",
        ),
        pytest.param(
            b"\xff",
            "not valid UTF-8 (byte 0xff at line 1, offset 0): save the manifest as UTF-8",
            id="first-byte",
        ),
        pytest.param(
            b'[[rule]]\nforbid = ["x"]\n',
            "rule 1 (line 1): forbid needs files to look in",
            id="parse-problems",
        ),
    ],
)
def test_load_manifest_problems(tmp_path: Path, make: bytes | str | None, expected: str) -> None:
    path = tmp_path / MANIFEST_NAME
    if make == "dir":
        path.mkdir()
    elif isinstance(make, bytes):
        path.write_bytes(make)
    with pytest.raises(ManifestError) as info:
        load_manifest(path)
    assert info.value.source == str(path)
    assert info.value.problems == (expected,)


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        pytest.param(
            PermissionError(errno.EACCES, "Permission denied"), "permission denied", id="eacces"
        ),
        pytest.param(OSError(errno.EIO, "Input/output error"), "input/output error", id="eio"),
        pytest.param(OSError("stale handle"), "stale handle", id="no-strerror"),
    ],
)
def test_load_manifest_os_errors(
    monkeypatch: pytest.MonkeyPatch, error: OSError, reason: str
) -> None:
    # root ignores permission bits, so the error is raised from read_bytes itself
    def read_bytes(self: Path) -> bytes:
        raise error

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    with pytest.raises(ManifestError) as info:
        load_manifest(Path("m.toml"))
    assert info.value.problems == (f"cannot read the manifest: {reason}",)


# ---------------------------------------------------------------- find_manifest


PYPROJECT_WITH_TABLE = '[project]\nname = "x"\n[tool.cleantree]\nroot = "src"\n'


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param({}, None, id="nothing"),
        pytest.param({MANIFEST_NAME: ""}, MANIFEST_NAME, id="cleantree-toml"),
        pytest.param(
            {MANIFEST_NAME: "", "pyproject.toml": PYPROJECT_WITH_TABLE},
            MANIFEST_NAME,
            id="cleantree-toml-wins",
        ),
        pytest.param(
            {"pyproject.toml": PYPROJECT_WITH_TABLE}, "pyproject.toml", id="pyproject-with-table"
        ),
        pytest.param(
            {"pyproject.toml": '[tool.cleantree.hosts]\na = "b"\n'},
            "pyproject.toml",
            id="pyproject-with-sub-table",
        ),
        pytest.param({"pyproject.toml": '[project]\nname = "x"\n'}, None, id="pyproject-without"),
        pytest.param(
            {"pyproject.toml": '[project]\nname = "x"  # see cleantree\n[tool.other]\n'},
            None,
            id="pyproject-mentions-only",
        ),
        pytest.param(
            {"pyproject.toml": '[project]\nname = "pytest-cleantree"\n'},
            None,
            id="pyproject-of-a-project-named-so",
        ),
        pytest.param(
            {"pyproject.toml": "[tool.cleantree\n"}, "pyproject.toml", id="broken-toml-mentions"
        ),
        pytest.param({"pyproject.toml": "[tool.x\n"}, None, id="broken-toml-no-mention"),
        pytest.param(
            {"pyproject.toml": b"[tool.cleantree]\n# \xff\n"},
            "pyproject.toml",
            id="bad-utf8-mentions",
        ),
        pytest.param({"cleantree.toml/x": ""}, MANIFEST_NAME, id="folder-named-cleantree-toml"),
    ],
)
def test_find_manifest(tmp_path: Path, files: dict[str, str | bytes], expected: str | None) -> None:
    for name, content in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    found = find_manifest(tmp_path)
    assert found == (None if expected is None else tmp_path / expected)


def test_find_manifest_missing_folder(tmp_path: Path) -> None:
    assert find_manifest(tmp_path / "no-such-folder") is None


# ---------------------------------------------------------------- what mutation testing found
# (bench/mutation.py): each test states a behaviour that a changed line of the parser would
# break without any other test noticing


def test_the_exclude_key_joins_every_rule_before_its_own() -> None:
    manifest = parse_manifest(
        'exclude = ["gen/", "*_pb2.py"]\n'
        '[[rule]]\nid = "a"\n' + OK + 'exclude = ["old/"]\n'
        '[[rule]]\nid = "b"\n' + OK,
        MANIFEST_NAME,
    )
    assert manifest.exclude == ("gen/", "*_pb2.py")
    assert [rule.exclude for rule in manifest.rules] == [
        ("gen/", "*_pb2.py", "old/"),
        ("gen/", "*_pb2.py"),
    ]


def test_a_rule_of_its_own_exclusions_alone() -> None:
    manifest = parse_manifest('[[rule]]\nid = "a"\n' + OK + 'exclude = ["old/"]\n', MANIFEST_NAME)
    assert manifest.exclude == ()
    assert manifest.rules[0].exclude == ("old/",)


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        pytest.param(
            'exclude = ["#x", "", "ok/"]\n[[rule]]\n' + OK,
            MANIFEST_NAME,
            (
                "exclude[0]: '#x' is a comment in gitignore syntax: write '\\#x' to match '#'",
                "exclude[1]: empty pattern",
            ),
            id="top-level",
        ),
        pytest.param(
            '[tool.cleantree]\nexclude = ["#x"]\n[[tool.cleantree.rule]]\n' + OK,
            "pyproject.toml",
            (
                "tool.cleantree.exclude[0]: '#x' is a comment in gitignore syntax: "
                "write '\\#x' to match '#'",
            ),
            id="pyproject-prefix",
        ),
        pytest.param(
            "[[rule]]\n" + OK + 'exclude = ["", "#y"]\n',
            MANIFEST_NAME,
            (
                "rule 1 (line 4): exclude[0]: empty pattern",
                "rule 1 (line 4): exclude[1]: '#y' is a comment in gitignore syntax: "
                "write '\\#y' to match '#'",
            ),
            id="rule",
        ),
        pytest.param(
            'exclude = "gen/"\n[[rule]]\n' + OK,
            MANIFEST_NAME,
            ("exclude: must be a list of strings, not a string",),
            id="not-a-list",
        ),
    ],
)
def test_exclude_problems(text: str, path: str, expected: tuple[str, ...]) -> None:
    assert problems_of(text, path) == expected


def test_every_problem_after_a_duplicate_is_reported_too() -> None:
    assert problems_of(
        "[[rule]]\n"
        'files = ["a.py", "a.py", "/abs.py"]\n'
        'forbid = ["x", "x", ""]\n'
        'forbid_lines = ["c", "c", " "]\n'
    ) == (
        "rule 1 (line 2): files[1]: 'a.py' is already files[0]",
        f"rule 1 (line 2): files[2]: '/abs.py' {ABSOLUTE}",
        "rule 1 (line 3): forbid[1]: 'x' is already forbid[0]",
        "rule 1 (line 3): forbid[2]: empty pattern",
        "rule 1 (line 4): forbid_lines[1]: the same line as forbid_lines[0]",
        "rule 1 (line 4): forbid_lines[2]: a blank line cannot be told apart from any other",
    )


@pytest.mark.parametrize("line", ["a\\rb", "a\\nb", "a\\r\\nb", "\\r"])
def test_forbid_lines_refuses_any_line_break(line: str) -> None:
    assert problems_of(f'[[rule]]\nfiles = ["a.py"]\nforbid_lines = ["{line}", "ok"]\n') == (
        "rule 1 (line 3): forbid_lines[0]: one line only (it holds a line break)",
    )


def test_an_empty_segment_is_looked_for_after_a_leading_double_slash() -> None:
    manifest = parse_manifest(
        'allow_outside_root = true\n[[rule]]\nid = "r"\nfiles = ["//srv/a.py"]\nforbid = ["x"]\n',
        MANIFEST_NAME,
    )
    assert manifest.rules[0].files == ("//srv/a.py",)
    assert problems_of(
        'allow_outside_root = true\n[[rule]]\nfiles = ["//srv//a.py"]\nforbid = ["x"]\n'
    ) == ("rule 1 (line 3): files[0]: '//srv//a.py' has an empty segment ('//')",)
    # only slashes are taken off the front, nothing else
    assert problems_of('[[rule]]\nfiles = ["X//a.py"]\nforbid = ["x"]\n') == (
        "rule 1 (line 2): files[0]: 'X//a.py' has an empty segment ('//')",
    )


def test_absent_entries_may_go_outside_the_root_when_allowed() -> None:
    manifest = parse_manifest(
        'allow_outside_root = true\n[[rule]]\nid = "r"\nabsent = ["/abs/x.py", "../y.py"]\n',
        MANIFEST_NAME,
    )
    assert manifest.rules[0].absent == ("/abs/x.py", "../y.py")


def test_a_problem_points_at_its_key_within_its_own_rule_only() -> None:
    # rule 1's last line is just before rule 2's header; rule 2 spells its forbid key with an
    # escape, which no key line matches, so its problem points at its header, not at the
    # forbid of rule 3 below it
    text = (
        "[[rule]]\n"  # 1
        'files = ["a.py"]\n'  # 2
        'forbid = [""]\n'  # 3
        "[[rule]]\n"  # 4
        '"forbi\\u0064" = [""]\n'  # 5
        'files = ["b.py"]\n'  # 6
        "[[rule]]\n"  # 7
        'forbid = ["x"]\n'  # 8
        'files = [""]\n'  # 9
    )
    assert problems_of(text) == (
        "rule 1 (line 3): forbid[0]: empty pattern",
        "rule 2 (line 4): forbid[0]: empty pattern",
        "rule 3 (line 9): files[0]: empty path",
    )


def test_a_problem_has_no_line_when_the_rule_headers_cannot_be_told() -> None:
    # a header inside a string: two header lines for one rule, so no line is trusted
    text = '[[rule]]\nfiles = [""]\nforbid = ["x"]\nwhy = """\n[[rule]]\n"""\n'
    assert problems_of(text) == ("rule 1: files[0]: empty path",)


def test_the_position_of_deep_nesting() -> None:
    # brackets that close count for nothing; other characters count for nothing at all
    assert problems_of("X = [[]]  # {}\nx = " + "[" * 5000) == (
        "TOML syntax error: nested too deeply to read (at line 2, column 105)",
    )
    assert problems_of("x = [[{a = " + "[" * 5000) == (
        "TOML syntax error: nested too deeply to read (at line 1, column 109)",
    )


@pytest.mark.parametrize(
    ("data", "where"),
    [
        pytest.param(b"a = 1\nb = 2\n# \xe9", "byte 0xe9 at line 3, offset 14", id="last-line"),
        pytest.param(b"\xe9\n\n\n", "byte 0xe9 at line 1, offset 0", id="first-line"),
        pytest.param(b"\n\xe9", "byte 0xe9 at line 2, offset 1", id="after-a-first-newline"),
    ],
)
def test_the_line_of_an_invalid_utf8_byte(tmp_path: Path, data: bytes, where: str) -> None:
    path = tmp_path / MANIFEST_NAME
    path.write_bytes(data)
    with pytest.raises(ManifestError) as info:
        load_manifest(path)
    assert info.value.problems == (f"not valid UTF-8 ({where}): save the manifest as UTF-8",)


def test_a_bad_unless_line_and_a_rule_of_escaped_lines_alone_are_reported() -> None:
    blank = "[[rule]]\n" + OK + 'unless_lines = ["  "]\n'
    assert problems_of(blank) == (
        "rule 1 (line 4): unless_lines[0]: a blank line cannot be told apart from any other",
    )
    escaped = '[[rule]]\nforbid_lines_escaped = ["x"]\n'
    assert problems_of(escaped) == ("rule 1 (line 1): forbid_lines_escaped needs files to look in",)


ZZZ = (
    "unknown key 'tool.cleantree.zzz' (valid keys: tool.cleantree.allow_outside_root, "
    "tool.cleantree.exclude, tool.cleantree.graph_budget, tool.cleantree.hosts, "
    "tool.cleantree.import_roots, tool.cleantree.root, tool.cleantree.rule)"
)


def test_an_unknown_key_is_placed_in_the_manifests_own_table_only() -> None:
    other_first = "[tool.other]\nzzz = 1\n[tool.cleantree]\nzzz = 2\n[[tool.cleantree.rule]]\n"
    assert problems_of(other_first + OK, "pyproject.toml") == (f"{ZZZ} (at line 4)",)
    inline = '[tool]\ncleantree = { zzz = 1, rule = [{ files = ["a.py"], forbid = ["x"] }] }\n'
    assert problems_of(inline, "pyproject.toml") == (ZZZ,)  # no line of its own: none said
    indented = (
        '[tool.cleantree]\nroot = "."\n  [tool.other]\nzzz = 1\n[tool.cleantree.zzz]\n'
        "[[tool.cleantree.rule]]\n"
    )
    assert problems_of(indented + OK, "pyproject.toml") == (f"{ZZZ} (at line 5)",)
