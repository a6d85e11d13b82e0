"""Mutation testing of the pure core: mutmut 3.8.1 on each listed module, against its direct
tests only, so that a kill means a unit test stated the behaviour (issue 26).

    python bench/mutation.py                      # every module (30-40 minutes on 2 cores)
    python bench/mutation.py --modules patterns,allows
    python bench/mutation.py --keep               # keep the workspace, to `mutmut show` a mutant

Each module is run in a workspace of its own: a copy of the working tree in a temporary folder
(uncommitted changes included), where mutmut writes its ``mutants/`` copy; nothing is written
into the package, and the workspace is removed afterwards. In the copy only, the module's
``functools.lru_cache``/``cache`` decorators are taken off, because mutmut skips decorated
functions (``mutation/file_mutation.py``: any decorator but ``staticmethod``/``classmethod``):
without them the cached functions are mutated too, and no cache can hand a mutant the original's
answer. Mutants run in mutmut's ``forkserver`` isolation with ``--max-children 1``: the server
imports and collects but runs no test, so a cache is never warmed by the original code before
a mutant's worker is forked, and the machine's cores stay free for others.

Survivors that no input can tell apart from the original (equivalent mutants) are listed, with
the reason, in ``bench/mutation-equivalent.toml``; the kill rate is over the others. The run
prints each module's kill rate and survivors and writes ``bench/results-mutation.md`` (and
``bench/results-mutation.json``, every module's last run: ``--modules`` re-runs some and keeps
the others' rows).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results-mutation.md"
#: every module's last run, in full: a run of some modules keeps the others' rows
RECORD = REPO / "bench" / "results-mutation.json"
EQUIVALENT = REPO / "bench" / "mutation-equivalent.toml"
MUTMUT_VERSION = "3.8.1"


@dataclasses.dataclass(frozen=True)
class Target:
    """A module to mutate and the direct tests that must kill its mutants."""

    name: str
    path: str
    tests: tuple[str, ...]


_MANIFEST_TESTS = ("tests/config/test_manifest.py", "tests/config/test_manifest_schema.py")
_REPORT_TESTS = ("tests/report",)
#: the scan and the modules it reports through (names, strings, positions): driven directly
_SCAN_TESTS = (
    "tests/analysis/test_scan.py",
    "tests/analysis/test_scan_names.py",
    "tests/analysis/test_analysis.py",
)
_ENGINE_TESTS = ("tests/analysis/test_analysis.py", "tests/analysis/test_soundness.py")
#: a module no fast test calls directly: its row says so, and it is stale until one does
NO_TESTS: tuple[str, ...] = ()


def _t(name: str, path: str, *tests: str) -> Target:
    return Target(name, f"pytest_cleantree/{path}", tests)


#: every pure module (issue 37), each against the tests that call it directly; a name is the
#: module's own unless two layers share it
TARGETS = (
    _t("patterns", "core/patterns.py", "tests/core/test_patterns.py"),
    _t("nameindex", "core/nameindex.py", "tests/core/test_name_index.py"),
    _t("model", "core/model.py", "tests/core/test_model.py"),
    _t("identity", "core/identity.py", "tests/core/test_identity.py"),
    _t("findings", "core/findings.py", "tests/core/test_findings.py"),
    _t("checks", "core/checks.py", "tests/core/test_checks.py"),
    _t("errors", "core/errors.py", "tests/core/test_errors.py"),
    _t("manifest", "config/manifest.py", *_MANIFEST_TESTS),
    _t("rules", "config/rules.py", *_MANIFEST_TESTS),
    _t("keylines", "config/keylines.py", *_MANIFEST_TESTS),
    _t("entries", "config/entries.py", *_MANIFEST_TESTS, "tests/config/test_entries.py"),
    _t("exclusions", "config/exclusions.py", "tests/config/test_exclusions.py"),
    _t("hosts", "config/hosts.py", "tests/config/test_hosts.py"),
    _t("inventory", "config/inventory.py", "tests/config/test_inventory.py"),
    _t("layout", "config/layout.py", "tests/config/test_layout.py"),
    _t("aliases", "analysis/aliases.py", "tests/analysis/test_aliases.py"),
    _t("bindings", "analysis/bindings.py", "tests/analysis/test_binding_rules.py"),
    _t("breaks", "analysis/breaks.py", "tests/analysis/test_breaks.py"),
    _t("codenames", "analysis/codenames.py", "tests/analysis/test_codenames.py"),
    _t("comments", "analysis/comments.py", "tests/analysis/test_comments.py"),
    _t("comments_base", "analysis/comments_base.py", "tests/analysis/test_comments.py"),
    _t(
        "comments_braces",
        "analysis/comments_braces.py",
        "tests/analysis/test_comments.py",
        "tests/analysis/test_comments_braces.py",
    ),
    _t(
        "comments_js",
        "analysis/comments_js.py",
        "tests/analysis/test_comments.py",
        "tests/analysis/test_comments_js.py",
    ),
    _t(
        "comments_script",
        "analysis/comments_script.py",
        "tests/analysis/test_comments.py",
        "tests/analysis/test_comments_script.py",
    ),
    _t("decoding", "analysis/decoding.py", "tests/analysis/test_decoding.py"),
    _t("fast", "analysis/fast.py", "tests/analysis/test_fast.py"),
    _t("lines", "analysis/lines.py", "tests/analysis/test_lines.py"),
    _t("codetext", "analysis/codetext.py", "tests/analysis/test_codetext.py"),
    _t("literals", "analysis/literals.py", "tests/analysis/test_literals.py"),
    _t(
        "pieces",
        "analysis/pieces.py",
        "tests/analysis/test_pieces.py",
        "tests/analysis/test_partial_parse.py",
        "tests/analysis/test_soundness.py",
        "tests/analysis/test_getattr_alias.py",
    ),
    _t("records", "analysis/records.py", "tests/analysis/test_records.py"),
    _t(
        "reference",
        "analysis/reference.py",
        "tests/analysis/test_reference.py",
        "tests/analysis/test_reference_engine.py",
    ),
    _t(
        "resolve",
        "analysis/resolve.py",
        "tests/analysis/test_resolve.py",
        "tests/analysis/test_resolution.py",
    ),
    _t(
        "reader",
        "analysis/reader.py",
        "tests/analysis/test_reader_parts.py",
        "tests/analysis/test_reader.py",
        "tests/analysis/test_resolution.py",
        "tests/analysis/test_aliases.py",
        "tests/analysis/test_getattr_alias.py",
    ),
    _t(
        "constructs",
        "analysis/constructs.py",
        "tests/analysis/test_constructs.py",
        "tests/analysis/test_reader.py",
        "tests/analysis/test_getattr_alias.py",
    ),
    _t("astroid_names", "analysis/astroid_names.py", "tests/analysis/test_resolution.py"),
    _t("scan", "analysis/scan.py", *_SCAN_TESTS),
    _t("positions", "analysis/positions.py", "tests/analysis/test_positions.py", *_SCAN_TESTS),
    _t("strings", "analysis/strings.py", "tests/analysis/test_strings.py", *_SCAN_TESTS),
    _t("emit", "analysis/emit.py", *_SCAN_TESTS),
    _t(
        "analysis.text",
        "analysis/text.py",
        "tests/analysis/test_analysis_text.py",
        "tests/analysis/test_partial_parse.py",
    ),
    _t("views", "analysis/views.py", "tests/analysis/test_views.py"),
    _t(
        "offsets",
        "analysis/offsets.py",
        "tests/analysis/test_offsets.py",
        "tests/analysis/test_partial_parse.py",
    ),
    _t("asking", "analysis/asking.py", "tests/analysis/test_ways_asked.py"),
    _t("textfiles", "analysis/textfiles.py", "tests/analysis/test_textfiles.py"),
    _t("allnames", "analysis/allnames.py", "tests/analysis/test_allnames.py"),
    _t(
        "parts",
        "analysis/parts.py",
        "tests/analysis/test_parts.py",
        "tests/core/test_name_index.py",
    ),
    _t(
        "exports",
        "names/exports.py",
        "tests/names/test_exports.py",
        "tests/names/test_module_exports.py",
    ),
    _t("modules_to_read", "names/modules_to_read.py", "tests/names/test_modules_to_read.py"),
    _t("imports", "names/imports.py", "tests/names/test_imports.py"),
    _t("budget", "names/budget.py", "tests/names/test_budget.py"),
    _t("modules", "names/modules.py", "tests/names/test_modules.py"),
    _t(
        "spellings",
        "names/spellings.py",
        "tests/names/test_spellings.py",
        "tests/names/test_star_imports.py",
        "tests/names/test_pattern_spellings.py",
    ),
    _t(
        "explanation",
        "names/explanation.py",
        "tests/names/test_pattern_spellings.py",
        "tests/report/test_explain.py",
    ),
    _t(
        "symbol_graph",
        "names/symbol_graph.py",
        "tests/names/test_exports.py",
        "tests/names/test_symbol_graph.py",
    ),
    _t(
        "reverse_walk",
        "names/reverse_walk.py",
        "tests/names/test_symbol_graph.py",
        "tests/names/test_exports.py",
    ),
    _t(
        "diff",
        "revert/diff.py",
        "tests/revert/test_fromdiff_parse.py",
        "tests/revert/test_diff.py",
    ),
    _t(
        "apply",
        "revert/apply.py",
        "tests/revert/test_fromdiff_apply.py",
        "tests/revert/test_apply.py",
    ),
    _t(
        "revert.names",
        "revert/names.py",
        "tests/revert/test_fromdiff_names.py",
        "tests/revert/test_fromdiff_tokens.py",
        "tests/revert/test_names.py",
    ),
    _t("plan", "revert/plan.py", "tests/revert/test_plan.py"),
    _t("revert.text", "revert/text.py", "tests/revert/test_revert_text.py"),
    _t(
        "toml",
        "revert/toml.py",
        "tests/revert/test_fromdiff_render.py",
        "tests/revert/test_toml.py",
    ),
    _t("text", "report/text.py", *_REPORT_TESTS),
    _t("json", "report/json.py", *_REPORT_TESTS),
    _t("sarif", "report/sarif.py", *_REPORT_TESTS),
    _t("github", "report/github.py", *_REPORT_TESTS),
    _t("context", "report/context.py", *_REPORT_TESTS),
    _t("fleet", "report/fleet.py", "tests/report/test_fleet.py"),
    _t("explain", "report/explain.py", "tests/report/test_explain.py"),
    _t("registry", "report/registry.py", "tests/frontends/test_registry.py"),
    _t("allows", "run/allows.py", "tests/run/test_allows.py"),
    _t("judge", "run/judge.py", "tests/run/test_judge.py"),
    _t("rewrite", "run/rewrite.py", "tests/run/test_rewrite.py"),
    _t("selection", "run/selection.py", "tests/run/test_selection.py"),
    _t("wire", "agent/wire.py", "tests/sources/test_wire_codec.py"),
    _t("needle", "agent/needle.py", "tests/sources/test_agent_needles.py"),
    _t("snapshot", "sources/ssh/snapshot.py", "tests/sources/test_walk_snapshot.py"),
    _t("kept", "run/kept.py", "tests/run/test_kept.py"),
)


def _outside(reason: str, *paths: str) -> dict[str, str]:
    return {f"pytest_cleantree/{path}": reason for path in paths}


#: every other module of the package, with why it is no target (a new module must be one or
#: the other: ``bench/tests/test_mutation.py`` holds the two lists to the package)
OUTSIDE = {
    **_outside(
        "a package's doc and re-exports",
        "__init__.py",
        "core/__init__.py",
        "config/__init__.py",
        "names/__init__.py",
        "report/__init__.py",
        "revert/__init__.py",
        "run/__init__.py",
        "frontends/__init__.py",
        "agent/__init__.py",
    ),
    **_outside("an entry point", "__main__.py", "plugin.py"),
    **_outside(
        "the engines' dispatch (fast or reference): its behaviour is the differential tests'",
        "analysis/__init__.py",
    ),
    **_outside("a thread with a deep stack and a raised recursion limit", "analysis/deep.py"),
    **_outside(
        "I/O: the file system",
        "agent/read.py",
        "agent/walk.py",
        "config/bundle.py",
        "config/discovery.py",
        "config/starter.py",
        "sources/__init__.py",
        "sources/base.py",
        "sources/local.py",
    ),
    **_outside("I/O: stdin and stdout of the agent's process", "agent/serve.py"),
    **_outside(
        "I/O: installed packages, found on sys.path and read (never imported)",
        "names/environment.py",
        "names/existence.py",
    ),
    **_outside(
        "I/O: git",
        "revert/git.py",
        "revert/gitcmd.py",
        "revert/blame.py",
        "run/changed.py",
        "run/reverted.py",
    ),
    **_outside(
        "I/O: the analysis store and the kept answers",
        "run/analyses.py",
        "run/answer_lookup.py",
        "run/answers.py",
        "run/cache.py",
        "run/cachedir.py",
        "run/graphstore.py",
        "run/signatures.py",
    ),
    **_outside(
        "orchestration over a source (plan, read, analyse, processes, hosts)",
        "run/check.py",
        "run/parallel.py",
        "run/plan.py",
        "run/runner.py",
        "run/session.py",
    ),
    **_outside(
        "I/O: SSH",
        "sources/ssh/__init__.py",
        "sources/ssh/connection.py",
        "sources/ssh/hostkeys.py",
        "sources/ssh/loading.py",
        "sources/ssh/helper.py",
        "sources/ssh/protocol.py",
        "sources/ssh/session.py",
        "sources/ssh/sftp.py",
        "sources/ssh/source.py",
    ),
    **_outside(
        "a front end (argument parsing, pytest hooks, the terminal), tested end to end",
        "frontends/declare.py",
        "frontends/option_row.py",
        "frontends/options.py",
        "frontends/version.py",
        "frontends/cli/__init__.py",
        "frontends/cli/bundle.py",
        "frontends/cli/fromdiff.py",
        "frontends/cli/main.py",
        "frontends/cli/progress.py",
        "frontends/cli/reference.py",
        "frontends/pytest/__init__.py",
        "frontends/pytest/fixture.py",
        "frontends/pytest/items.py",
        "frontends/pytest/plugin.py",
        "frontends/pytest/report.py",
    ),
}


def sha256_of(root: Path, relative: str) -> str:
    """A file's SHA-256; a folder's over its files in sorted order (each name, then its bytes)."""
    path = root / relative
    digest = hashlib.sha256()
    if path.is_file():
        digest.update(path.read_bytes())
        return digest.hexdigest()
    files = sorted(
        p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.relative_to(path).parts
    )
    for file in files:
        digest.update(file.relative_to(path).as_posix().encode() + b"\0")
        digest.update(file.read_bytes() + b"\0")
    return digest.hexdigest()


def fingerprint(target: Target, root: Path = REPO) -> dict[str, object]:
    """The SHA-256 of the module's text and of each of its direct tests, as they are in ``root``."""
    return {
        "module": sha256_of(root, target.path),
        "tests": {test: sha256_of(root, test) for test in target.tests},
    }


