"""paramiko, imported without invoke unless an ssh config's ``Match exec`` needs it.

The one place the package imports paramiko (the SSH source's modules take it from here);
``sources`` imports this package only when a host is named.
"""

from __future__ import annotations

import contextlib
import logging
import re
import sys
from collections.abc import Iterator

__all__ = ["MATCH_EXEC", "match_exec_enabled", "paramiko"]


@contextlib.contextmanager
def _invoke_deferred() -> Iterator[None]:
    """Import paramiko without invoke, a tenth of a second paramiko spends at start-up for one
    thing only: an ssh config's ``Match exec`` (see :func:`match_exec_enabled`)."""
    if "invoke" in sys.modules:
        yield
        return
    sys.modules["invoke"] = None  # type: ignore[assignment]  # `import invoke` raises ImportError
    try:
        yield
    finally:
        if "invoke" in sys.modules and sys.modules["invoke"] is None:
            del sys.modules["invoke"]


with _invoke_deferred():
    import paramiko as paramiko  # re-exported: the other modules take it from here, deferred
    import paramiko.config
# paramiko logs its transport thread's tracebacks at ERROR: without a handler of its own,
# Python's last-resort handler prints them on stderr of a program that configured no
# logging (the CLI), after every fault already reported as a SourceError.  Programs that
# configure logging still get them, through the root logger.
logging.getLogger("paramiko").addHandler(logging.NullHandler())

#: a ``Match`` line with an ``exec`` criterion (case-insensitive, as ssh reads keywords)
MATCH_EXEC = re.compile(r"^[ \t]*match\b[^\n]*\bexec\b", re.IGNORECASE | re.MULTILINE)


def match_exec_enabled() -> None:
    """Give paramiko the invoke :func:`_invoke_deferred` kept from it, for ``Match exec``."""
    if getattr(paramiko.config, "invoke", False) is None:
        with contextlib.suppress(ImportError):  # not installed: paramiko says so at lookup
            import invoke

            setattr(paramiko.config, "invoke", invoke)  # noqa: B010  (untyped)
