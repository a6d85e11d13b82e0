"""The revert guard: from an experiment's diff (or commit) to a manifest that proves it gone.

The change is a unified diff, from git (``--rev A..B``) or from a patch.  For each file it
modified, the file's contents before and after the change are compared, and two rules are
written, labelled apart by their ids:

* ``experiment-lines-FILE``: the experiment's own lines, the ground truth: the lines it
  introduced (added, and a text its parent did not have in that file: a moved line is not
  one).  In a manifest they are ``forbid_lines`` (compared stripped, wherever they stand;
  ``forbid_lines_escaped`` for bytes that are not UTF-8); for ``check --reverted`` in a git
  work tree they are the lines of the work tree that git blame gives to the change (or to a
  commit with its ``git patch-id``), whatever their text (none in a file whose bytes are
  those it had before the change), or, not committed, whose text it added, each pinned to
  its line (``line@N:``): blame first, a line another commit wrote is that commit's;
* ``repeated-lines-FILE``: a line it wrote again (the file had its text) may stand no
  more often than before (``line*N:``), in a manifest (with blame, pinned instead, blank
  lines too in a change of blank lines alone);
* ``introduced-names-FILE``: in a Python file, every code name the change introduced (a
  code name after, not one before, as the check's analysis finds them: the words of
  strings never count, the segments of a dotted module path do), as an exact
  ``=name`` pattern looked for in code; builtins, keywords, builtin methods and one- or
  two-letter names are never introduced.  In another code file, the names its language's
  tokenizer finds (a shell variable, a YAML or TOML key ...) of four characters or more;
  prose has none (``text_rules=False`` turns files that are not Python off).  An
  experiment line is not reported again for its names (``unless``);
* ``removed-lines-FILE``: the lines it removed, expected back with their count before
  it (``line:TEXT``, ``line*N:TEXT``);
* ``mode-FILE``: a file whose mode the change made: the mode before it, expected back
  (``Rule.mode``; ``check --reverted`` checks it, a manifest notes it);
* a file the change added: an ``absent`` entry;
* a file the change deleted (or renamed away): a ``must_exist`` rule that expects names
  the file had (its top-level definitions), or without one its lines, or, empty, the
  file itself: still missing, that is a violation.

Things a manifest cannot check (binary contents, symlink targets, files outside the root,
a mode) become comments at the top of the manifest, never silent omissions; with ``check
--reverted`` they are listed as not checked (:class:`~.git.RevertCheck`), and a range that
changes nothing is no error.

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
