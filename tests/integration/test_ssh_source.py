"""The SSH source against real OpenSSH servers: round trips, host keys, faults, hostile names.

Nothing here mocks paramiko: channels are counted on the real transport.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paramiko
import pytest

from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.sources import RemoteOptions
from pytest_cleantree.sources.base import FileRead
from pytest_cleantree.sources.local import LocalSource
from pytest_cleantree.sources.ssh import SSHSource, open_ssh_source

pytestmark = pytest.mark.ssh

SourceFactory = Callable[..., SSHSource]


def _one_line(error: BaseException) -> str:
    text = str(error)
    assert "\n" not in text, text
    return text


@pytest.fixture
def opened() -> Iterator[dict[str, int]]:
    """Counts of channels (by kind) and of SSH connections, taken on the real transport."""
    counts: dict[str, int] = {}
    open_channel = paramiko.Transport.open_channel
    start_client = paramiko.Transport.start_client

    def counting_open_channel(
        self: paramiko.Transport, kind: str, *args: Any, **kwargs: Any
    ) -> Any:
        counts[kind] = counts.get(kind, 0) + 1
        return open_channel(self, kind, *args, **kwargs)

    def counting_start_client(self: paramiko.Transport, *args: Any, **kwargs: Any) -> Any:
        counts["connections"] = counts.get("connections", 0) + 1
        return start_client(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(paramiko.Transport, "open_channel", counting_open_channel)
        patch.setattr(paramiko.Transport, "start_client", counting_start_client)
        yield counts


def _files(root: Path, count: int) -> list[str]:
    names = [f"pkg{i % 3}/mod_{i}.py" for i in range(count)]
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"value = {len(name)}\n")
    return names


# -- round trips and connection reuse ------------------------------------------------


@pytest.mark.parametrize("count", [2, 60])
def test_expand_then_read_is_two_requests_to_one_command_whatever_the_file_count(
    count: int, tmp_path: Path, make_ssh_source: SourceFactory, opened: dict[str, int]
) -> None:
    names = _files(tmp_path, count)
    source = make_ssh_source(tmp_path)
    listed = source.expand(["**/*.py", "pkg0/*.py", "pkg1/mod_1.py", "absent.py"])
    found = source.read(listed["**/*.py"])
    assert sorted(found) == sorted(names)
    assert opened == {"connections": 1, "session": 1}
    assert source.commands == (1, 2)


def test_a_source_started_ahead_is_connected_before_its_first_request_and_asks_as_many(
    tmp_path: Path, make_ssh_source: SourceFactory, opened: dict[str, int]
) -> None:
    """:meth:`SSHSource.start` connects and starts the agent in the background; the
    requests then cost what they cost without it: one connection, one command."""
    names = _files(tmp_path, 4)
    source = make_ssh_source(tmp_path)
    source.start()
    source._started()  # the background's work, waited for
    assert opened == {"connections": 1, "session": 1}
    assert source.commands == (1, 0)  # the agent runs, asked nothing yet
    listed = source.expand(["**/*.py"])
    assert source.read(listed["**/*.py"]) == LocalSource(tmp_path).read(sorted(names))
    assert opened == {"connections": 1, "session": 1}
    assert source.commands == (1, 2)


def test_a_source_started_ahead_imports_what_the_run_needs_next_in_the_background(
    tmp_path: Path,
    make_ssh_source: SourceFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The modules named are imported in the starting thread once the agent runs (while the
    client waits for its first answer); closing the source waits for them."""
    folder = tmp_path / "modules"
    folder.mkdir()
    (folder / "cleantree_warmed.py").write_text(
        "import threading\nIMPORTED_IN = threading.current_thread().name\n"
    )
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, "cleantree_warmed", raising=False)
    source = make_ssh_source(tmp_path)
    source.start(then_import=["cleantree_warmed", "cleantree_no_such_module"])
    source.close()
    warmed = sys.modules["cleantree_warmed"]
    assert threading.main_thread().name != warmed.IMPORTED_IN
    assert "cleantree_no_such_module" not in sys.modules


