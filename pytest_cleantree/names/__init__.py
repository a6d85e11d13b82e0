"""Names across the tree: the export map and the spellings of a qualified pattern.

Asks the sources for modules and the analysis for bindings; may import ``sources``,
``analysis``, ``config`` and ``core``.
"""
