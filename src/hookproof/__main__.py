"""``python -m hookproof``: the same as the ``hookproof`` command."""

import sys

from hookproof.cli import main

sys.exit(main())
