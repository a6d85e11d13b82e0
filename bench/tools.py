"""The tools compared, how each is installed and run, and how its output becomes lines.

Every tool is asked the same :class:`~manifests.Question` over the same corpus, from the same
folder (``bench/.work``, so that ``python -m`` never imports a copy of a module from the corpus
under test).  Its output is parsed into the set of ``(path relative to the corpus, line)`` it
reports; the ``parse_*`` functions are pure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from manifests import (
    Question,
    render_ast_grep,
    render_manifest,
    render_ruff,
    render_semgrep,
    rg_patterns,
)

Lines = frozenset[tuple[str, int]]

#: the peers installed from PyPI into the throwaway venv, as (tool, pip requirement)
PEER_PACKAGES = (("ruff", "ruff"), ("ast-grep", "ast-grep-cli"), ("semgrep", "semgrep"))


@dataclass(frozen=True)
class Invocation:
    argv: list[str]
    #: exit codes that mean "the tool ran" (finding something included)
    ok_codes: frozenset[int]
    parse: Callable[[str, str], Lines]  # (stdout, corpus prefix) -> lines
    env: dict[str, str] = field(default_factory=dict)
    #: the tool keeps analyses between runs in $CLEANTREE_CACHE_DIR: give it its own folder
    cleantree_cache: bool = False


@dataclass(frozen=True)
class Tool:
    """A tool the table has a column for; ``missing`` says why it cannot run here."""

    name: str
    version: str = ""
    missing: str = ""
    #: argv prefix (the executable, or python -m module)
    command: tuple[str, ...] = ()
    #: environment it runs with (a baseline's ``PYTHONPATH``)
    env: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        """The tool this column runs: a baseline ``cleantree@REV`` is ``cleantree``."""
        return self.name.partition("@")[0]

    @property
    def available(self) -> bool:
        return not self.missing


# --------------------------------------------------------------------------- parsing


def _relative(path: str, prefix: str) -> str:
    path = path.removeprefix("./")
    if prefix and path.startswith(prefix):
        path = path[len(prefix) :]
    return path


# "srt/server_args.py:46:8  condition  if ...": a row of cleantree's report (CLI and pytest),
# its path relative to the working folder
_CLEANTREE_ROW = re.compile(
    r"^(?P<path>.+?\.py):(?P<line>\d+)(?::\d+)? +[a-z]+(?:,[a-z]+)*(?: {2}|$)"
)
_RG_ROW = re.compile(r"^(?P<path>.+?\.py):(?P<line>\d+):")
_RUFF_ROW = re.compile(r"^(?P<path>.+?\.py):(?P<line>\d+):\d+: TID251 ")


def _rows(pattern: re.Pattern[str], text: str, prefix: str) -> Lines:
    found = set()
    for line in text.splitlines():
        match = pattern.match(line)
        if match:
            found.add((_relative(match["path"], prefix), int(match["line"])))
    return frozenset(found)


def parse_cleantree(text: str, prefix: str = "") -> Lines:
    """Lines of cleantree's text report (the CLI's, or the failures ``pytest`` prints)."""
    return _rows(_CLEANTREE_ROW, text, prefix)


def parse_rg(text: str, prefix: str = "") -> Lines:
    return _rows(_RG_ROW, text, prefix)


def parse_ruff(text: str, prefix: str = "") -> Lines:
    """ruff's ``concise`` output; syntax errors and other codes are not hits."""
    return _rows(_RUFF_ROW, text, prefix)


def parse_ast_grep(text: str, prefix: str = "") -> Lines:
    """ast-grep's ``--json=stream``: one object per match, 0-based lines."""
    found = set()
    for line in text.splitlines():
        if line.startswith("{"):
            match = json.loads(line)
            found.add((_relative(match["file"], prefix), match["range"]["start"]["line"] + 1))
    return frozenset(found)


def parse_semgrep(text: str, prefix: str = "") -> Lines:
    """semgrep's ``--json``: results with 1-based start lines."""
    start = text.find("{")
    if start == -1:
        return frozenset()
    document = json.loads(text[start:])
    return frozenset(
        (_relative(result["path"], prefix), result["start"]["line"])
        for result in document.get("results", ())
    )


# --------------------------------------------------------------------------- installing


