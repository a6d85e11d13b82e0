"""``python -m pytest_cleantree``: the ``cleantree`` command."""

import sys

from pytest_cleantree.cli import main

sys.exit(main())
