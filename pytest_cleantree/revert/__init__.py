"""The revert guard: from an experiment's diff (or commit) to a manifest that proves it gone.

May import ``analysis``, ``config`` and ``core``.
"""
