"""Benchmark cleantree beside rg, ruff, ast-grep and semgrep: ``python bench/run.py [--quick]``.

Builds the corpora and the peers' venv under ``bench/.work/`` (gitignored), asks every tool
the same questions in interleaved rounds, and prints one Markdown table (also written to
``bench/results.md``).  See ``bench/README.md`` for what each column means.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import corpora
import kinds
from manifests import KINDS, SIZES, Question, question
from measure import Sample, evict_from_page_cache, median, run_measured, warm_page_cache
from report import Cell, Extra, render_results
from tools import (
    Configs,
    Lines,
    Tool,
    baseline_tools,
    cleantree_tools,
    ensure_peers,
    ensure_rg,
    invocation,
    tool_env,
    write_configs,
)
from warm import warm_answer

#: where cleantree keeps analyses between runs ("" turns the cache off)
CACHE_ENV = "CLEANTREE_CACHE_DIR"

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
WORK = BENCH / ".work"
EXAMPLE = REPO / "pytest_cleantree" / "examples" / "sm120" / "cleantree.toml"

TOOL_ORDER = ("cleantree", "pytest --cleantree", "rg", "ruff", "ast-grep", "semgrep")
FULL_SIZES = (1_000, 10_000, 50_000)
#: --quick: small generated trees only (cleantree's qualified questions take ~30 ms a file)
QUICK_SIZES = (250, 1_000)


@dataclass
class Series:
    """Every run of one tool on one question and corpus."""

    samples: list[Sample] = field(default_factory=list)
    lines: Lines | None = None
    failure: str = ""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python bench/run.py", description=__doc__)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small generated trees (250 and 1k files), every tool, question and extra: a check "
        "that the harness works, in minutes (noisy numbers)",
    )
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default: 3)")
    parser.add_argument(
        "--once-over",
        type=float,
        help="a run whose first round took longer than this many seconds is not repeated "
        "(default: 60, quick: 15): its noise is small beside its length",
    )
    parser.add_argument(
        "--corpora",
        help="comma-separated subset of stdlib,site-packages,gen-N (gen-250, gen-1k, gen-50k ...); "
        "default: stdlib,site-packages,gen-1k,gen-10k,gen-50k (quick: gen-250,gen-1k)",
    )
    parser.add_argument("--tools", help=f"comma-separated subset of: {','.join(TOOL_ORDER)}")
    parser.add_argument(
        "--questions", help="comma-separated subset, e.g. substring-20,qualified-20 (default: all)"
    )
    parser.add_argument(
        "--timeout", type=float, help="seconds before one run is killed (default 900, quick 300)"
    )
    parser.add_argument(
        "--baseline",
        metavar="REV",
        help="also run cleantree (CLI and plugin) as of this commit, in the same rounds: "
        "its columns, and each row's ratio to it, say what the tree's changes cost",
    )
    parser.add_argument("--rebuild", action="store_true", help="rebuild the corpora")
    parser.add_argument(
        "--no-install", action="store_true", help="install nothing; missing peers are reported"
    )
    parser.add_argument(
        "--output", type=Path, default=BENCH / "results.md", help="default: bench/results.md"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    rounds = args.rounds or 3
    timeout = args.timeout or (300.0 if args.quick else 900.0)
    once_over = args.once_over or (15.0 if args.quick else 60.0)
    WORK.mkdir(parents=True, exist_ok=True)
    env = tool_env()
    load_before = _load()
    source_before = _cleantree_source()

    tools = _tools(args)
    corpus_list = _corpora(args)
    questions = _questions(args)
    pytest_ini = WORK / "pytest.ini"
    pytest_ini.write_text("[pytest]\n# empty: the benchmark runs pytest without the repo's ini\n")
    configs = {q.label: write_configs(q, WORK / "configs" / q.label, pytest_ini) for q in questions}

    results: dict[tuple[str, str, str], Series] = {}
    for corpus in corpus_list:
        _log(f"{corpus.name}: {corpus.files} files, {corpus.mib:.0f} MiB; {rounds} rounds")
        files = list(corpora.iter_python_files(corpus.path))
        warm_page_cache(files)
        for round_number in range(rounds):
            for q_index, q in enumerate(questions):
                order = _rotated([t for t in tools if t.available], round_number + q_index)
                for tool in order:
                    series = results.setdefault((corpus.name, q.label, tool.name), Series())
                    if round_number and series.samples and series.samples[0].wall > once_over:
                        continue
                    _run_one(tool, series, configs[q.label], q, corpus, env, timeout)
        for tool in tools:
            for q in questions:
                if not tool.available:
                    results[(corpus.name, q.label, tool.name)] = Series(failure=tool.missing)

    extras = _extras(tools, corpus_list, questions, configs, env, timeout, rounds, once_over)
    load_after = _load()
    source_changed = _cleantree_source() != source_before

    cells = {key: _cell(series) for key, series in results.items()}
    text = render_results(
        command=_command(argv),
        facts=_facts(tools, rounds, once_over, load_before, load_after, source_changed),
        corpora=corpus_list,
        questions=[q.label for q in questions],
        tools=[tool.name for tool in tools],
        cells=cells,
        extras=extras,
    )
    print(text)
    args.output.write_text(text, encoding="utf-8")
    _dump_json(results, corpus_list)
    _log(f"written: {args.output}")
    return 0


# --------------------------------------------------------------------------- set-up


def _log(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def _tools(args: argparse.Namespace) -> list[Tool]:
    install = not args.no_install
    found = {**cleantree_tools(), "rg": ensure_rg(install=install)}
    found.update(ensure_peers(WORK / "venv", install=install))
    wanted = args.tools.split(",") if args.tools else list(TOOL_ORDER)
    unknown = set(wanted) - set(TOOL_ORDER)
    if unknown:
        raise SystemExit(f"bench: unknown tools: {', '.join(sorted(unknown))}")
    if args.baseline:
        found.update(baseline_tools(args.baseline, WORK / f"baseline-{args.baseline}"))
    for tool in found.values():
        _log(f"{tool.name}: {tool.version or ''}{tool.missing}")
    # a baseline's column stands beside the tool it is the same as, then the others
    kept = [name for name in TOOL_ORDER if name in wanted]
    return [tool for name in kept for tool in found.values() if tool.kind == name]


def _corpora(args: argparse.Namespace) -> list[corpora.Corpus]:
    base = WORK / "corpora"
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    names = [] if args.quick else ["stdlib", "site-packages"]
    names += [corpora.generated_name(size) for size in sizes]
    if args.corpora:
        names = args.corpora.split(",")
    built: list[corpora.Corpus] = []
    for name in names:
        if name == "stdlib":
            corpus = corpora.build_stdlib(base, rebuild=args.rebuild)
        elif name == "site-packages":
            corpus = corpora.build_site_packages(base, rebuild=args.rebuild)
        elif match := re.fullmatch(r"gen-(\d+)(k?)", name):
            count = int(match[1]) * (1000 if match[2] else 1)
            corpus = corpora.build_generated(base, count, rebuild=args.rebuild)
        else:
            raise SystemExit(f"bench: unknown corpus {name!r}")
        # an empty .semgrepignore replaces semgrep's default one (which skips tests/ folders)
        (corpus.path / ".semgrepignore").write_text("")
        built.append(corpus)
    return built


def _questions(args: argparse.Namespace) -> list[Question]:
    labels = [f"{kind}-{size}" for size in SIZES for kind in KINDS]
    if args.questions:
        labels = args.questions.split(",")
    out = []
    for label in labels:
        kind, _, size = label.partition("-")
        try:
            out.append(question(kind, int(size)))
        except ValueError:
            raise SystemExit(f"bench: unknown question {label!r}") from None
    return out


def _rotated(items: list[Tool], shift: int) -> list[Tool]:
    if not items:
        return items
    shift %= len(items)
    return items[shift:] + items[:shift]


# --------------------------------------------------------------------------- the matrix


def _relative(path: Path) -> str:
    return os.path.relpath(path, WORK)


def _run_one(
    tool: Tool,
    series: Series,
    configs: Configs,
    q: Question,
    corpus: corpora.Corpus,
    env: dict[str, str],
    timeout: float,
) -> None:
    if series.failure:
        return  # failed or timed out once: not run again
    corpus_dir = _relative(corpus.path)
    call = invocation(tool, configs, q, corpus_dir)
    if call is None:
        series.failure = "n/a"
        return
    run_env = {**env, **call.env}
    cache = None
    if call.cleantree_cache:
        # a first run: an empty analysis cache of its own (removed after), never the user's
        cache = Path(tempfile.mkdtemp(prefix="run-", dir=_cache_root()))
        run_env[CACHE_ENV] = str(cache)
    try:
        sample = run_measured(call.argv, cwd=WORK, env=run_env, timeout=timeout)
    finally:
        if cache is not None:
            shutil.rmtree(cache, ignore_errors=True)
    _log(
        f"{corpus.name} {q.label} {tool.name}: {sample.wall:.2f} s, "
        f"{sample.rss / 2**20:.0f} MiB, exit {sample.code}"
    )
    if sample.timed_out:
        series.failure = f"timeout (> {timeout:.0f} s)"
        return
    if sample.code not in call.ok_codes:
        tail = (sample.stderr.strip() or sample.stdout.strip()).splitlines()[-1:] or ["?"]
        series.failure = f"failed (exit {sample.code}): {tail[0][:120]}"
        return
    if series.lines is None:
        series.lines = call.parse(sample.stdout, corpus_dir + "/")
    series.samples.append(_lean(sample))


def _cache_root() -> Path:
    root = WORK / "cleantree-cache"
    root.mkdir(parents=True, exist_ok=True)
    return root


def _lean(sample: Sample) -> Sample:
    """The sample without its output (kept only until parsed)."""
    return Sample(sample.wall, sample.cpu, sample.rss, sample.code, "", "", sample.timed_out)


def _cell(series: Series) -> Cell:
    if not series.samples:
        return Cell(failure=series.failure or "not run")
    return Cell(
        wall=median([s.wall for s in series.samples]),
        cpu=median([s.cpu for s in series.samples]),
        rss=max(s.rss for s in series.samples),
        lines=series.lines,
        runs=len(series.samples),
        incomplete=any(s.code == 2 for s in series.samples),
    )


def _dump_json(
    results: dict[tuple[str, str, str], Series], corpus_list: Sequence[corpora.Corpus]
) -> None:
    rows = [
        {
            "corpus": corpus,
            "question": label,
            "tool": tool,
            "failure": series.failure,
            "lines": len(series.lines) if series.lines is not None else None,
            "samples": [
                {"wall": s.wall, "cpu": s.cpu, "rss": s.rss, "code": s.code} for s in series.samples
            ],
        }
        for (corpus, label, tool), series in results.items()
    ]
    files = {c.name: {"files": c.files, "bytes": c.size} for c in corpus_list}
    (WORK / "results.json").write_text(json.dumps({"corpora": files, "runs": rows}, indent=1))


# --------------------------------------------------------------------------- the extras


def _extras(
    tools: list[Tool],
    corpus_list: list[corpora.Corpus],
    questions: list[Question],
    configs: dict[str, Configs],
    env: dict[str, str],
    timeout: float,
    rounds: int,
    once_over: float,
) -> list[Extra]:
    by_name = {tool.name: tool for tool in tools if tool.available}
    extras: list[Extra] = []
    cli = by_name.get("cleantree")
    if cli is None:
        return extras
    labels = [q.label for q in questions]
    cold_label = "qualified-20" if "qualified-20" in labels else labels[0]
    q = next(q for q in questions if q.label == cold_label)
    for corpus in corpus_list:
        extras += _cold_warm(
            by_name, configs[cold_label], q, corpus, env, timeout, rounds, once_over
        )
        call = invocation(cli, configs[cold_label], q, _relative(corpus.path))
        if call is not None and corpus.name == "gen-1k":  # issue 36's row
            cache = _cache_root() / f"answer-{corpus.name}"
            extras += warm_answer(corpus.name, call.argv, WORK, env, cache, rounds)
    extras += _pytest_overhead_example(env, rounds)
    extras += _import_cost(env, rounds)
    extras += _startup(env, rounds)
    extras += kinds.extras(rounds)  # qualified patterns by kind on a real package (issue 44)
    return extras


def _cold_warm(
    by_name: dict[str, Tool],
    configs: Configs,
    q: Question,
    corpus: corpora.Corpus,
    env: dict[str, str],
    timeout: float,
    rounds: int,
    once_over: float,
) -> list[Extra]:
    """Cold: the corpus's pages evicted from the OS cache, an empty tool cache.  Warm: the same
    run again, nothing changed, the tool's cache primed (ruff's, and cleantree's analysis cache
    where this version has one)."""
    files = list(corpora.iter_python_files(corpus.path))
    corpus_dir = _relative(corpus.path)
    ruff_cache = WORK / "ruff-cache" / corpus.name
    shutil.rmtree(ruff_cache, ignore_errors=True)
    timings: dict[str, list[float]] = {}
    runs: list[tuple[str, list[str], frozenset[int], bool, dict[str, str]]] = []
    failures: dict[str, str] = {}
    cleantree_cache = _cache_root() / f"warm-{corpus.name}"
    shutil.rmtree(cleantree_cache, ignore_errors=True)
    for name in ("cleantree", "ruff"):
        tool = by_name.get(name)
        if tool is None:
            continue
        call = invocation(tool, configs, q, corpus_dir)
        if call is None:
            continue
        argv = list(call.argv)
        warm_argv, cold_env, warm_env = argv, env, env
        if name == "ruff":
            warm_argv = [a for a in argv if a != "--no-cache"] + ["--cache-dir", str(ruff_cache)]
        if call.cleantree_cache:
            cold_env = {**env, CACHE_ENV: "<fresh>"}  # an empty folder for each cold run
            warm_env = {**env, CACHE_ENV: str(cleantree_cache)}
        run_measured(warm_argv, cwd=WORK, env=warm_env, timeout=timeout)  # prime the cache
        runs.append((f"{name} cold", argv, call.ok_codes, True, cold_env))
        runs.append((f"{name} warm", warm_argv, call.ok_codes, False, warm_env))
    evictable = True
    for round_number in range(rounds):
        for label, argv, ok_codes, cold, run_env in runs:
            done = timings.get(label, [])
            if label in failures or (round_number and (not done or done[0] > once_over)):
                continue
            if cold:
                evictable = evict_from_page_cache(files)
            else:
                warm_page_cache(files)
            fresh = None
            if run_env.get(CACHE_ENV) == "<fresh>":
                fresh = Path(tempfile.mkdtemp(prefix="cold-", dir=_cache_root()))
                run_env = {**run_env, CACHE_ENV: str(fresh)}
            try:
                sample = run_measured(argv, cwd=WORK, env=run_env, timeout=timeout)
            finally:
                if fresh is not None:
                    shutil.rmtree(fresh, ignore_errors=True)
            if sample.timed_out:
                failures[label] = f"timeout (> {timeout:.0f} s)"
            elif sample.code not in ok_codes:
                failures[label] = f"failed (exit {sample.code})"
            else:
                timings.setdefault(label, []).append(sample.wall)
    _log(f"{corpus.name} cold/warm: {timings}")
    how = "pages evicted (fadvise)" if evictable else "page cache NOT evicted (no fadvise)"
    out = [
        Extra(
            f"{label}, {q.label}, {corpus.name}",
            median(values),
            "s",
            how if label.endswith("cold") else "repeat run, nothing changed",
            key=f"{label.replace(' ', '-')}:{corpus.name}",
        )
        for label, values in timings.items()
    ]
    out += [
        Extra(f"{label}, {q.label}, {corpus.name}", None, "", failure)
        for label, failure in failures.items()
    ]
    return out


def _pytest_overhead_example(env: dict[str, str], rounds: int) -> list[Extra]:
    """The fixed cost of the pytest front end on the bundled example: the CLI against pytest
    as installed (every plugin of this machine autoloaded) and against pytest with only this
    plugin loaded (``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 -p pytest_cleantree.plugin``)."""
    if not EXAMPLE.is_file():
        return []
    cli = [sys.executable, "-m", "pytest_cleantree", "check", "--manifest", str(EXAMPLE)]
    py = [sys.executable, "-m", "pytest", "-c", str(WORK / "pytest.ini"), "-p", "no:cacheprovider"]
    py += ["-q", "--cleantree", str(EXAMPLE)]
    alone = [*py[:3], "-p", "pytest_cleantree.plugin", *py[3:]]
    alone_env = {**env, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    runs = (("cli", cli, env), ("pytest", py, env), ("alone", alone, alone_env))
    times: dict[str, list[float]] = {key: [] for key, _, _ in runs}
    for _ in range(max(rounds, 5)):
        for key, argv, run_env in runs:
            times[key].append(run_measured(argv, cwd=WORK, env=run_env, timeout=120).wall)
    cli_s, py_s, alone_s = (median(times[key]) for key in ("cli", "pytest", "alone"))
    return [
        Extra(
            "example: cleantree check",
            cli_s,
            "s",
            "pytest_cleantree/examples/sm120 (fails on purpose)",
        ),
        Extra("example: pytest --cleantree", py_s, "s", "same manifest, plugins autoloaded"),
        Extra(
            "example: pytest --cleantree minus CLI",
            py_s - cli_s,
            "s",
            "the pytest front end's fixed cost, with this machine's other pytest plugins",
            key="pytest-overhead:example",
        ),
        Extra(
            "example: pytest --cleantree, only this plugin, minus CLI",
            alone_s - cli_s,
            "s",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 -p pytest_cleantree.plugin",
            key="pytest-overhead-alone:example",
        ),
    ]


_IMPORTTIME = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def importtime_after(stderr: str, anchor: str) -> int:
    """Microseconds of self time of every module imported after the top-level ``anchor``."""
    total, seen = 0, False
    for line in stderr.splitlines():
        match = _IMPORTTIME.match(line)
        if not match:
            continue
        if seen:
            total += int(match[1])
        elif match[4] == anchor and not match[3].strip(" ") and len(match[3]) <= 1:
            seen = True
    return total


def _import_cost(env: dict[str, str], rounds: int) -> list[Extra]:
    """What the plugin costs a pytest session that does not pass ``--cleantree``."""
    code = "import pytest; import pytest_cleantree.plugin"
    costs = []
    for _ in range(max(rounds, 7)):
        sample = run_measured(
            [sys.executable, "-X", "importtime", "-c", code], cwd=WORK, env=env, timeout=60
        )
        costs.append(importtime_after(sample.stderr, "pytest") / 1e6)
    tests = _inert_tests()
    probe = (
        "import sys, pytest\n"
        f"pytest.main(['-c', {str(WORK / 'pytest.ini')!r}, '-p', 'no:cacheprovider', '-q', "
        f"{str(tests)!r}])\n"
        "print('HEAVY:' + ','.join(m for m in ('astroid', 'paramiko') if m in sys.modules))\n"
    )
    sample = run_measured([sys.executable, "-c", probe], cwd=WORK, env=env, timeout=120)
    heavy = re.search(r"^HEAVY:(.*)$", sample.stdout, re.M)
    loaded = heavy[1] if heavy else "?"
    return [
        Extra(
            "plugin import without --cleantree",
            median(costs),
            "s",
            "-X importtime: self times of what `import pytest_cleantree.plugin` adds to "
            "`import pytest`",
            key="plugin-import",
        ),
        Extra(
            "astroid/paramiko imported by a plain pytest run",
            None,
            "",
            "none (ok)" if loaded == "" else f"{loaded} (should be none)",
            key="heavy-imports:" + loaded,
        ),
    ]


def _inert_tests() -> Path:
    """A folder with one test that does nothing."""
    tests = WORK / "inert"
    tests.mkdir(exist_ok=True)
    (tests / "test_inert.py").write_text("def test_nothing():\n    pass\n")
    return tests


def _startup(env: dict[str, str], rounds: int) -> list[Extra]:
    """``cleantree check`` on the bundled example against a bare interpreter (issue 4)."""
    if not EXAMPLE.is_file():
        return []
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -m pytest_cleantree check (example)": [
            sys.executable,
            "-m",
            "pytest_cleantree",
            "check",
            "--manifest",
            str(EXAMPLE),
        ],
    }
    script = shutil.which(
        "cleantree", path=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    )
    if script:
        commands["cleantree check (example)"] = [script, "check", "--manifest", str(EXAMPLE)]
    times: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(max(rounds, 10)):
        for label, argv in commands.items():
            times[label].append(run_measured(argv, cwd=WORK, env=env, timeout=60).wall)
    base = median(times["python -c pass"])
    out = []
    for label, values in times.items():
        value = median(values)
        note = "bare interpreter" if label == "python -c pass" else f"+{value - base:.3f} s over it"
        out.append(Extra(f"start-up: {label}", value, "s", note))
    return out


# --------------------------------------------------------------------------- facts


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def _cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or "?"
    match = re.search(r"^model name\s*:\s*(.+)$", text, re.M)
    return match[1].strip() if match else "?"


def _cleantree_source() -> str:
    """A digest of the cleantree being measured (its package's Python files)."""
    import hashlib

    try:
        import pytest_cleantree
    except ImportError as exc:
        return f"not importable: {exc}"
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(Path(pytest_cleantree.__file__).parent.rglob("*.py")):
        digest.update(str(path).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _git_state() -> str:
    try:
        head = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--", "pytest_cleantree"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        return "not a git checkout"
    if not head:
        return "not a git checkout"
    return f"commit {head}" + (" with uncommitted changes to pytest_cleantree/" if dirty else "")


def _facts(
    tools: list[Tool],
    rounds: int,
    once_over: float,
    load_before: str,
    load_after: str,
    source_changed: bool,
) -> list[str]:
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    versions = ", ".join(
        f"{tool.name} {tool.version}" if tool.available else f"{tool.name}: {tool.missing}"
        for tool in tools
        if tool.name != "pytest --cleantree"
    )
    changed = (
        "; **its source changed during the run: the numbers mix versions, run again**"
        if source_changed
        else ""
    )
    return [
        f"cleantree at {_git_state()}{changed}",
        f"{datetime.date.today().isoformat()}; {platform.system()} {platform.machine()}, "
        f"{usable} CPUs (nproc) of {os.cpu_count()}, {_cpu_model()}",
        f"Python {platform.python_version()} ({sys.executable}); tools run with bytecode "
        "caching on (PYTHONDONTWRITEBYTECODE unset)",
        f"tools: {versions}",
        f"{rounds} interleaved rounds (tool order rotated each round), medians; a run over "
        f"{once_over:g} s in round 1 is not repeated; load average before {load_before}, "
        f"after {load_after}",
    ]


def _command(argv: Sequence[str] | None) -> str:
    args = list(sys.argv[1:] if argv is None else argv)
    return shlex.join(["python", "bench/run.py", *args])


if __name__ == "__main__":
    sys.exit(main())