def stale_rows(
    record: dict[str, dict[str, object]],
    targets: Sequence[Target] = TARGETS,
    root: Path = REPO,
) -> list[tuple[str, str]]:
    """Each target whose row no longer measures ``root``'s text, with the reason."""
    stale: list[tuple[str, str]] = []
    for target in targets:
        row = record.get(target.name)
        if not target.tests:
            stale.append((target.name, "no direct tests"))
        elif row is None:
            stale.append((target.name, "never measured"))
        elif row.get("error"):
            stale.append((target.name, f"its last run failed: {row['error']}"))
        elif "sha256" not in row:
            stale.append((target.name, f"measured at {str(row['commit'])[:12]} without hashes"))
        else:
            why = _changed(row["sha256"], fingerprint(target, root))  # type: ignore[arg-type]
            if why:
                stale.append((target.name, f"{why} since {str(row['commit'])[:12]}"))
    return stale


def _changed(then: dict[str, object], now: dict[str, object]) -> str:
    if then["module"] != now["module"]:
        return "module changed"
    tests_then: dict[str, str] = then["tests"]  # type: ignore[assignment]
    tests_now: dict[str, str] = now["tests"]  # type: ignore[assignment]
    if set(tests_then) != set(tests_now):
        return "other direct tests"
    changed = sorted(test for test in tests_now if tests_now[test] != tests_then[test])
    return "tests changed: " + ", ".join(changed) if changed else ""