@pytest.mark.slow
def test_the_connection_opens_on_first_use_and_is_reused(
    tmp_path: Path, make_ssh_source: SourceFactory, opened: dict[str, int]
) -> None:
    _files(tmp_path, 3)
    source = make_ssh_source(tmp_path)
    assert opened == {}
    source.read(["pkg0/mod_0.py"])
    source.expand(["**/*.py"])
    source.read(["pkg1/mod_1.py"])
    assert opened == {"connections": 1, "session": 1}  # one agent answers all three
    assert source.commands == (1, 3)
    source.close()
    assert source.read(["pkg0/mod_0.py"]) == {
        "pkg0/mod_0.py": FileRead(b"value = 13\n")
    }  # reopened
    assert opened == {"connections": 2, "session": 2}
    assert source.commands == (2, 4)


def test_open_ssh_source_takes_the_root_from_the_spec(
    tmp_path: Path, ssh_setup: Any, opened: dict[str, int]
) -> None:
    (tmp_path / "a.py").write_text("a = 1\n")
    options = RemoteOptions(
        known_hosts=ssh_setup.known_hosts, ssh_config=ssh_setup.ssh_config, python=sys.executable
    )
    with open_ssh_source(f"{ssh_setup.alias}:{tmp_path}", options=options) as source:
        assert opened == {}
        assert source.host == ssh_setup.alias
        assert source.resolve_root() == str(tmp_path)
        assert source.read(["a.py"]) == {"a.py": FileRead(b"a = 1\n")}


def test_open_ssh_source_needs_a_root() -> None:
    with pytest.raises(SourceError, match="no root"):
        open_ssh_source("gpu-a")
    with pytest.raises(SourceError, match="bad host name"):
        open_ssh_source("gpu a:/x")


def test_the_default_interpreter_is_the_hosts_python3(
    tmp_path: Path, make_ssh_source: SourceFactory
) -> None:
    (tmp_path / "a.py").write_text("a = 1\n")
    source = make_ssh_source(tmp_path, python="python3")
    assert source.read(["a.py"]) == {"a.py": FileRead(b"a = 1\n")}


# -- host keys ------------------------------------------------------------------------


