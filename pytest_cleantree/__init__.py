"""pytest-cleantree: make "the experiment is fully reverted" an executable invariant."""

from __future__ import annotations

__version__ = "0.2.0"
__all__ = ["__version__"]
