"""A TCP proxy on 127.0.0.1 that the tests control: it forwards to a server, then misbehaves.

Each connection the proxy accepts is forwarded to ``upstream`` by two threads, one per
direction ("up": client to server, "down": server to client).  A :class:`Plan` says what
goes wrong, once a direction has carried ``offset`` bytes on a connection:

``cut``      both sockets are shut down (an orderly FIN, as a truncated stream)
``reset``    both sockets are closed with SO_LINGER 0 (an RST)
``stall``    nothing more is forwarded either way; the sockets stay open
``corrupt``  the byte at ``offset`` is inverted, and forwarding goes on
``call``     nothing but ``plan.call``: forwarding goes on

``plan.call``, when given, runs in the forwarding thread at the moment the fault fires,
before the fault itself (to kill the server there, or to stop listening).

The byte *before* ``offset`` always reaches the other side and the one at ``offset`` never
does (except ``corrupt``, which changes it): a fault falls exactly where the plan says.
``fired`` is set once a fault happened, so that a test can tell a fault from no fault.
Every wait is bounded or ends when the proxy is closed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import socket
import struct
import threading
from collections.abc import Callable

FAULTS = ("cut", "reset", "stall", "corrupt", "call")
DIRECTIONS = ("up", "down")
_CHUNK = 1 << 16


@dataclasses.dataclass
class Plan:
    """What goes wrong, where: see the module's documentation."""

    fault: str = "none"
    direction: str = "down"
    offset: int = 0
    #: how many connections (the first ones) misbehave; None for all
    connections: int | None = None
    call: Callable[[], None] | None = None

    def __post_init__(self) -> None:
        assert self.fault in (*FAULTS, "none"), self.fault
        assert self.direction in DIRECTIONS, self.direction
        assert self.offset >= 0


@dataclasses.dataclass
class Connection:
    """One accepted connection: bytes forwarded each way, and whether a fault fired on it."""

    number: int
    up: int = 0
    down: int = 0
    faulted: bool = False
    #: set when a ``stall`` fired: the other direction stops forwarding too
    stalled: threading.Event = dataclasses.field(default_factory=threading.Event)


