"""How many examples the costly property tests draw, per hypothesis profile.

The cheap properties take the profile's own ``max_examples`` (300 in CI); the ones that
start processes or SSH connections draw a few in CI and many in the long profile.
"""

from __future__ import annotations

import os

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")


def examples(ci: int, long: int) -> int:
    """``ci`` examples in CI (and any other profile), ``long`` in the long profile."""
    return long if PROFILE == "long" else ci
