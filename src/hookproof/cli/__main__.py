"""``python -m hookproof.cli``: the same as the ``hookproof`` command."""

import sys

from hookproof.cli import main

if __name__ == "__main__":  # importing it (pkgutil walks every module) runs nothing
    sys.exit(main())
