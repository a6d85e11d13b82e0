"""The core: frozen data (:mod:`.model`), errors, pattern tiers and the check list.

Imports nothing of the package; every other layer may import it.
"""