#: what mutmut's exit codes mean here: a mutant is killed when a test failed on it
_KILLED = {"killed", "timeout", "caught by type check", "segfault"}
#: mutmut stops one mutant's tests after (their estimated time + this) x 15 seconds of wall
#: clock: its default of 1 s leaves a niced run on a loaded machine 15 s, and a timeout counts
#: as a kill; a mutant that loops for ever costs this x 15 s
TIMEOUT_CONSTANT = 3.0
#: a run in which more of the mutants than this share timed out measured the machine's load,
#: or nothing (mutmut reads pytest's exit 4, tests not found, as a timeout: a parametrize id
#: holding a backslash is not found by the fork server's second session), not the tests (a
#: mutant that loops for ever is rare): its row is a failure, to re-run
MOST_TIMED_OUT = 0.2

_IGNORE = shutil.ignore_patterns(
    ".git", "mutants", ".work", "__pycache__", "*.egg-info", ".*_cache", ".hypothesis", "build"
)
_CACHE_DECORATORS = {"functools.lru_cache", "functools.cache", "lru_cache", "cache"}


@dataclasses.dataclass(frozen=True)
class Mutant:
    """One mutant's verdict, with the function it is in and the lines it changes."""

    name: str
    status: str
    function: str
    changed: tuple[str, ...]

    @property
    def killed(self) -> bool:
        return self.status in _KILLED