class FaultProxy:
    """Listens on 127.0.0.1 (``port``) and forwards to ``upstream`` following :attr:`plan`."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        #: where new connections go (may be changed between connections)
        self.upstream = upstream
        self._plan = Plan()
        self._plan_start = 0
        #: set when a fault fired on some connection
        self.fired = threading.Event()
        self.connections: list[Connection] = []
        #: exceptions raised by ``plan.call`` (in a forwarding thread)
        self.errors: list[Exception] = []
        self._closing = threading.Event()
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(16)
        self.port: int = self._listener.getsockname()[1]
        self._start(self._accept_loop, "accept")

    def __repr__(self) -> str:
        return f"FaultProxy(127.0.0.1:{self.port} -> {self.upstream[0]}:{self.upstream[1]})"

    # -- control -------------------------------------------------------------------------

    @property
    def plan(self) -> Plan:
        """What goes wrong on the connections accepted from now on (``plan.connections``
        counts from the moment the plan is set)."""
        return self._plan

    @plan.setter
    def plan(self, plan: Plan) -> None:
        with self._lock:
            self._plan = plan
            self._plan_start = len(self.connections)

    def refuse(self) -> None:
        """Stop listening: from now on, connecting to :attr:`port` is refused."""
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()

    def close(self) -> None:
        """Stop everything: the listener, every connection, every stalled thread."""
        self._closing.set()
        self.refuse()
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)

    def join(self, timeout: float) -> bool:
        """Wait until every thread has stopped; False if some did not within ``timeout``.

        Raises what ``plan.call`` raised, if anything.
        """
        for thread in self._all_threads():
            thread.join(timeout)
        if self.errors:
            raise self.errors[0]
        return not any(thread.is_alive() for thread in self._all_threads())

    def idle(self, timeout: float) -> bool:
        """Wait until every connection accepted so far has ended (both ways); bounded."""
        for thread in self._all_threads():
            if thread.name != "accept":
                thread.join(timeout)
        return not any(t.is_alive() for t in self._all_threads() if t.name != "accept")

    # -- forwarding ----------------------------------------------------------------------

    def _all_threads(self) -> list[threading.Thread]:
        with self._lock:
            return list(self._threads)

    def _start(self, target: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        with self._lock:
            self._threads.append(thread)
        thread.start()

    def _track(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
        if self._closing.is_set():
            _shut(sock)

    def _accept_loop(self) -> None:
        while not self._closing.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # the listener was closed
            self._track(client)
            self._start(lambda client=client: self._serve(client), "serve")  # type: ignore[misc]

    def _serve(self, client: socket.socket) -> None:
        with self._lock:
            connection = Connection(len(self.connections) + 1)
            self.connections.append(connection)
            plan = self._plan
            later = connection.number - self._plan_start
            if plan.connections is not None and later > plan.connections:
                plan = Plan()
        try:
            server = socket.create_connection(self.upstream, timeout=5)
        except OSError:
            _reset(client)  # nobody upstream: the client sees its connection reset
            return
        server.settimeout(None)
        self._track(server)
        done = threading.Event()
        self._start(lambda: self._pump(client, server, "up", plan, connection, done), "up")
        self._pump(server, client, "down", plan, connection, done)

    def _pump(
        self,
        source: socket.socket,
        sink: socket.socket,
        direction: str,
        plan: Plan,
        connection: Connection,
        done: threading.Event,
    ) -> None:
        """Forward ``source`` to ``sink`` until either side ends, applying ``plan``."""
        armed = plan.fault != "none" and plan.direction == direction
        count = 0
        try:
            while not done.is_set():
                try:
                    chunk = source.recv(_CHUNK)
                except OSError:
                    break
                if not chunk:
                    break
                if connection.stalled.is_set():  # the other direction stalled: so does this one
                    self._closing.wait()
                    break
                if armed and count + len(chunk) > plan.offset:
                    armed = False
                    keep = plan.offset - count
                    self._fire(connection)
                    if plan.fault == "corrupt":
                        chunk = chunk[:keep] + bytes([chunk[keep] ^ 0xFF]) + chunk[keep + 1 :]
                    else:
                        if keep and not _send(sink, chunk[:keep]):
                            break
                        count += keep
                        self._count(connection, direction, count)
                        chunk = chunk[keep:]
                        if plan.call is not None:
                            try:
                                plan.call()
                            except Exception as exc:  # reported by join(), not lost in a thread
                                self.errors.append(exc)
                        if plan.fault == "stall":
                            connection.stalled.set()
                            self._closing.wait()  # until the proxy is closed
                            break
                        elif plan.fault in ("cut", "reset"):
                            if plan.fault == "reset":
                                _reset(source)
                                _reset(sink)
                            break
                if not _send(sink, chunk):
                    break
                count += len(chunk)
                self._count(connection, direction, count)
        finally:
            done.set()
            _shut(source)
            _shut(sink)

    def _count(self, connection: Connection, direction: str, count: int) -> None:
        with self._lock:
            setattr(connection, direction, count)

    def _fire(self, connection: Connection) -> None:
        connection.faulted = True
        self.fired.set()


def _send(sock: socket.socket, data: bytes) -> bool:
    try:
        sock.sendall(data)
    except OSError:
        return False
    return True


def _shut(sock: socket.socket) -> None:
    """Shut a socket down both ways (which wakes a thread blocked on it), then close it."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()


def _reset(sock: socket.socket) -> None:
    """Close with an RST instead of a FIN (shutting reads wakes a thread blocked on it)."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RD)
    with contextlib.suppress(OSError):
        sock.close()
