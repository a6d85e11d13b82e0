"""Remote faults against real sshd servers and a TCP proxy the tests control.

The proxy (``faultproxy.py``) forwards to a real ``sshd`` and misbehaves at an exact byte
of an exact direction: it cuts (FIN), resets (RST), stalls, corrupts a byte, stops
listening, or lets the test kill the server at that moment.  Whatever happens, a check
over SSH ends, within its timeouts, in one of two ways: the exact answer a clean
connection gives (the fault fell where the protocol can absorb it: a retried connection,
a byte nobody checks, the last bytes of a finished exchange), or a one-line
``SourceError`` naming the host; the CLI exits 2 and never prints a traceback.  Never a
pass, never a partial answer.  In a fleet, the hosts that can be reached still report.
"""

from __future__ import annotations

import collections
import contextlib
import getpass
import json
import os
import random
import re
import select
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import paramiko
import pytest
from budget import examples
from faultproxy import FaultProxy, Plan
from hypothesis import example, given, settings
from hypothesis import strategies as st
from needs import missing
from runs import cleantree

from pytest_cleantree.config.hosts import parse_host_spec
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.sources import RemoteOptions
from pytest_cleantree.sources.base import FileRead, ReadAnswer
from pytest_cleantree.sources.ssh import SSHSource

pytestmark = pytest.mark.ssh

SSHServer = Any  # tests/integration/conftest.py's SSHServer
SSHClientSetup = Any  # tests/integration/conftest.py's SSHClientSetup
T = TypeVar("T")

#: a read's last bytes each way that may be lost with the answer already complete (the
#: server's EOF, exit status and close, the client's close): measured at under 200
TAIL = 512
#: the alias of the client files (``make_client_setup`` writes the same)
ALIAS = "cleantree-test"
#: how a lost connection is described: the server's output travels in SSH packets of up to
#: 32 kB, and the client sees none of a packet that the cut splits, so a cut in the middle of
#: a file may be seen before the helper's first record arrived
DROPPED = r"dropped (?:mid-transfer: .+|before the remote helper answered)"
#: the timeouts of the sources these tests open, seconds
TIMEOUT = 10.0
#: a run that has not ended by then is a hang, whatever the timeouts say
HANG = 60.0


def bounded(seconds: float, work: Callable[[], T]) -> T:
    """``work()``, in a thread that must finish within ``seconds``: a hang fails the test."""
    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as exc:
            failed.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        pytest.fail(f"hung: still running after {seconds:g} s")
    if failed:
        raise failed[0]
    return done[0]


def one_line(error: BaseException, host: str) -> str:
    text = str(error)
    assert "\n" not in text, text
    assert text.startswith(f"{host}"), text
    return text


def write_tree(root: Path) -> list[str]:
    """A dirty tree: one large file (most of what travels down) and a small one.  The large
    one's strings are random: a check reads it ahead packed (zlib), and the faults placed in
    the middle of a plain read's bytes must fall inside what the check's read carries too."""
    root.mkdir()
    chars = random.Random(45).choices(string.ascii_letters + string.digits + "+/", k=200_000)
    big = "".join(
        f"import os\nsm120_enabled = os.environ.get('{''.join(chars[i * 200 : i * 200 + 200])}')\n"
        for i in range(1000)
    )
    (root / "big.py").write_text(big)
    (root / "small.py").write_text("def f():\n    return 1\n")
    return ["big.py", "small.py"]


@dataclass
class Line:
    """A tree, read over SSH through a proxy; ``clean`` and ``total`` come from a clean read."""

    proxy: FaultProxy
    setup: SSHClientSetup
    tree: Path
    paths: list[str]
    make_ssh_source: Callable[..., SSHSource]
    clean: dict[str, ReadAnswer]
    #: bytes each way of one clean read, on its one connection
    total: dict[str, int]

    def source(self, **options: Any) -> SSHSource:
        options.setdefault("connect_timeout", TIMEOUT)
        options.setdefault("command_timeout", TIMEOUT)
        return self.make_ssh_source(self.tree, self.setup, **options)

    def read(self, plan: Plan | None = None, **options: Any) -> Any:
        """The read's answer, or the SourceError it raised; the source closed either way."""
        if plan is not None:
            self.proxy.plan = plan
        self.proxy.fired.clear()
        source = self.source(**options)

        def work() -> Any:
            try:
                return dict(source.read(self.paths))
            except SourceError as exc:
                return exc
            finally:
                source.close()

        return bounded(HANG, work)