@dataclasses.dataclass(frozen=True)
class Outcome:
    """A module's run: every mutant, and which survivors are equivalent (with the reason)."""

    target: Target
    mutants: tuple[Mutant, ...]
    equivalent: dict[str, str]
    seconds: float
    #: why mutmut could not run ("" when it ran)
    error: str = ""
    #: the commit the module's copy was taken from, and when
    commit: str = ""
    date: str = ""
    #: the SHA-256 of the module and of each direct test, as run (see ``fingerprint``)
    hashes: dict[str, object] = dataclasses.field(default_factory=dict)

    @property
    def survivors(self) -> list[Mutant]:
        return [m for m in self.mutants if not m.killed and m.name not in self.equivalent]

    @property
    def rate(self) -> float:
        if self.error:
            return 0.0
        counted = len(self.mutants) - len(self.equivalent)
        return 100.0 * (counted - len(self.survivors)) / counted if counted else 100.0


def strip_cache_decorators(source: str) -> str:
    """``source`` without its ``lru_cache``/``cache`` decorator lines (for the copy only)."""
    lines = source.splitlines(keepends=True)
    drop: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            called = decorator.func if isinstance(decorator, ast.Call) else decorator
            if ast.unparse(called) in _CACHE_DECORATORS:
                end = decorator.end_lineno or decorator.lineno
                drop.update(range(decorator.lineno - 1, end))
    return "".join(line for index, line in enumerate(lines) if index not in drop)


