"""Remote benchmark: a generated tree and a real package over a slow SSH link, and a fleet.

A real OpenSSH ``sshd`` on 127.0.0.1, reached through a TCP proxy that delays
every chunk by a fixed time in each direction (default 25 ms, so a 50 ms round
trip).  In one run, in turns: ``cleantree check --host`` (an exact rule and a qualified
one, each cold and warm) and ``ssh host grep -rn`` over the same link, on a generated
1,000-file tree and on a real package (networkx 3.3, pinned, installed from PyPI with
``pip install --target`` under ``bench/.work/``, as ``bench/kinds.py`` does).  The proxy counts
round trips as the number of times the traffic turns from client-to-server to
server-to-client; sshd's log, the remote commands started.

The fleet run starts ``--fleet`` sshd instances (default 32), each behind a
delaying proxy of its own and each serving the same ``--fleet-files`` tree
(default 392), and times ``cleantree check`` on all of them against one of them.

    python bench/remote.py [--files 1000] [--delay-ms 25] [--rounds 3] [--fleet 32]
    python bench/remote.py --quick    # one round, no fleet, printed only (a change's check)

Prints a Markdown table (and writes bench/results-remote.md).  Needs Debian's
openssh-server and openssh-client (``ssh``); never touches ~/.ssh.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import heapq
import os
import platform
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SSHD = shutil.which("sshd") or "/usr/sbin/sshd"


class DelayProxy:
    """Forwards TCP connections to ``target``, delaying each chunk by ``delay`` seconds."""

    def __init__(self, target: tuple[str, int], delay: float) -> None:
        self.target = target
        self.delay = delay
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.turns = 0
        self._last_direction = ""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def reset(self) -> None:
        with self._lock:
            self.turns, self._last_direction = 0, ""

    def _note(self, direction: str) -> None:
        with self._lock:
            if direction == "down" and self._last_direction == "up":
                self.turns += 1
            self._last_direction = direction

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            for source, sink, direction in ((client, upstream, "up"), (upstream, client, "down")):
                threading.Thread(
                    target=self._pump, args=(source, sink, direction), daemon=True
                ).start()

    def _pump(self, source: socket.socket, sink: socket.socket, direction: str) -> None:
        """Read as fast as data comes; deliver each chunk ``delay`` after it arrived."""
        queue: list[tuple[float, int, bytes]] = []
        ready = threading.Condition()
        counter = 0

        def deliver() -> None:
            while True:
                with ready:
                    while not queue:
                        ready.wait()
                    due, _, chunk = queue[0]
                    wait = due - time.monotonic()
                    if wait > 0:
                        ready.wait(wait)
                        continue
                    heapq.heappop(queue)
                if not chunk:
                    with contextlib.suppress(OSError):
                        sink.shutdown(socket.SHUT_WR)
                    return
                try:
                    sink.sendall(chunk)
                except OSError:
                    return

        threading.Thread(target=deliver, daemon=True).start()
        while True:
            try:
                chunk = source.recv(65536)
            except OSError:
                chunk = b""
            if chunk:
                self._note(direction)
            with ready:
                counter += 1
                heapq.heappush(queue, (time.monotonic() + self.delay, counter, chunk))
                ready.notify()
            if not chunk:
                return

    def close(self) -> None:
        self._stop.set()
        self.listener.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def sshd(folder: Path, log: Path | None = None) -> Iterator[tuple[int, Path, Path, str]]:
    """A private sshd: yields (port, client key, authorized host key line, user); ``log``:
    where it logs at DEBUG1 (each command it starts)."""
    Path("/run/sshd").mkdir(exist_ok=True)
    host_key, client_key = folder / "host_key", folder / "client_key"
    for key in (host_key, client_key):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    (folder / "authorized_keys").write_text((folder / "client_key.pub").read_text())
    port = free_port()
    config = folder / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {host_key}\n"
        f"AuthorizedKeysFile {folder / 'authorized_keys'}\nStrictModes no\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
        f"PidFile {folder / 'sshd.pid'}\nSubsystem sftp internal-sftp\nPermitRootLogin yes\n"
    )
    if log is not None:
        log.touch()
        with open(config, "a") as handle:
            handle.write("LogLevel DEBUG1\n")
    logging = ["-E", str(log)] if log is not None else ["-e"]
    process = subprocess.Popen([SSHD, "-D", *logging, "-f", str(config)], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"sshd did not start on port {port} (another process took it?): rerun")
            time.sleep(0.05)
        host_line = (folder / "host_key.pub").read_text().split()
        yield port, client_key, f"{host_line[0]} {host_line[1]}", getpass.getuser()
    finally:
        process.terminate()
        process.wait(10)


def make_tree(root: Path, files: int) -> None:
    """``files`` modules; every 97th imports ``pkg0.gpu.is_sm120_supported`` (the qualified
    rule's target) under an alias and calls it."""
    (root / "pkg0").mkdir(parents=True, exist_ok=True)
    (root / "pkg0" / "gpu.py").write_text(
        '"""The target."""\n\n\ndef is_sm120_supported():\n    return False\n'
    )
    for index in range(files):
        folder = root / f"pkg{index // 50}"
        folder.mkdir(parents=True, exist_ok=True)
        body = [f'"""Module {index}."""', "import os", ""]
        if index % 97 == 0:
            body += ["from pkg0.gpu import is_sm120_supported as supported", ""]
        for function in range(20):
            body += [f"def f{function}(x):", f"    return os.path.join(str(x), '{index}')", ""]
        if index % 97 == 0:
            body += ["if supported():", "    pass"]
        (folder / f"mod{index}.py").write_text("\n".join(body) + "\n")


#: the two rules: a substring (exact) and the qualified name the tree imports under an alias
RULES = {
    "exact": '[[rule]]\nid = "sm120"\nfiles = ["**/*.py"]\nforbid = ["sm120"]\n',
    "qualified": '[[rule]]\nid = "sm120"\nfiles = ["**/*.py"]\n'
    'forbid = ["pkg0.gpu.is_sm120_supported"]\n',
}
#: the real package's rules: a function defined in the tree, as a substring and qualified
#: (``bench/kinds.py``'s in-tree function)
PACKAGE_WORD = "topological_sort"
PACKAGE_RULES = {
    "exact": f'[[rule]]\nid = "k"\nfiles = ["**/*.py"]\nforbid = ["{PACKAGE_WORD}"]\n',
    "qualified": '[[rule]]\nid = "k"\nfiles = ["**/*.py"]\n'
    'forbid = ["networkx.algorithms.dag.topological_sort"]\n',
}


@dataclass(frozen=True)
class Tree:
    """A tree to check: its heading, what it is, its rules and grep's word."""

    title: str
    about: str
    rules: dict[str, str]
    word: str


def _ssh_config_block(alias: str, port: int, key: Path, user: str, known: Path) -> str:
    return (
        f"Host {alias}\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n"
        f"  IdentityFile {key}\n  IdentitiesOnly yes\n  UserKnownHostsFile {known}\n"
        "  StrictHostKeyChecking yes\n  ControlMaster no\n"
    )


def compile_package() -> str:
    """Write the bytecode of the package the runs import, as a wheel's install does (pip
    compiles it): where it is imported from a checkout under ``PYTHONDONTWRITEBYTECODE``
    (set here), each run would compile every module it imports again (a tenth of a second
    or more, in none of a user's runs).  The folder compiled, for the report."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("pytest_cleantree")
    if spec is None or spec.origin is None:
        sys.exit("pytest_cleantree is not importable")
    folder = Path(spec.origin).parent
    compileall.compile_dir(folder, quiet=1)
    return str(folder)


def _cleantree(manifest: Path, hosts: list[str], config: Path, known: Path) -> list[str]:
    command = [sys.executable, "-m", "pytest_cleantree", "check", "--manifest", str(manifest)]
    for host in hosts:
        command += ["--host", host]
    # the host's interpreter itself: a pyenv shim (python3 here) adds 0.2 s to each command,
    # which a server's /usr/bin/python3 or venv does not
    return [
        *command,
        "--ssh-config",
        str(config),
        "--known-hosts",
        str(known),
        "--python",
        sys.executable,
    ]


def _hits(stdout: str) -> int:
    return sum(1 for line in stdout.splitlines() if ".py:" in line)


def _commands_seen(log: Path, before: int) -> int:
    """Remote commands sshd started since ``before`` (the log's length then): each agent
    session, or each request of a client that starts one per request."""
    with open(log, "rb") as handle:
        handle.seek(before)
        return handle.read().count(b"request exec")


def single(args: argparse.Namespace, tree_of: Tree, make: Callable[[Path], Path]) -> list[str]:
    """cleantree (exact and qualified, cold and warm) against ``ssh host grep -rn`` on one
    host, on the tree ``make`` builds (or finds) from a scratch folder: the report's lines."""
    with tempfile.TemporaryDirectory(prefix="cleantree-remote-bench-") as scratch:
        work = Path(scratch)
        tree = make(work)
        for name, rule in tree_of.rules.items():
            (work / f"{name}.toml").write_text(rule)
        log = work / "sshd.log"
        with sshd(work, log) as (port, key, host_line, user):
            proxy = DelayProxy(("127.0.0.1", port), args.delay_ms / 1000)
            known = work / "known_hosts"
            known.write_text(f"[127.0.0.1]:{proxy.port} {host_line}\n")
            config = work / "ssh_config"
            config.write_text(_ssh_config_block("bench", proxy.port, key, user, known))
            cold = {**os.environ, "CLEANTREE_CACHE_DIR": ""}
            warm = {**os.environ, "CLEANTREE_CACHE_DIR": str(work / "cache")}
            commands: dict[str, tuple[list[str], dict[str, str]]] = {}
            for name in tree_of.rules:
                check = _cleantree(work / f"{name}.toml", [f"bench:{tree}"], config, known)
                commands[f"cleantree check --host, {name}, cold"] = (check, cold)
                commands[f"cleantree check --host, {name}, warm"] = (check, warm)
                subprocess.run(check, capture_output=True, env=warm, check=False)  # the cache
            grep = f"grep -rn --include=*.py {tree_of.word} {tree}"
            commands["ssh host grep -rn"] = (["ssh", "-F", str(config), "bench", grep], cold)
            times, turns, execs, hits = _measure(commands, proxy, log, args.rounds)
            proxy.close()
    grep_time = statistics.median(times["ssh host grep -rn"])
    lines = [
        f"## {tree_of.title}",
        "",
        f"{tree_of.about} Through a proxy adding {args.delay_ms:g} ms each way "
        f"({2 * args.delay_ms:g} ms per round trip), real sshd on 127.0.0.1. Cold: no "
        "analysis cache; warm: the cache of an earlier run.",
        "",
        "| tool | wall time | x grep | round trips (turns seen by the proxy) | remote commands "
        "(sshd's exec requests) | lines found |",
        "|---|---|---|---|---|---|",
    ]
    for name in commands:
        median = statistics.median(times[name])
        lines.append(
            f"| `{name}` | {median:.2f} s | {median / grep_time:.2f} | "
            f"{statistics.median(turns[name]):.0f} | {statistics.median(execs[name]):.0f} | "
            f"{hits[name]} |"
        )
    exact = statistics.median(times["cleantree check --host, exact, warm"])
    qualified = statistics.median(times["cleantree check --host, qualified, warm"])
    lines += ["", f"Qualified warm against exact warm: {qualified / exact:.2f}x."]
    return lines


def _measure(
    commands: dict[str, tuple[list[str], dict[str, str]]],
    proxy: DelayProxy,
    log: Path,
    rounds: int,
) -> tuple[dict[str, list[float]], dict[str, list[int]], dict[str, list[int]], dict[str, int]]:
    """Each command run ``rounds`` times in turns: its times, round trips, remote commands,
    and the lines it found."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    turns: dict[str, list[int]] = {name: [] for name in commands}
    execs: dict[str, list[int]] = {name: [] for name in commands}
    hits: dict[str, int] = {}
    for _ in range(rounds):
        for name, (command, env) in commands.items():
            proxy.reset()
            logged = log.stat().st_size
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, env=env)
            times[name].append(time.perf_counter() - start)
            turns[name].append(proxy.turns)
            time.sleep(0.2)  # sshd's log of the last session
            execs[name].append(_commands_seen(log, logged))
            if name.startswith("ssh"):
                hits[name] = len(done.stdout.splitlines())
            else:
                hits[name] = _hits(done.stdout)
            if done.returncode not in (0, 1):
                sys.exit(f"{name} failed ({done.returncode}): {done.stderr.strip()}")
    return times, turns, execs, hits


def generated(args: argparse.Namespace) -> list[str]:
    tree = Tree(
        "One host against grep: a generated tree",
        f"{args.files} generated files. Exact: a substring rule; qualified: "
        "`pkg0.gpu.is_sm120_supported`, imported under an alias by every 97th module.",
        RULES,
        "sm120",
    )

    def make(work: Path) -> Path:
        make_tree(work / "tree", args.files)
        return work / "tree"

    return single(args, tree, make)


def real_package(args: argparse.Namespace) -> list[str]:
    """The real package's section: networkx 3.3, pinned, installed with ``pip --target``."""
    from kinds import PACKAGE, installed  # bench/kinds.py: the same pinned wheel

    folder = installed(PACKAGE)
    count = sum(1 for _ in folder.rglob("*.py"))
    tree = Tree(
        "One host against grep: a real package",
        f"{' '.join(PACKAGE)} from PyPI, installed with `pip install --target` ({count} "
        f"Python files). Exact: `{PACKAGE_WORD}` as a substring; qualified: "
        "`networkx.algorithms.dag.topological_sort`, a function defined in the tree.",
        PACKAGE_RULES,
        PACKAGE_WORD,
    )
    return single(args, tree, lambda _: folder)


def fleet(args: argparse.Namespace) -> list[str]:
    """cleantree on ``--fleet`` hosts against one host: the report's lines."""
    with tempfile.TemporaryDirectory(prefix="cleantree-fleet-bench-") as scratch:
        work = Path(scratch)
        tree = work / "tree"
        make_tree(tree, args.fleet_files)
        manifest = work / "cleantree.toml"
        manifest.write_text('[[rule]]\nid = "sm120"\nfiles = ["**/*.py"]\nforbid = ["sm120"]\n')
        known = work / "known_hosts"
        config = work / "ssh_config"
        with contextlib.ExitStack() as stack:
            blocks, known_lines, proxies = [], [], []
            for index in range(args.fleet):
                folder = work / f"host{index}"
                folder.mkdir()
                port, key, host_line, user = stack.enter_context(sshd(folder))
                proxy = DelayProxy(("127.0.0.1", port), args.delay_ms / 1000)
                proxies.append(proxy)
                blocks.append(_ssh_config_block(f"h{index}", proxy.port, key, user, known))
                known_lines.append(f"[127.0.0.1]:{proxy.port} {host_line}\n")
            known.write_text("".join(known_lines))
            config.write_text("".join(blocks))
            env = {**os.environ, "CLEANTREE_CACHE_DIR": ""}
            hosts = [f"h{index}:{tree}" for index in range(args.fleet)]
            commands = {
                "1 host": _cleantree(manifest, hosts[:1], config, known),
                f"{args.fleet} hosts": _cleantree(manifest, hosts, config, known),
            }
            times: dict[str, list[float]] = {name: [] for name in commands}
            cpu: dict[str, list[float]] = {name: [] for name in commands}
            busy: dict[str, list[float]] = {name: [] for name in commands}
            hits: dict[str, int] = {}
            for _ in range(args.rounds):
                for name, command in commands.items():
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    machine = _machine_busy()
                    start = time.perf_counter()
                    done = subprocess.run(command, capture_output=True, text=True, env=env)
                    times[name].append(time.perf_counter() - start)
                    busy[name].append(_machine_busy() - machine)
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cpu[name].append(
                        after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                    )
                    hits[name] = _hits(done.stdout)
                    if done.returncode not in (0, 1):
                        sys.exit(f"{name} failed ({done.returncode}): {done.stderr.strip()}")
            for proxy in proxies:
                proxy.close()
    one = statistics.median(times["1 host"])
    lines = [
        f"## A fleet: {args.fleet} hosts against one",
        "",
        f"{args.fleet} sshd instances on 127.0.0.1, each behind a proxy of its own adding "
        f"{args.delay_ms:g} ms each way, each serving the same {args.fleet_files}-file tree; "
        "default `--forks` (every host at once). The servers, their sessions and helpers run "
        "on the same CPUs as the client here (on a real fleet each host has its own): the "
        "client's own CPU time is shown apart, and the whole machine's (every process, "
        f"against the {os.cpu_count()} CPUs x the wall time it could have used).",
        "",
        "| run | wall time | x one host | cleantree's CPU time (user + sys) | "
        "the machine's CPU time | lines found |",
        "|---|---|---|---|---|---|",
    ]
    for name in commands:
        median = statistics.median(times[name])
        capacity = (os.cpu_count() or 1) * median
        lines.append(
            f"| `cleantree check`, {name} | {median:.2f} s | {median / one:.2f} | "
            f"{statistics.median(cpu[name]):.2f} s | "
            f"{statistics.median(busy[name]):.2f} s of {capacity:.2f} s | {hits[name]} |"
        )
    return lines


def _machine_busy() -> float:
    """CPU seconds every process on this machine has used so far (Linux ``/proc/stat``)."""
    with open("/proc/stat") as stat:
        ticks = [int(value) for value in stat.readline().split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and iowait
    return (sum(ticks) - idle) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--delay-ms", type=float, default=25.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fleet", type=int, default=32, help="hosts in the fleet run (0: none)")
    parser.add_argument("--fleet-files", type=int, default=392)
    parser.add_argument("--out", type=Path, default=HERE / "results-remote.md")
    parser.add_argument(
        "--quick", action="store_true", help="one round, no fleet, results not written"
    )
    parser.add_argument(
        "--no-package", action="store_true", help="the generated tree only (no networkx)"
    )
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.fleet, args.out = 1, 0, None
    if shutil.which("ssh") is None or not Path(SSHD).exists():
        sys.exit("needs openssh-server and openssh-client (apt-get install openssh-server)")
    compile_package()
    lines = [
        "# Remote benchmark",
        "",
        f"`python bench/remote.py --files {args.files} --delay-ms {args.delay_ms:g} "
        f"--rounds {args.rounds} --fleet {args.fleet} --fleet-files {args.fleet_files}`; "
        f"{platform.node() and 'this machine'}, {os.cpu_count()} CPUs (shared with other "
        f"work while measured: load average {os.getloadavg()[0]:.1f} at the start; "
        f"indicative), Python {platform.python_version()}; medians of {args.rounds} "
        "interleaved rounds; the package's bytecode written first, as a wheel's install "
        "writes it.",
        "",
        *generated(args),
    ]
    if not args.no_package:
        lines += ["", *real_package(args)]
    if args.fleet:
        lines += ["", *fleet(args)]
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out is not None:
        args.out.write_text(report)


if __name__ == "__main__":
    main()
