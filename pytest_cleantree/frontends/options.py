"""Values of command-line options, checked as argparse ``type`` callables.

Shared by the CLI and the pytest plugin; kept apart from :mod:`pytest_cleantree.config.hosts`
so that loading the plugin (in every pytest session) compiles no host-spec regexes.
"""

from __future__ import annotations

import argparse
import math


def parse_seconds(text: str) -> float:
    """A timeout as typed on a command line (an argparse ``type``): finite, above zero.

    ``float`` alone takes ``nan``, ``inf`` and ``-1``, each of which turns a later
    socket call into an internal error, or waits forever.
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds (a finite number above 0)"
        )
    return value


def parse_forks(text: str) -> int:
    """How many hosts to check at once (an argparse ``type``): a whole number, 1 or more."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of hosts (1 or more)")
    return value
