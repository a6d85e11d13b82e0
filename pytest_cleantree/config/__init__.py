"""Configuration: the manifest, its discovery, exclusions, hosts, inventories, module layout.

``parse_*`` functions are pure on text and collect every problem before failing.
May import :mod:`pytest_cleantree.core` only.
"""
