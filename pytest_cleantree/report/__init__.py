"""Rendering results: a registry of formats by name (:mod:`.registry`): text, json, github,
sarif; and the text of ``cleantree explain`` (:mod:`.explain`).

Pure: results in, ``str`` out.  May import ``core`` and ``names`` (for what explain shows).
"""