def through(
    proxy: FaultProxy, server: SSHServer, make_client_setup: Callable[..., SSHClientSetup]
) -> SSHClientSetup:
    """Client files that reach ``server`` through ``proxy`` (known hosts name the proxy)."""
    known = f"[127.0.0.1]:{proxy.port} {server.host_key}\n"
    return make_client_setup(port=proxy.port, known_hosts_text=known)


@dataclass(frozen=True)
class Measured:
    """A tree, and what one clean read of it over SSH carries each way."""

    tree: Path
    paths: list[str]
    clean: dict[str, ReadAnswer]
    total: dict[str, int]


@pytest.fixture(scope="module")
def measured(
    tmp_path_factory: pytest.TempPathFactory, sshd: SSHServer, client_key: Path
) -> Measured:
    """Measured once per module: every test's own proxy carries the same bytes for the same
    read of the same tree (nothing in the stream depends on the proxy's port)."""
    folder = tmp_path_factory.mktemp("remote-faults")
    tree = folder / "tree"
    paths = write_tree(tree)
    with contextlib.closing(FaultProxy((sshd.host, sshd.port))) as proxy:
        (folder / "ssh_config").write_text(ssh_host(ALIAS, proxy.port, client_key))
        (folder / "known_hosts").write_text(f"[127.0.0.1]:{proxy.port} {sshd.host_key}\n")
        options = RemoteOptions(
            known_hosts=folder / "known_hosts",
            ssh_config=folder / "ssh_config",
            python=sys.executable,
            connect_timeout=TIMEOUT,
            command_timeout=TIMEOUT,
        )
        source = SSHSource(parse_host_spec(ALIAS), str(tree), options)
        with source:
            clean = dict(source.read(paths))
        assert clean == {path: FileRead((tree / path).read_bytes()) for path in paths}, clean
        assert proxy.idle(10), "the clean connection did not end"
        (connection,) = proxy.connections
    assert proxy.join(10)
    total = {"up": connection.up, "down": connection.down}
    assert total["down"] > 40_000
    return Measured(tree, paths, clean, total)


@pytest.fixture
def line(
    measured: Measured,
    sshd: SSHServer,
    make_proxy: Callable[[tuple[str, int]], FaultProxy],
    make_ssh_source: Callable[..., SSHSource],
    make_client_setup: Callable[..., SSHClientSetup],
) -> Line:
    """The measured tree, through a proxy of the test's own."""
    proxy = make_proxy((sshd.host, sshd.port))
    setup = through(proxy, sshd, make_client_setup)
    return Line(
        proxy,
        setup,
        measured.tree,
        list(measured.paths),
        make_ssh_source,
        measured.clean,
        dict(measured.total),
    )


# -- cut, reset, corrupt at any byte -------------------------------------------------------


