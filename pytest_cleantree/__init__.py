"""pytest-cleantree: make "the experiment is fully reverted" an executable invariant."""

from __future__ import annotations

__version__ = "0.3.0"
__all__ = ["__version__"]
