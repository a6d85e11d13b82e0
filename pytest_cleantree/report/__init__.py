"""Rendering results: plain text rows and the machine formats (JSON, SARIF, GitHub).

Pure: results in, ``str`` out.  May import ``core`` only.
"""

#: the report formats, known without loading their renderers (a text run never does)
FORMATS = ("text", "json", "github", "sarif")