def _fingerprint(public_key: Path) -> str:
    out = subprocess.run(
        ["ssh-keygen", "-l", "-E", "sha256", "-f", str(public_key)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return out.split()[1]


@pytest.mark.parametrize("started", [False, True], ids=["on-first-use", "started-ahead"])
def test_an_unknown_host_key_is_refused(
    started: bool,
    tmp_path: Path,
    make_ssh_source: SourceFactory,
    make_client_setup: Callable[..., Any],
    host_key: Path,
) -> None:
    """Refused alike when the source connects on its first request and when it was started
    ahead (the error met in the background is the first request's, said once)."""
    setup = make_client_setup(known_hosts_text="")
    source = make_ssh_source(tmp_path, setup)
    if started:
        source.start()
    with pytest.raises(SourceError) as caught:
        source.expand(["*.py"])
    message = _one_line(caught.value)
    assert "unknown host key" in message
    assert _fingerprint(host_key.with_suffix(".pub")) in message
    assert str(setup.known_hosts) in message
    assert "(--accept-new-host-key)" in message  # the flag, as the CLI spells it
    assert setup.known_hosts.read_text() == ""


def test_a_changed_host_key_is_refused_even_when_accepting_new_ones(
    tmp_path: Path,
    make_ssh_source: SourceFactory,
    make_client_setup: Callable[..., Any],
    ssh_keygen: Callable[[Path], Path],
    sshd: Any,
    host_key: Path,
) -> None:
    other = ssh_keygen(tmp_path / "other_host_key").with_suffix(".pub")
    line = f"[{sshd.host}]:{sshd.port} {' '.join(other.read_text().split()[:2])}\n"
    setup = make_client_setup(known_hosts_text=line)
    source = make_ssh_source(tmp_path, setup, accept_new_host_key=True)
    with pytest.raises(SourceError) as caught:
        source.read(["a.py"])
    message = _one_line(caught.value)
    assert "HOST KEY CHANGED" in message
    assert _fingerprint(host_key.with_suffix(".pub")) in message
    assert _fingerprint(other) in message
    assert setup.known_hosts.read_text() == line
    # the fix it names works as printed: the host is on another port and the known hosts
    # are not ~/.ssh/known_hosts, so it needs '[host]:port' and -f FILE
    fix = re.search(r"remove its old key \((ssh-keygen -R .+?)\) and add", message)
    assert fix is not None, message
    assert f"-f {setup.known_hosts}" in fix[1]
    done = subprocess.run(
        shlex.split(fix[1]), capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert setup.known_hosts.read_text() == ""  # the old key is gone, and only it


def test_accepting_new_host_keys_records_the_key(
    tmp_path: Path,
    make_ssh_source: SourceFactory,
    make_client_setup: Callable[..., Any],
    sshd: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    (tmp_path / "a.py").write_text("a = 1\n")
    setup = make_client_setup()
    known = tmp_path / "fresh" / "known_hosts"
    with caplog.at_level(logging.WARNING, logger="pytest_cleantree.sources.ssh"):
        first = make_ssh_source(tmp_path, setup, known_hosts=known, accept_new_host_key=True)
        assert first.read(["a.py"]) == {"a.py": FileRead(b"a = 1\n")}
    assert known.read_text() == sshd.known_hosts_line
    assert "accepted the new host key" in caplog.text
    second = make_ssh_source(tmp_path, setup, known_hosts=known)  # refusing unknown keys
    assert second.read(["a.py"]) == {"a.py": FileRead(b"a = 1\n")}
    assert known.read_text() == sshd.known_hosts_line


# -- faults ---------------------------------------------------------------------------


def test_a_key_the_server_does_not_know_is_refused(
    tmp_path: Path,
    make_ssh_source: SourceFactory,
    make_client_setup: Callable[..., Any],
    ssh_keygen: Callable[[Path], Path],
) -> None:
    stranger = ssh_keygen(tmp_path / "stranger")
    source = make_ssh_source(tmp_path, make_client_setup(key=stranger))
    with pytest.raises(SourceError) as caught:
        source.read(["a.py"])
    message = _one_line(caught.value)
    assert "authentication refused" in message
    assert str(stranger) in message


def test_a_closed_port_is_unreachable(
    tmp_path: Path,
    make_ssh_source: SourceFactory,
    make_client_setup: Callable[..., Any],
    sshd: Any,
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    source = make_ssh_source(tmp_path, make_client_setup(port=port))
    with pytest.raises(SourceError) as caught:
        source.expand(["**/*.py"])
    assert f"127.0.0.1:{port}" in _one_line(caught.value)
    assert "connection refused" in str(caught.value)


def test_a_silent_port_times_out(
    tmp_path: Path, make_ssh_source: SourceFactory, make_client_setup: Callable[..., Any]
) -> None:
    with socket.socket() as silent:  # accepts connections (backlog), never says a word
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        setup = make_client_setup(port=silent.getsockname()[1])
        source = make_ssh_source(tmp_path, setup, connect_timeout=0.5)
        started = time.monotonic()
        with pytest.raises(SourceError) as caught:
            source.expand(["**/*.py"])
        assert time.monotonic() - started < 5
    assert "within 0.5 s" in _one_line(caught.value)


def _interpreter(path: Path, body: str) -> str:
    """A stand-in for the host's python: a shell script around this one."""
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def test_a_command_that_hangs_times_out(tmp_path: Path, make_ssh_source: SourceFactory) -> None:
    slow = _interpreter(tmp_path / "slow", f'sleep 5; exec {sys.executable} "$@"')
    source = make_ssh_source(tmp_path, python=slow, command_timeout=0.5)
    started = time.monotonic()
    with pytest.raises(SourceError) as caught:
        source.read(["a.py"])
    assert time.monotonic() - started < 4
    assert "did not finish within 0.5 s" in _one_line(caught.value)


def test_a_stream_cut_short_is_an_error_never_a_partial_answer(
    tmp_path: Path, make_ssh_source: SourceFactory
) -> None:
    (tmp_path / "big.py").write_bytes(b"x = 1\n" * 2000)
    (tmp_path / "small.py").write_bytes(b"y = 2\n")
    # the agent's output cut after 3,000 bytes, and the agent ended with it (one alive would
    # wait for the next request: the answer then times out, an error too)
    fifo = tmp_path / "cut.fifo"
    cut = _interpreter(
        tmp_path / "cut",
        f'rm -f {fifo}; mkfifo {fifo}; exec 3<&0\n{sys.executable} "$@" <&3 >{fifo} & agent=$!\n'
        f"head -c 3000 < {fifo}; kill -9 $agent",
    )
    source = make_ssh_source(tmp_path, python=cut)
    with pytest.raises(SourceError) as caught:
        source.read(["small.py", "big.py"])
    assert "cut short" in _one_line(caught.value)


def descendants(pid: int) -> list[int]:
    """The processes started, directly or not, by ``pid`` (Linux ``/proc``)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = (entry / "stat").read_text()
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _wait_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in pids):
        time.sleep(0.02)


@pytest.mark.slow
def test_a_killed_server_is_an_error_never_an_empty_answer(
    tmp_path: Path, make_ssh_source: SourceFactory, disposable_setup: Any
) -> None:
    (tmp_path / "a.py").write_text("a = 1\n")
    source = make_ssh_source(tmp_path, disposable_setup)
    assert source.read(["a.py"]) == {"a.py": FileRead(b"a = 1\n")}
    process = disposable_setup.server.process
    doomed = [process.pid, *descendants(process.pid)]
    _kill(doomed)
    process.wait()
    _wait_gone(doomed)
    with pytest.raises(SourceError) as caught:
        source.read(["a.py"])
    message = _one_line(caught.value)
    assert "connection refused" in message
    with pytest.raises(SourceError):
        source.expand(["*.py"])


def test_a_dead_connection_is_reopened_once(
    tmp_path: Path, make_ssh_source: SourceFactory, sshd: Any, opened: dict[str, int]
) -> None:
    (tmp_path / "a.py").write_text("a = 1\n")
    source = make_ssh_source(tmp_path)
    assert source.read(["a.py"]) == {"a.py": FileRead(b"a = 1\n")}
    sessions = descendants(sshd.process.pid)  # this test's connection is the only one open
    assert sessions
    _kill(sessions)
    _wait_gone(sessions)
    assert source.read(["a.py"]) == {"a.py": FileRead(b"a = 1\n")}
    assert opened["connections"] == 2


def test_an_agent_that_died_between_requests_is_started_again_once(
    tmp_path: Path, make_ssh_source: SourceFactory
) -> None:
    """The agent answers a whole run; killed between two requests, the next request finds
    its channel ended without a word: a lost session, reopened once, never an empty answer."""
    (tmp_path / "a.py").write_text("a = 1\n")
    pids = tmp_path / "pids"
    python = _interpreter(tmp_path / "logged", f'echo $$ >> {pids}\nexec {sys.executable} "$@"')
    source = make_ssh_source(tmp_path, python=python)
    assert source.read(["a.py"]) == {"a.py": FileRead(b"a = 1\n")}
    assert list(source.expand(["*.py"])["*.py"]) == ["a.py"]
    assert source.commands == (1, 2)
    (agent,) = map(int, pids.read_text().split())
    _kill([agent])
    _wait_gone([agent])
    assert source.read(["a.py"]) == {"a.py": FileRead(b"a = 1\n")}
    assert source.commands == (2, 4)  # the request to the dead agent, then to a new one
    assert len(pids.read_text().split()) == 2


def test_what_a_run_kept_is_forgotten_when_the_next_run_plans(
    tmp_path: Path, make_ssh_source: SourceFactory
) -> None:
    """A listing that reads ahead keeps its files and globs for its run; the next run's plan
    starts a new snapshot even when it reads nothing ahead (a long-lived source, a tree
    changed between runs: never the old content)."""
    (tmp_path / "a.py").write_text("sm120 = 1\n")
    source = make_ssh_source(tmp_path)
    assert list(source.expand(["*.py"], read_ahead={"*.py": ["sm120"]})["*.py"]) == ["a.py"]
    assert source.read(["a.py"]) == {"a.py": FileRead(b"sm120 = 1\n", ahead=True)}
    assert source.read(["a.py"]) == {"a.py": FileRead(b"sm120 = 1\n", ahead=True)}
    assert list(source.expand(["*.py"])["*.py"]) == ["a.py"]
    assert source.commands == (1, 1)  # the run's reads and listing again: no request
    (tmp_path / "a.py").write_text("x = 2\n")
    (tmp_path / "b.py").write_text("y = 3\n")
    assert list(source.expand(["*.py"], read_ahead={})["*.py"]) == ["a.py", "b.py"]
    assert source.read(["a.py"]) == {"a.py": FileRead(b"x = 2\n")}  # read now, not ahead
    assert source.commands == (1, 3)


@pytest.mark.parametrize(
    "needles", [["sm120"], ["sm", "120"], [], ["*"], ["\\x73m120"], [f"w{i}" for i in range(8)]]
)
def test_content_read_ahead_whole_answers_a_read_as_the_agent_does(
    needles: list[str], tmp_path: Path, make_ssh_source: SourceFactory
) -> None:
    """A file sent whole with the listing, asked for with needles, is answered as the
    agent answers a read with them (no needle: :data:`NO_NEEDLE`, whatever it was sent
    for), without a request: the analysis never holds a file the server would have spared."""
    texts = {
        "a.py": "x = 'sm120'\n",
        "b.py": "x = 1\n",
        "c.py": "s = '\\x73m120'\n",
        "d.py": "from m import *\n",
    }
    for name, body in texts.items():
        (tmp_path / name).write_text(body)
    sent = make_ssh_source(tmp_path)
    sent.expand(["*.py"], read_ahead={"*.py": [""]})  # WHOLE: every file's content
    ahead = sent.read(sorted(texts), needles)
    asked = make_ssh_source(tmp_path).read(sorted(texts), needles)
    assert {path: _as_asked(answer) for path, answer in ahead.items()} == asked
    assert all(a.ahead for a in ahead.values() if isinstance(a, FileRead))
    assert sent.commands == (1, 1)  # the listing only


def _as_asked(answer: object) -> object:
    """A read-ahead answer as a read asked for would give it (``ahead`` aside)."""
    return dataclasses.replace(answer, ahead=False) if isinstance(answer, FileRead) else answer


def test_content_read_ahead_whole_is_given_as_held_for_a_long_needle_list(
    tmp_path: Path, make_ssh_source: SourceFactory
) -> None:
    """Past a few needles the test costs more than it spares (each needle's break search
    compiled, then run over every file): the content as held, a sound answer too."""
    (tmp_path / "b.py").write_text("x = 1\n")
    sent = make_ssh_source(tmp_path)
    sent.expand(["*.py"], read_ahead={"*.py": [""]})
    assert sent.read(["b.py"], [f"w{i}" for i in range(9)]) == {
        "b.py": FileRead(b"x = 1\n", ahead=True)
    }
    assert sent.commands == (1, 1)


def _dropping_interpreter(folder: Path, times: int) -> str:
    """A python whose first ``times`` runs kill their SSH session after 200 bytes of output."""
    count = folder / "drops"
    return _interpreter(
        folder / "dropping",
        f"n=$(cat {count} 2>/dev/null || echo 0)\n"
        f"if [ $n -lt {times} ]; then\n"
        f"  echo $((n + 1)) > {count}\n"
        f'  {sys.executable} "$@" | {{ head -c 200; kill -9 $PPID; sleep 5; }}\n'
        f"fi\n"
        f'exec {sys.executable} "$@"',
    )


def test_a_connection_dropped_mid_transfer_is_retried_once(
    tmp_path: Path, make_ssh_source: SourceFactory, opened: dict[str, int]
) -> None:
    (tmp_path / "big.py").write_bytes(b"x = 1\n" * 1000)
    source = make_ssh_source(tmp_path, python=_dropping_interpreter(tmp_path, 1))
    assert source.read(["big.py"]) == {"big.py": FileRead(b"x = 1\n" * 1000)}
    assert opened == {"connections": 2, "session": 2}


@pytest.mark.slow
def test_a_connection_dropped_twice_is_an_error(
    tmp_path: Path, make_ssh_source: SourceFactory, opened: dict[str, int]
) -> None:
    (tmp_path / "big.py").write_bytes(b"x = 1\n" * 1000)
    source = make_ssh_source(tmp_path, python=_dropping_interpreter(tmp_path, 2))
    with pytest.raises(SourceError) as caught:
        source.read(["big.py"])
    # The script kills sshd right after ``head`` wrote its 200 bytes: whether sshd forwarded
    # them first is up to the scheduler, for either drop.  Both are seen as drops, either way.
    drop = r"dropped (?:mid-transfer: .+|before the remote helper answered)"
    message = _one_line(caught.value)
    assert re.search(rf"connection lost twice in a row \({drop}; then {drop}\)$", message), message
    assert opened == {"connections": 2, "session": 2}


def test_a_missing_root_says_so(
    tmp_path: Path, make_ssh_source: SourceFactory, ssh_setup: Any
) -> None:
    source = make_ssh_source(tmp_path / "absent")
    with pytest.raises(SourceError) as caught:
        source.read(["a.py"])
    assert (
        _one_line(caught.value)
        == f"{ssh_setup.alias}: root {str(tmp_path / 'absent')!r} does not exist"
    )


def test_a_root_that_is_a_file_says_so(tmp_path: Path, make_ssh_source: SourceFactory) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(SourceError, match="is not a folder"):
        make_ssh_source(tmp_path / "file").expand(["*.py"])


def test_a_tilde_root_is_the_login_folder(make_ssh_source: SourceFactory) -> None:
    source = make_ssh_source("~")
    assert source.root == "~"
    assert source.resolve_root() == os.path.expanduser("~")
    assert source.root == os.path.expanduser("~")


def test_read_errors_that_only_a_shell_can_see(
    tmp_path: Path, make_ssh_source: SourceFactory
) -> None:
    (tmp_path / "file.py").write_text("")
    (tmp_path / b"caf\xe9.py".decode("utf-8", "surrogateescape")).write_bytes(b"latin1 = 1\n")
    source, local = make_ssh_source(tmp_path), LocalSource(tmp_path)
    paths = ["file.py/inside.py", "caf\udce9.py"]
    assert {k: str(v) for k, v in source.read(paths).items()} == {
        k: str(v) for k, v in local.read(paths).items()
    }
    assert (
        source.expand(["*.py"]) == local.expand(["*.py"]) == {"*.py": ("caf\udce9.py", "file.py")}
    )


# -- nothing is ever run but the helper ------------------------------------------------

HOSTILE = [
    "$(touch {canary}).py",
    "`touch {canary}`.py",
    "; touch {canary} ;.py",
    "' ; touch {canary} ; '.py",
    '" ; touch {canary} ; ".py',
    "new\nline; touch {canary}.py",
    "-rf .py",
    "back\\slash.py",
]


def test_hostile_names_are_inert(tmp_path: Path, make_ssh_source: SourceFactory) -> None:
    canary = "pwned-by-cleantree-tests"
    root = tmp_path / f"root 'with\" $(touch {canary})\n`touch {canary}`; touch {canary} &"
    root.mkdir()
    names = [name.format(canary=canary) for name in HOSTILE]
    for name in names:
        (root / name).write_text(repr(name))
    local = LocalSource(root)
    home_canary = Path.home() / canary
    assert not home_canary.exists()
    source = make_ssh_source(root)
    listed = source.expand(["*.py", *names])
    assert listed == local.expand(["*.py", *names])
    assert sorted(listed["*.py"]) == sorted(names)
    assert source.read(names) == local.read(names)
    assert source.root == str(root)
    assert not home_canary.exists()
    assert not (root / canary).exists()
    assert sorted(p.name for p in root.iterdir()) == sorted(names)


def test_a_hostile_interpreter_is_one_quoted_word(
    tmp_path: Path, make_ssh_source: SourceFactory, caplog: pytest.LogCaptureFixture
) -> None:
    canary = tmp_path / "pwned"
    (tmp_path / "a.py").write_text("a = 1\n")
    source = make_ssh_source(tmp_path, python=f"python3; touch {canary}")
    with caplog.at_level(logging.INFO, logger="pytest_cleantree.sources.ssh"):
        assert source.read(["a.py"]) == {"a.py": FileRead(b"a = 1\n")}  # through SFTP
    assert "not found" in caplog.text
    assert not canary.exists()


# -- module roots ---------------------------------------------------------------------


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A folder holding a package whose import would leave a mark."""
    folder = tmp_path / "site"
    package = folder / "cleantree_probe_pkg"
    (package / "sub").mkdir(parents=True)
    mark = tmp_path / "imported"
    (package / "__init__.py").write_text(f"open({str(mark)!r}, 'w').close()\n")
    (package / "sub" / "__init__.py").write_text(f"open({str(mark)!r}, 'w').close()\n")
    (package / "sub" / "mod.py").write_text("x = 1\n")
    (folder / "single_module.py").write_text("y = 2\n")
    return folder


@pytest.mark.slow
def test_a_module_root_is_found_by_the_hosts_python_without_importing_it(
    tmp_path: Path, site: Path, make_ssh_source: SourceFactory
) -> None:
    # The module: root is resolved by the `python` option; here a wrapper that sets
    # PYTHONPATH, as a venv's interpreter would find its own site-packages.
    python = _interpreter(tmp_path / "python", f'PYTHONPATH={site} exec {sys.executable} "$@"')
    package = site / "cleantree_probe_pkg"
    cases = {
        "module:cleantree_probe_pkg": package,
        "module:cleantree_probe_pkg.sub": package / "sub",
        "module:single_module": site,
    }
    for root, folder in cases.items():
        source = make_ssh_source(root, python=python)
        assert source.expand(["**/*.py"]) == LocalSource(folder).expand(["**/*.py"])
        assert source.root == str(folder)
    assert not (tmp_path / "imported").exists()
    assert not list(site.rglob("__pycache__"))


@pytest.mark.parametrize(
    ("root", "message"),
    [
        ("module:no_such_module_anywhere", "no module named 'no_such_module_anywhere'"),
        ("module:cleantree_probe_pkg.absent", "no module named 'cleantree_probe_pkg.absent'"),
        ("module:sys", "has no folder on disk"),
    ],
)
def test_a_module_root_that_cannot_be_found_says_why(
    root: str, message: str, tmp_path: Path, site: Path, make_ssh_source: SourceFactory
) -> None:
    python = _interpreter(tmp_path / "python", f'PYTHONPATH={site} exec {sys.executable} "$@"')
    with pytest.raises(SourceError, match=message) as caught:
        make_ssh_source(root, python=python).expand(["**/*.py"])
    _one_line(caught.value)


# -- SFTP fallback and jumps ----------------------------------------------------------


@pytest.mark.parametrize("started", [False, True], ids=["on-first-use", "started-ahead"])
def test_a_host_without_commands_is_read_over_sftp(
    started: bool,
    tmp_path: Path,
    make_ssh_source: SourceFactory,
    sftp_only_setup: Any,
    opened: dict[str, int],
) -> None:
    names = _files(tmp_path, 5)
    source = make_ssh_source(tmp_path, sftp_only_setup)
    if started:  # the refusal met starting the agent ahead answers the first request
        source.start()
    assert source.expand(["**/*.py"]) == {"**/*.py": tuple(sorted(names))}
    assert source.read(names) == LocalSource(tmp_path).read(names)
    assert opened == {"connections": 1, "session": 2}  # one refused command, then one SFTP


def test_a_module_root_needs_commands(make_ssh_source: SourceFactory, sftp_only_setup: Any) -> None:
    with pytest.raises(SourceError, match=r"needs .* on the host") as caught:
        make_ssh_source("module:json", sftp_only_setup).expand(["*.py"])
    _one_line(caught.value)


@pytest.mark.parametrize("started", [False, True], ids=["on-first-use", "started-ahead"])
def test_a_missing_interpreter_falls_back_to_sftp(
    started: bool, tmp_path: Path, make_ssh_source: SourceFactory
) -> None:
    names = _files(tmp_path, 3)
    source = make_ssh_source(tmp_path, python=str(tmp_path / "no-python"))
    if started:  # an agent started ahead that ends without a word never answered: not lost
        source.start()
    assert source.read(names) == LocalSource(tmp_path).read(names)


def test_a_proxy_jump_is_followed(
    tmp_path: Path,
    make_ssh_source: SourceFactory,
    make_client_setup: Callable[..., Any],
    sshd: Any,
    client_key: Path,
    opened: dict[str, int],
) -> None:
    (tmp_path / "a.py").write_text("a = 1\n")
    jump = (
        f"    ProxyJump jumpbox\n"
        f"Host jumpbox\n"
        f"    HostName {sshd.host}\n"
        f"    Port {sshd.port}\n"
        f"    IdentityFile {client_key}\n"
        f"    IdentitiesOnly yes\n"
    )
    source = make_ssh_source(tmp_path, make_client_setup(extra=jump))
    assert source.read(["a.py"]) == {"a.py": FileRead(b"a = 1\n")}
    assert opened == {"connections": 2, "direct-tcpip": 1, "session": 1}


def test_a_port_that_answers_without_ssh_is_said_so_not_a_timeout(
    tmp_path: Path,
    make_ssh_source: SourceFactory,
    make_client_setup: Callable[..., Any],
) -> None:
    """What answers at once but is not an SSH server (an HTTP server on the port) is named for
    what it is; "no handshake within N s" would send the user after a slow network."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def answer() -> None:
        with contextlib.suppress(OSError):
            connection, _ = listener.accept()
            with connection:
                connection.sendall(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")

    threading.Thread(target=answer, daemon=True).start()
    setup = make_client_setup(port=listener.getsockname()[1])
    source = make_ssh_source(tmp_path, setup, connect_timeout=60)
    try:
        with pytest.raises(SourceError) as caught:
            source.read(["a.py"])
    finally:
        listener.close()
    message = _one_line(caught.value)
    assert "within" not in message, message
    assert f"port {setup.server.port} did not send an SSH banner" in message, message
