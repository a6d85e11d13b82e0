"""The ``cleantree`` command line (``check``, ``explain``, ``from-diff``)."""