def _version(argv: Iterable[str]) -> str:
    """The tool's first line of output, asked from outside this checkout.

    The runs start elsewhere (the bench's work folder), so a package importable only from the
    repository's own folder (a stale editable install) must show here as "cannot import", not
    pass this check and then fail every run.
    """
    try:
        done = subprocess.run(
            list(argv),
            capture_output=True,
            text=True,
            timeout=120,
            env=tool_env(),
            cwd=tempfile.gettempdir(),
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"? ({exc})"
    words = (done.stdout or done.stderr).strip().splitlines()
    return words[0].strip() if words else "?"


def tool_env() -> dict[str, str]:
    """The environment every tool runs in: this one, less what changes output or phones home.

    ``PYTHONDONTWRITEBYTECODE`` is dropped too: with it, every run recompiles the modules that
    have no cached bytecode yet and pytest rewrites its plugins' asserts again (about a second
    on a machine that sets it), which no user's machine pays.
    """
    env = dict(os.environ)
    for key in (
        "GITHUB_ACTIONS",
        "PYTEST_ADDOPTS",
        "RIPGREP_CONFIG_PATH",
        "PYTHONSTARTUP",
        "PYTHONDONTWRITEBYTECODE",
    ):
        env.pop(key, None)
    env["SEMGREP_ENABLE_VERSION_CHECK"] = "0"  # else every run waits on a version check
    env["SEMGREP_SEND_METRICS"] = "off"
    env["NO_COLOR"] = "1"
    return env


def ensure_rg(*, install: bool) -> Tool:
    """ripgrep from the system (installed with apt-get when missing and allowed)."""
    path = shutil.which("rg")
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if path is None and install and root and shutil.which("apt-get"):
        print("bench: installing ripgrep (apt-get)", file=sys.stderr)
        subprocess.run(
            ["apt-get", "install", "-y", "-q", "ripgrep"], capture_output=True, check=False
        )
        path = shutil.which("rg")
    if path is None:
        return Tool("rg", missing="not installed (apt-get install ripgrep)")
    return Tool("rg", _version([path, "--version"]).removeprefix("ripgrep "), command=(path,))


def ensure_peers(venv: Path, *, install: bool) -> dict[str, Tool]:
    """ruff, ast-grep and semgrep in a throwaway venv; a peer that fails to install is
    reported as missing, with the reason, and the benchmark goes on without it."""
    python = venv / "bin" / "python"
    if install and not python.exists():
        print(f"bench: creating {venv}", file=sys.stderr)
        done = subprocess.run(
            [sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            reason = f"cannot create a venv: {done.stderr.strip()[-200:]}"
            return {name: Tool(name, missing=reason) for name, _ in PEER_PACKAGES}
    tools: dict[str, Tool] = {}
    for name, requirement in PEER_PACKAGES:
        executable = venv / "bin" / name
        if install and not executable.exists():
            print(f"bench: pip install {requirement} into {venv}", file=sys.stderr)
            done = subprocess.run(
                [str(python), "-m", "pip", "install", "-q", requirement],
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                errors = [line for line in done.stderr.splitlines() if "ERROR" in line]
                tail = (errors or done.stderr.strip().splitlines() or ["?"])[-1]
                tools[name] = Tool(name, missing=f"pip install {requirement} failed: {tail}")
                continue
        if not executable.exists():
            tools[name] = Tool(name, missing="not installed (run without --no-install)")
            continue
        version = _version([str(executable), "--version"])
        version = version.removeprefix(f"{name} ")
        tools[name] = Tool(name, version, command=(str(executable),))
    return tools


def cleantree_tools() -> dict[str, Tool]:
    """cleantree's CLI and its pytest plugin, run by this Python."""
    version = _version([sys.executable, "-c", "import pytest_cleantree as p; print(p.__version__)"])
    missing = "" if re.fullmatch(r"[\w.+-]+", version) else f"cannot import: {version}"
    pytest_version = _version([sys.executable, "-m", "pytest", "--version"])
    return {
        "cleantree": Tool(
            "cleantree", version, missing, (sys.executable, "-m", "pytest_cleantree", "check")
        ),
        "pytest --cleantree": Tool(
            "pytest --cleantree",
            f"{version}, {pytest_version.removeprefix('pytest ')}",
            missing,
            (sys.executable, "-m", "pytest"),
        ),
    }


def baseline_tools(rev: str, folder: Path) -> dict[str, Tool]:
    """cleantree's CLI and plugin as of the commit ``rev``, beside this tree's.

    The commit's package is unpacked into ``folder`` (``git archive``, with its
    bytecode compiled, as an installed copy has) and put first on ``PYTHONPATH``:
    the same Python, the same peers, the same run, only the code differs.
    """
    label = rev[:12]
    package = folder / "pytest_cleantree"
    if not package.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        repo = Path(__file__).resolve().parent.parent
        archive = subprocess.run(
            ["git", "-C", str(repo), "archive", rev, "pytest_cleantree"],
            capture_output=True,
            check=False,
        )
        if archive.returncode != 0:  # a comparison asked for and not made is no result
            why = archive.stderr.decode(errors="replace").strip() or "git archive failed"
            raise SystemExit(f"bench: cannot check out --baseline {rev}: {why}")
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
        compileall = [sys.executable, "-m", "compileall", "-q", str(package)]
        subprocess.run(compileall, check=False, env=tool_env())  # as the runs will
    env = (("PYTHONPATH", str(folder)),)
    return {
        f"{tool.name}@{label}": Tool(
            f"{tool.name}@{label}", f"{tool.version} at {rev}", tool.missing, tool.command, env
        )
        for tool in cleantree_tools().values()
    }


# --------------------------------------------------------------------------- invocations


@dataclass(frozen=True)
class Configs:
    """The files written for one question (see :func:`write_configs`)."""

    manifest: Path
    rg_patterns: Path
    rg_fixed: bool
    ruff: Path | None
    ast_grep: Path
    semgrep: Path
    pytest_ini: Path


def invocation(tool: Tool, configs: Configs, q: Question, corpus: str) -> Invocation | None:
    """How ``tool`` asks ``q`` of the corpus folder ``corpus`` (relative to the working folder);
    ``None`` when the tool cannot ask it (ruff and substrings)."""
    ok_any = frozenset({0, 1})
    if tool.kind != tool.name:  # a baseline: the same invocation, its own code
        plain = invocation(replace(tool, name=tool.kind), configs, q, corpus)
        return None if plain is None else replace(plain, env={**plain.env, **dict(tool.env)})
    if tool.name == "cleantree":
        argv = [*tool.command, "--manifest", str(configs.manifest), "--root", corpus]
        # 2: the check ran but is incomplete (a file of the corpus does not parse): still timed
        return Invocation(argv, frozenset({0, 1, 2}), parse_cleantree, cleantree_cache=True)
    if tool.name == "pytest --cleantree":
        argv = [
            *tool.command,
            "-c",
            str(configs.pytest_ini),
            "-p",
            "no:cacheprovider",
            "-q",
            "--cleantree",
            "--cleantree-root",
            corpus,
            str(configs.manifest),
        ]
        return Invocation(argv, ok_any, parse_cleantree, cleantree_cache=True)
    if tool.name == "rg":
        fixed = ["-F"] if configs.rg_fixed else []
        argv = [
            *tool.command,
            "--no-config",
            "-n",
            "--no-heading",
            "--with-filename",
            "--no-ignore",
            "--color",
            "never",
            "-g",
            "*.py",
            *fixed,
            "-f",
            str(configs.rg_patterns),
            corpus,
        ]
        return Invocation(argv, ok_any, parse_rg)
    if tool.name == "ruff":
        if configs.ruff is None:
            return None
        argv = [
            *tool.command,
            "check",
            "--config",
            str(configs.ruff),
            "--no-cache",
            "--output-format",
            "concise",
            "--exit-zero",
            "--quiet",
            corpus,
        ]
        return Invocation(argv, frozenset({0}), parse_ruff)
    if tool.name == "ast-grep":
        argv = [
            *tool.command,
            "scan",
            "--rule",
            str(configs.ast_grep),
            "--json=stream",
            *("--no-ignore", "vcs", "--no-ignore", "parent", "--no-ignore", "dot"),
            corpus,
        ]
        return Invocation(argv, ok_any, parse_ast_grep)
    if tool.name == "semgrep":
        argv = [
            *tool.command,
            "scan",
            "--config",
            str(configs.semgrep),
            "--metrics=off",
            "--disable-version-check",
            "--json",
            "--quiet",
            "--no-git-ignore",
            # the corpus is the project: its empty .semgrepignore replaces semgrep's default
            # one, which would skip every tests/ folder (most of the standard library)
            "--project-root",
            corpus,
            "--timeout",
            "0",
            "--max-target-bytes",
            "0",
            corpus,
        ]
        return Invocation(argv, frozenset({0}), parse_semgrep)
    raise ValueError(f"unknown tool {tool.name}")


def write_configs(q: Question, folder: Path, pytest_ini: Path) -> Configs:
    """Write every tool's configuration for ``q`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = folder / "cleantree.toml"
    manifest.write_text(render_manifest(q), encoding="utf-8")
    patterns, fixed = rg_patterns(q)
    rg_file = folder / ("rg-fixed.txt" if fixed else "rg-regex.txt")
    rg_file.write_text("\n".join(patterns) + "\n", encoding="utf-8")
    ruff_text = render_ruff(q)
    ruff = None
    if ruff_text is not None:
        ruff = folder / "ruff.toml"
        ruff.write_text(ruff_text, encoding="utf-8")
    ast_grep = folder / "ast-grep.yml"
    ast_grep.write_text(render_ast_grep(q), encoding="utf-8")
    semgrep = folder / "semgrep.yml"
    semgrep.write_text(render_semgrep(q), encoding="utf-8")
    return Configs(manifest, rg_file, fixed, ruff, ast_grep, semgrep, pytest_ini)
