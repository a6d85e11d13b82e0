"""``python -m pytest_cleantree``: the ``cleantree`` command."""

import sys

from pytest_cleantree.frontends.cli.main import main

sys.exit(main())