def mutmut_config(target: Target) -> str:
    """The ``[tool.mutmut]`` table of one module's run."""
    table = {
        "source_paths": ["pytest_cleantree"],
        "only_mutate": [target.path],
        # the tests run inside mutants/ and read the docs next to them (the examples are
        # package data, copied with the package)
        "also_copy": ["README.md", "docs"],
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-p", "no:randomly", "-q"],
        "pytest_add_cli_args_test_selection": list(target.tests),
        "process_isolation": "forkserver",
        "timeout_constant": TIMEOUT_CONSTANT,
        "use_git_change_detection": False,
    }
    body = "".join(f"{key} = {json.dumps(value)}\n" for key, value in table.items())
    return f"\n[tool.mutmut]\n{body}"


def prepare(workspace: Path, target: Target) -> None:
    """Copy the working tree into ``workspace``, uncache the target and configure mutmut."""
    shutil.copytree(REPO, workspace, ignore=_IGNORE, symlinks=True)
    module = workspace / target.path
    module.write_text(strip_cache_decorators(module.read_text()))
    pyproject = workspace / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + mutmut_config(target))


def mutant_function(name: str) -> str:
    """``pkg.mod.x_func__mutmut_3`` -> ``func``; ``xǁCǁmethod__mutmut_1`` -> ``C.method``."""
    leaf = name.rpartition(".")[2].rpartition("__mutmut_")[0]
    if leaf.startswith("xǁ"):
        return ".".join(leaf[2:].split("ǁ"))
    return leaf.removeprefix("x_")


