"""Rendering results: plain text rows and the machine formats (JSON, SARIF, GitHub).

Pure: results in, ``str`` out.  May import ``core`` only.
"""