@pytest.mark.slow
def test_a_cut_reset_or_corrupt_stream_is_never_a_wrong_answer(line: Line) -> None:
    """Every connection of the read is hit at the same byte (so the one retry is hit too):
    a cut or reset before the read's last bytes must be an error; a corrupt byte gives an
    error, or the exact answer where the protocol does not depend on that byte."""
    up, down = line.total["up"], line.total["down"]
    outcomes: collections.Counter[str] = collections.Counter()
    wheres = st.one_of(
        st.tuples(st.just("up"), st.integers(0, up - 1)),
        st.tuples(st.just("down"), st.integers(0, down - 1)),
    )

    @settings(max_examples=examples(ci=12, long=400))
    @given(fault=st.sampled_from(["cut", "reset", "corrupt"]), where=wheres)
    @example(fault="cut", where=("down", 0))  # before the server's banner
    @example(fault="cut", where=("up", 0))  # before the client's banner
    @example(fault="cut", where=("down", down // 2))  # in the middle of the big file
    @example(fault="reset", where=("up", up - 2000))  # in the helper's upload
    @example(fault="corrupt", where=("down", down // 2))  # one byte of the big file
    def hit(fault: str, where: tuple[str, int]) -> None:
        direction, offset = where
        answer = line.read(Plan(fault, direction, offset))
        before_the_end = offset < line.total[direction] - TAIL
        if before_the_end:
            assert line.proxy.fired.is_set(), "the fault never fired"
        if isinstance(answer, SourceError):
            one_line(answer, line.setup.alias)
            outcomes["error"] += 1
        else:
            assert answer == line.clean, "a faulty stream gave a different answer"
            assert fault == "corrupt" or not before_the_end, "a cut before the end went unseen"
            outcomes["same"] += 1

    hit()
    print(f"cut/reset/corrupt outcomes: {dict(outcomes)}")  # shown with -s or -rP
    assert outcomes["error"] >= 5, outcomes


def test_a_connection_dropped_once_is_retried(line: Line) -> None:
    answer = line.read(Plan("cut", "down", line.total["down"] // 2, connections=1))
    assert answer == line.clean
    assert [c.faulted for c in line.proxy.connections] == [True, False]


def test_a_drop_is_seen_even_before_paramiko_marks_the_transport_dead(
    line: Line, monkeypatch: pytest.MonkeyPatch
) -> None:
    """paramiko's transport thread closes its channels, then marks itself inactive: a
    reader woken in between saw an alive transport under a cut stream, and reported "cut
    short" instead of retrying.  The window is held open here until the read is over."""
    held, release = threading.Event(), threading.Event()
    unlink = paramiko.Channel._unlink  # type: ignore[attr-defined]

    def slow_unlink(channel: paramiko.Channel) -> None:
        unlink(channel)
        if threading.current_thread() is channel.transport and not held.is_set():
            held.set()
            release.wait(HANG)

    monkeypatch.setattr(paramiko.Channel, "_unlink", slow_unlink)
    try:
        answer = line.read(Plan("cut", "down", line.total["down"] // 2, connections=1))
    finally:
        release.set()
    assert held.is_set()
    assert answer == line.clean


@pytest.mark.parametrize("method", ["exec_command", "sendall", "recv"])
def test_paramiko_raising_eof_under_a_command_is_a_lost_connection(
    line: Line, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    """A channel whose transport is dying raises EOFError from any call that sends (an
    exec request, stdin's EOF, the window adjustment a read makes).  Here the
    connection is really closed at that call, once; the read must end as a clean read
    (retried, or complete already), never with the EOFError.  (The agent's session keeps
    its stdin open: the request's sendall is where stdin's EOF was; and a source that closes
    leaves its channel to the connection's end: no channel close is sent.)"""
    original = getattr(paramiko.Channel, method)
    died: list[str] = []

    def dying(channel: paramiko.Channel, *args: Any, **kwargs: Any) -> Any:
        transport = channel.get_transport()
        if died or not transport.is_active():  # (a collected channel closes itself)
            return original(channel, *args, **kwargs)
        died.append(method)
        transport.close()
        raise EOFError

    monkeypatch.setattr(paramiko.Channel, method, dying)
    assert line.read() == line.clean
    assert died == [method]


# -- stalls: the timeouts fire, nothing hangs --------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("direction", "where", "expected"),
    [
        ("down", "handshake", r"no SSH handshake within 1 s"),
        ("up", "upload", r"a remote command did not finish within 1 s"),
        ("down", "download", r"a remote command did not finish within 1 s"),
    ],
)
def test_a_stalled_link_times_out(line: Line, direction: str, where: str, expected: str) -> None:
    offset = {
        "handshake": 100,  # after the server's banner, in its key exchange
        "upload": line.total["up"] - 2000,  # in the helper sent on stdin
        "download": line.total["down"] // 2,  # in the big file
    }[where]
    # the timeout that must fire is 1 s, the other is left long: under load, it must not
    # be the other one that fires first
    timeouts = {"connect_timeout": 1} if where == "handshake" else {"command_timeout": 1}
    answer = bounded(30, lambda: line.read(Plan("stall", direction, offset), **timeouts))
    assert line.proxy.fired.is_set()
    assert isinstance(answer, SourceError)
    assert re.search(expected, one_line(answer, line.setup.alias))


# -- the server goes away ------------------------------------------------------------------


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _wait_dead(pid: int, seconds: float) -> bool:
    """Wait for a process that is not our child to end, on its pidfd (no polling)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([fd], [], [], seconds)
        return bool(readable)
    finally:
        os.close(fd)


def kill_server(server: SSHServer) -> None:
    """SIGKILL an sshd and every session it started, and wait until they are gone."""
    doomed = [server.process.pid, *_descendants(server.process.pid)]
    for pid in doomed:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    server.process.wait(timeout=10)
    assert all(_wait_dead(pid, 10) for pid in doomed)


def test_sshd_killed_mid_transfer_is_an_error(
    tmp_path: Path,
    line: Line,
    disposable_setup: SSHClientSetup,
    make_proxy: Callable[[tuple[str, int]], FaultProxy],
    make_client_setup: Callable[..., SSHClientSetup],
) -> None:
    """The server and its sessions are killed once 1 MB of an 8 MB file went down: the SSH
    channel window (2 MB) kept the server from sending the rest ahead into the sockets, so
    the answer cannot be complete (with a small file, it could be, and rightly pass)."""
    server = disposable_setup.server
    huge = tmp_path / "huge"
    huge.mkdir()
    (huge / "huge.py").write_bytes(b"x = 1\n" * ((8 << 20) // 6))
    proxy = make_proxy((server.host, server.port))
    line.proxy, line.setup = proxy, through(proxy, server, make_client_setup)
    line.tree, line.paths = huge, ["huge.py"]
    answer = line.read(Plan("call", "down", 1 << 20, call=lambda: kill_server(server)))
    assert server.process.poll() is not None
    assert proxy.connections[0].faulted
    assert isinstance(answer, SourceError)
    message = one_line(answer, line.setup.alias)
    assert re.search(rf"\(after the connection was lost: {DROPPED}\)$", message), message


def test_connection_refused(line: Line) -> None:
    line.proxy.refuse()
    answer = line.read()
    assert isinstance(answer, SourceError)
    assert "connection refused" in one_line(answer, line.setup.alias)


def test_refused_after_a_drop(line: Line) -> None:
    """The first connection is cut mid-transfer and the host stops listening: the retry
    fails, and the error says both."""
    middle = line.total["down"] // 2
    answer = line.read(Plan("cut", "down", middle, call=line.proxy.refuse))
    assert isinstance(answer, SourceError)
    message = one_line(answer, line.setup.alias)
    assert re.search(rf"connection refused \(after the connection was lost: {DROPPED}\)$", message)


def test_a_proxy_that_resets_every_connection(line: Line) -> None:
    """The proxy accepts, finds nobody upstream, and resets: no banner ever arrives."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        line.proxy.upstream = ("127.0.0.1", probe.getsockname()[1])  # nobody listens there
    answer = line.read()
    assert isinstance(answer, SourceError)
    message = one_line(answer, line.setup.alias)
    # which of the client's reads sees the reset first depends on timing: each says so
    assert re.search(
        r"cannot reach the host: Connection reset by peer|no SSH handshake within"
        r"|the host closed the connection during the handshake|did not send an SSH banner",
        message,
    ), message


# -- the CLI, one host and a fleet -----------------------------------------------------------


def cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return cleantree(*args, cwd=cwd, env=env, timeout=HANG)


def hits_by_host(document: dict[str, Any]) -> dict[str, list[tuple[str, int]]]:
    found: dict[str, list[tuple[str, int]]] = {}
    for result in document["results"]:
        rows = found.setdefault(result["host"], [])
        rows.extend((hit["file"], hit["line"]) for hit in result["hits"])
    return {host: sorted(rows) for host, rows in found.items()}


@dataclass
class Fleet:
    """Two aliases: ``faulty`` through the proxy, ``healthy`` straight to the server."""

    folder: Path
    ssh_config: Path
    known_hosts: Path

    def options(self) -> list[str]:
        return [
            "--ssh-config",
            str(self.ssh_config),
            "--known-hosts",
            str(self.known_hosts),
            "--python",
            sys.executable,
        ]


def ssh_host(alias: str, port: int, key: Path | None) -> str:
    """An ssh config block for 127.0.0.1:``port``; without ``key``, no key file at all."""
    lines = [f"Host {alias}", "HostName 127.0.0.1", f"Port {port}", f"User {getpass.getuser()}"]
    if key is not None:
        lines += [f"IdentityFile {key}", "IdentitiesOnly yes"]
    return "\n    ".join(lines) + "\n"


def write_fleet(folder: Path, line: Line, sshd: SSHServer, client_key: Path) -> Fleet:
    config = folder / "fleet_config"
    config.write_text(
        ssh_host("faulty", line.proxy.port, client_key) + ssh_host("healthy", sshd.port, client_key)
    )
    known = folder / "fleet_known_hosts"
    known.write_text(
        f"[127.0.0.1]:{line.proxy.port} {sshd.host_key}\n[127.0.0.1]:{sshd.port} {sshd.host_key}\n"
    )
    (folder / "cleantree.toml").write_text(
        'root = "tree"\n[[rule]]\nid = "no-sm120"\nfiles = ["**/*.py"]\nforbid = ["sm120"]\n'
    )
    return Fleet(folder, config, known)


@pytest.fixture
def fleet(tmp_path: Path, line: Line, sshd: SSHServer, client_key: Path) -> Fleet:
    return write_fleet(tmp_path, line, sshd, client_key)


FLEET_FAULTS: dict[str, Callable[[Line], None]] = {
    "refused": lambda line: line.proxy.refuse(),
    "cut mid-transfer": lambda line: setattr(
        line.proxy, "plan", Plan("cut", "down", line.total["down"] // 2)
    ),
    "stalled mid-transfer": lambda line: setattr(
        line.proxy, "plan", Plan("stall", "down", line.total["down"] // 2)
    ),
    "corrupt handshake": lambda line: setattr(line.proxy, "plan", Plan("corrupt", "down", 10)),
}


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(FLEET_FAULTS))
def test_the_cli_fails_on_a_faulty_host_and_the_fleet_still_reports(
    fault: str, line: Line, fleet: Fleet
) -> None:
    expected = [("big.py", line) for line in range(2, 2001, 2)]  # as write_tree wrote it
    FLEET_FAULTS[fault](line)
    completed = bounded(
        HANG,
        lambda: cli(
            "check",
            "--format",
            "json",
            "--timeout",
            "2",
            "--host",
            f"faulty:{line.tree}",
            "--host",
            f"healthy:{line.tree}",
            *fleet.options(),
            cwd=fleet.folder,
        ),
    )
    assert completed.returncode == 2, completed.stdout + completed.stderr
    document = json.loads(completed.stdout)
    assert hits_by_host(document) == {"faulty": [], "healthy": expected}
    for result in document["results"]:
        if result["host"] == "faulty":
            assert not result["ok"]
            assert result["problems"], result
            assert all(problem.startswith("faulty") for problem in result["problems"])
        else:
            assert result["problems"] == []
    assert document["summary"]["complete"] is False


@pytest.mark.slow
def test_pytest_fails_the_items_of_a_faulty_host(line: Line, fleet: Fleet) -> None:
    line.proxy.plan = Plan("cut", "down", line.total["down"] // 2)
    options = fleet.options()
    completed = bounded(
        HANG,
        lambda: subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "--cleantree",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:hypothesispytest",
                "-rA",
                "-q",
                "--rootdir",
                str(fleet.folder),
                "--cleantree-host",
                f"faulty:{line.tree}",
                "--cleantree-host",
                f"healthy:{line.tree}",
                "--cleantree-ssh-config",
                options[1],
                "--cleantree-known-hosts",
                options[3],
                "--cleantree-python",
                sys.executable,
                "--cleantree-timeout",
                "5",
            ],
            capture_output=True,
            text=True,
            cwd=fleet.folder,
            timeout=HANG,
            check=False,
        ),
    )
    assert completed.returncode == 1, completed.stdout + completed.stderr
    out = completed.stdout
    # the node id is relative to a rootdir pytest may find above the test's folder
    node = r"^{} (?:\S*/)?cleantree.toml::no-sm120\[\*\*/\*\.py@{}\]"
    # the host that failed is an error (its tree was not read), the dirty healthy one a failure
    assert re.search(node.format("ERROR", "faulty"), out, re.M), out
    assert re.search(node.format("FAILED", "healthy"), out, re.M), out
    assert "connection lost twice in a row" in out
    assert "Traceback" not in out
    assert not re.search(r"^PASSED", out, re.M)


# -- who the host is, and who we are -------------------------------------------------------


@pytest.mark.slow
def test_a_host_key_that_changes_between_two_runs_is_refused(
    tmp_path: Path,
    line: Line,
    fleet: Fleet,
    make_sshd: Callable[..., SSHServer],
    ssh_keygen: Callable[[Path], Path],
) -> None:
    """Same alias, same address and port; another server (another host key) behind it."""
    before = fleet.known_hosts.read_text()
    args = ["check", "--host", f"faulty:{line.tree}", *fleet.options()]
    first = cli(*args, cwd=fleet.folder)
    assert first.returncode == 1, first.stderr
    impostor = make_sshd(ssh_keygen(tmp_path / "impostor_host_key"))
    line.proxy.upstream = (impostor.host, impostor.port)
    for extra in ([], ["--accept-new-host-key"]):
        second = cli(*args, *extra, cwd=fleet.folder)
        assert second.returncode == 2, second.stdout + second.stderr
        assert "HOST KEY CHANGED" in second.stdout
        assert "faulty:big.py" not in second.stdout
    assert fleet.known_hosts.read_text() == before


@pytest.fixture
def empty_agent() -> Iterator[Path]:
    """A real ``ssh-agent`` listening on a socket of its own, holding no key."""
    program = shutil.which("ssh-agent")
    if program is None:
        missing("ssh-agent", "apt-get install -y openssh-client")
    folder = Path(_short_temp_folder())
    sock = folder / "agent.sock"
    started = subprocess.run(
        [program, "-s", "-a", str(sock)], capture_output=True, text=True, timeout=10, check=True
    )
    found = re.search(r"SSH_AGENT_PID=(\d+)", started.stdout)
    assert found, started.stdout
    pid = int(found[1])
    try:
        assert sock.is_socket()  # the agent forks only once it listens
        yield sock
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        _wait_dead(pid, 10)
        shutil.rmtree(folder, ignore_errors=True)


def _short_temp_folder() -> str:
    """A folder whose socket paths fit in sun_path (pytest's are too long for it)."""
    return tempfile.mkdtemp(prefix="ct-agent-")


@pytest.mark.slow
def test_an_agent_with_no_keys_and_no_key_file_is_refused(
    tmp_path: Path, line: Line, fleet: Fleet, empty_agent: Path, client_key: Path
) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)  # no default keys either
    config = tmp_path / "agent_config"
    config.write_text(ssh_host("agent-only", line.proxy.port, None))
    env = {**os.environ, "HOME": str(home), "SSH_AUTH_SOCK": str(empty_agent)}
    listed = subprocess.run(
        ["ssh-add", "-l"], env=env, capture_output=True, text=True, timeout=10, check=False
    )
    assert (listed.returncode, listed.stdout.strip()) == (1, "The agent has no identities.")
    args = [
        "check",
        "--host",
        f"agent-only:{line.tree}",
        "--ssh-config",
        str(config),
        "--known-hosts",
        str(fleet.known_hosts),
        "--python",
        sys.executable,
    ]
    refused = cli(*args, cwd=fleet.folder, env=env)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    # one host: its error stands in its own block (``host agent-only``), not under a rule
    assert re.search(r"^host agent-only\nerror: .*authentication", refused.stdout, re.M), (
        refused.stdout
    )
    # the same agent, given the key, lets the same command in: the agent was the one asked
    subprocess.run(
        ["ssh-add", "-q", str(client_key)], env=env, capture_output=True, timeout=10, check=True
    )
    admitted = cli(*args, cwd=fleet.folder, env=env)
    assert admitted.returncode == 1, admitted.stdout + admitted.stderr
    assert "agent-only:big.py:2:" in admitted.stdout