def changed_lines(diff: str) -> tuple[str, ...]:
    """The removed and added lines of a unified diff, stripped: a mutant's identity."""
    return tuple(
        line[0] + line[1:].strip()
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    )


_DIFFS = """
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
path, names = sys.argv[1], json.loads(sys.stdin.read())
print(json.dumps({name: get_diff_for_mutant(name, path=path) for name in names}))
"""


def collect(workspace: Path, target: Target) -> list[Mutant]:
    """Every mutant of the target with its verdict, read from mutmut's ``.meta`` file."""
    from mutmut.stats import status_by_exit_code

    meta = json.loads((workspace / "mutants" / (target.path + ".meta")).read_text())
    codes: dict[str, int | None] = meta["exit_code_by_key"]
    diffs = json.loads(
        subprocess.run(
            [sys.executable, "-c", _DIFFS, target.path],
            input=json.dumps(sorted(codes)),
            cwd=workspace,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    return [
        Mutant(name, status_by_exit_code[code], mutant_function(name), changed_lines(diffs[name]))
        for name, code in sorted(codes.items(), key=lambda item: _natural(item[0]))
    ]


def timed_out(mutants: Sequence[Mutant]) -> str:
    """Why a run's kill rate cannot be trusted, when too many of its mutants timed out
    (``""`` when it can)."""
    count = sum(m.status == "timeout" for m in mutants)
    if mutants and count > MOST_TIMED_OUT * len(mutants):
        return (
            f"{count} of {len(mutants)} mutants timed out (a timeout counts as a kill): the "
            "machine was too loaded to measure, or the fork server could not run the tests "
            "(mutmut counts its exit 4 as a timeout)"
        )
    return ""


def _natural(name: str) -> tuple[str, int]:
    head, _, number = name.rpartition("__mutmut_")
    return head, int(number) if number.isdigit() else 0


def load_equivalent() -> list[dict[str, object]]:
    """The equivalent mutants, each matched by module, function and the lines it changes."""
    if not EQUIVALENT.exists():
        return []
    entries: list[dict[str, object]] = tomllib.loads(EQUIVALENT.read_text()).get("equivalent", [])
    return entries


def match_equivalent(
    target: Target, mutants: Iterable[Mutant], entries: Sequence[dict[str, object]]
) -> dict[str, str]:
    """The surviving mutants that an entry of the list describes, with its reason."""
    found: dict[str, str] = {}
    for mutant in mutants:
        if mutant.killed:
            continue
        for entry in entries:
            if (
                entry["module"] == target.name
                and entry["function"] == mutant.function
                and tuple(str(line).strip() for line in entry["changed"])  # type: ignore[attr-defined]
                == tuple(line[0] + line[1:].strip() for line in mutant.changed)
            ):
                found[mutant.name] = str(entry["reason"])
                break
    return found


def run_target(target: Target, entries: Sequence[dict[str, object]], keep: bool) -> Outcome:
    """One module's mutmut run in a workspace of its own."""
    holder = Path(tempfile.mkdtemp(prefix=f"cleantree-mutation-{target.name}-"))
    workspace = holder / "tree"
    started = time.monotonic()
    stamp: dict[str, object] = {
        "commit": _commit(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "hashes": fingerprint(target),
    }
    try:
        prepare(workspace, target)
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        env.pop("PYTHONPATH", None)  # the mutated copy, not this tree, must be imported
        log = workspace / "mutmut.log"
        with log.open("w") as out:
            done = subprocess.run(
                ["mutmut", "run", "--max-children", "1"],
                cwd=workspace,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                check=False,
            )
        if done.returncode != 0:
            tail = log.read_text(errors="replace").replace("\r", "\n").splitlines()[-5:]
            error = f"mutmut exited {done.returncode}: " + " / ".join(t.strip() for t in tail)
            return Outcome(target, (), {}, time.monotonic() - started, error, **stamp)  # type: ignore[arg-type]
        mutants = collect(workspace, target)
        error = timed_out(mutants)
        if error:
            return Outcome(target, (), {}, time.monotonic() - started, error, **stamp)  # type: ignore[arg-type]
    finally:
        if keep:
            print(f"  workspace kept: {workspace}")
        else:
            shutil.rmtree(holder, ignore_errors=True)
    return Outcome(
        target,
        tuple(mutants),
        match_equivalent(target, mutants, entries),
        time.monotonic() - started,
        **stamp,  # type: ignore[arg-type]
    )


def _commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=REPO, capture_output=True, text=True, check=False
        ).stdout.strip()

    head = git("rev-parse", "HEAD")
    dirty = git("status", "--porcelain", "--", "pytest_cleantree", "tests")
    return f"{head} (uncommitted changes in pytest_cleantree/ or tests/)" if dirty else head


def _show(mutant: Mutant) -> str:
    return f"`{mutant.name}` ({mutant.status}): " + " / ".join(
        f"`{line}`" for line in mutant.changed
    )


def render(outcomes: Sequence[Outcome], command: str, head: str) -> str:
    """The Markdown record: a row per target (measured or not), the survivors, the equivalents."""
    commits = sorted({o.commit for o in outcomes})
    by_target = {o.target.name: o for o in outcomes}
    lines = [
        "# Mutation testing of the pure modules (issues 26, 37)",
        "",
        f"- commit: {', '.join(commits)}" + (" (per module below)" if len(commits) > 1 else ""),
        f"- mutmut {MUTMUT_VERSION}, forkserver isolation, one worker; Python "
        f"{platform.python_version()}",
        f"- last command: `{command}`",
        "- `python bench/mutation.py --stale` lists the rows whose module or direct tests "
        "changed since their run (the hashes below, in full in `results-mutation.json`)",
        "",
        "Each module is mutated alone (its `lru_cache` functions included) and run against its "
        "direct tests only. The kill rate is over the mutants that some input can tell apart "
        "from the original; the equivalent ones are listed below with the reason. A module "
        "without a row of numbers was not measured: its line says so.",
        "",
        "| module | tests | mutants | killed | equivalent | survived | kill rate | time | run "
        "| sha256 module; tests |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for target in TARGETS:
        tests = ", ".join(target.tests) or "no direct tests"
        o = by_target.get(target.name)
        if o is None:
            lines.append(f"| `{target.path}` | {tests} | not measured at {head[:12]} |||||||")
            continue
        run = f"{o.commit[:12]}{' +' if ' ' in o.commit else ''}, {o.date}"
        sha = _short(o.hashes)
        if o.error:
            lines.append(f"| `{target.path}` | {tests} | failed: {o.error} ||||||| {run} | {sha} |")
            continue
        killed = sum(m.killed for m in o.mutants)
        lines.append(
            f"| `{target.path}` | {tests} | {len(o.mutants)} | {killed} "
            f"| {len(o.equivalent)} | {len(o.survivors)} | {o.rate:.1f}% | {o.seconds:.0f} s "
            f"| {run} | {sha} |"
        )
    lines += ["", "## Survivors", ""]
    for o in outcomes:
        lines += [f"- `{o.target.name}`: none" if not o.survivors else f"- `{o.target.name}`:"]
        lines += [f"  - {_show(m)}" for m in o.survivors]
    lines += ["", "## Equivalent mutants", ""]
    for o in outcomes:
        by_name = {m.name: m for m in o.mutants}
        lines += [f"- {_show(by_name[n])}: {reason}" for n, reason in o.equivalent.items()]
    return "\n".join(lines) + "\n"


def _short(hashes: dict[str, object]) -> str:
    if not hashes:
        return "not recorded"
    tests: dict[str, str] = hashes["tests"]  # type: ignore[assignment]
    return f"{str(hashes['module'])[:12]}; " + " ".join(h[:12] for h in tests.values())


def save(outcomes: Sequence[Outcome], command: str) -> None:
    """Merge ``outcomes`` into the JSON record and write the Markdown from every module's row."""
    record: dict[str, dict[str, object]] = {}
    if RECORD.exists():
        record = json.loads(RECORD.read_text())
    for o in outcomes:
        record[o.target.name] = {
            # killed mutants are counted by verdict: only survivors are matched and shown
            "killed": dict(Counter(m.status for m in o.mutants if m.killed)),
            "mutants": [dataclasses.asdict(m) for m in o.mutants if not m.killed],
            "seconds": round(o.seconds, 1),
            "error": o.error,
            "commit": o.commit,
            "date": o.date,
            "sha256": o.hashes,
        }
    RECORD.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    entries = load_equivalent()  # the list as it is now: a reason added later counts at once
    every = [_outcome(t, record[t.name], entries) for t in TARGETS if t.name in record]
    RESULTS.write_text(render(every, command, _commit()))


def _outcome(
    target: Target, row: dict[str, object], entries: Sequence[dict[str, object]]
) -> Outcome:
    killed = [
        Mutant(f"{target.name}-killed-{status}-{index}", status, "", ())
        for status, count in row["killed"].items()  # type: ignore[attr-defined]
        for index in range(count)
    ]
    mutants = tuple(
        Mutant(m["name"], m["status"], m["function"], tuple(m["changed"]))
        for m in row["mutants"]  # type: ignore[attr-defined]
    ) + tuple(killed)
    return Outcome(
        target,
        mutants,
        match_equivalent(target, mutants, entries),
        float(row["seconds"]),  # type: ignore[arg-type]
        str(row["error"]),
        str(row["commit"]),
        str(row["date"]),
        dict(row.get("sha256", {})),  # type: ignore[call-overload]
    )


def print_stale() -> int:
    """Print each stale row with the reason; 1 when any is stale."""
    record = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    stale = stale_rows(record)
    for name, why in stale:
        print(f"{name}: {why}")
    print(f"{len(stale)} of {len(TARGETS)} rows stale" if stale else "no row is stale")
    return 1 if stale else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    known = ",".join(t.name for t in TARGETS)
    parser.add_argument("--modules", help=f"comma-separated, of: {known}")
    parser.add_argument("--keep", action="store_true", help="keep each workspace")
    parser.add_argument("--no-write", action="store_true", help=f"do not write {RESULTS.name}")
    parser.add_argument(
        "--stale",
        action="store_true",
        help="list the rows whose module or direct tests changed since their run (exit 1 if any)",
    )
    args = parser.parse_args(argv)
    if args.stale:
        return print_stale()
    chosen: tuple[Target, ...] = TARGETS
    if args.modules:
        names = set(args.modules.split(","))
        unknown = names - {t.name for t in TARGETS}
        if unknown:
            parser.error(f"unknown modules: {', '.join(sorted(unknown))}")
        chosen = tuple(t for t in TARGETS if t.name in names)
    if shutil.which("mutmut") is None:
        parser.error(f"no mutmut: pip install -e '.[mutation]' (mutmut=={MUTMUT_VERSION})")
    entries = load_equivalent()
    command = "python bench/mutation.py" + (f" --modules {args.modules}" if args.modules else "")
    outcomes: list[Outcome] = []
    for target in chosen:
        if not target.tests:
            print(f"{target.name}: {target.path} has no direct tests: not run", flush=True)
            continue
        print(f"{target.name}: {target.path} against {' '.join(target.tests)}", flush=True)
        outcome = run_target(target, entries, args.keep)
        outcomes.append(outcome)
        if outcome.error:
            print(f"  failed: {outcome.error}", flush=True)
            continue
        print(
            f"  {len(outcome.mutants)} mutants, {len(outcome.equivalent)} equivalent, "
            f"{len(outcome.survivors)} survived: kill rate {outcome.rate:.1f}% "
            f"({outcome.seconds:.0f} s)",
            flush=True,
        )
        for mutant in outcome.survivors:
            print(f"    {_show(mutant)}")
        if not args.no_write:  # after each module: a run stopped halfway keeps what it did
            save([outcome], command)
    if not args.no_write:
        print(f"wrote {RESULTS.relative_to(REPO)}")
    return 0 if all(o.rate >= 95.0 for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
