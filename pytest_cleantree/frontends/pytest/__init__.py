"""The pytest plugin (``pytest --cleantree``) and the ``cleantree`` fixture."""
