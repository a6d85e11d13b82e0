"""The front ends: the ``cleantree`` command and the pytest plugin, over one option table.

The top layer: may import every layer below; nothing imports it but the public shims
(:mod:`pytest_cleantree.plugin`, :mod:`pytest_cleantree.__main__`).
"""
