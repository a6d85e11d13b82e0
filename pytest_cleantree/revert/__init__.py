"""The revert guard: from an experiment's diff (or commit) to a manifest that proves it gone.

The change is a unified diff, from git (``--rev A..B``) or from a patch.  For each file it
modified, the file's contents before and after the change are compared, and two rules are
written, labelled apart by their ids:

* ``experiment-lines-FILE``: the experiment's own lines, the ground truth.  In a manifest
  they are the lines the change added (``forbid_lines``: each non-blank line the file did
  not hold before, compared stripped, wherever it stands); for ``check --reverted`` in a git
  work tree they are the lines ``git blame`` of the work tree still gives to the change,
  each pinned to its line (``line@N:``), whatever they hold;
* ``introduced-names-FILE``: in a Python file, every code name the change introduced (a
  code name after, not one before: the words of strings never count), as an exact
  ``=name`` pattern looked for in code; builtins, keywords, builtin methods and one- or
  two-letter names are never introduced.  In any other text file, the new words of four
  characters or more (``text_rules=False`` turns those files off);
* a file the change added: an ``absent`` entry;
* a file the change deleted (or renamed away): a ``must_exist`` rule that expects names
  the file had (its top-level definitions): still missing, that is a violation.

Things a manifest cannot check (binary contents, file modes, symlink targets, files
outside the root) become comments at the top of the manifest, never silent omissions.

One job per module, each importing only those below it (an import-linter contract):

* ``git``: the only I/O, read-only git and the tree (``derive_manifest_for_revert``,
  ``images_from_rev``, ``images_from_patch``); ``toml``: the manifest's text
  (``derive_manifest``);
* ``plan``: the rules a change means, file by file;
* ``names``: the names a change introduced; ``apply``: hunks applied either way, so each
  file's contents before and after;
* ``diff``: the unified-diff parser; ``text``: bytes kept byte for byte.

May import ``analysis``, ``config`` and ``core``.
"""
