"""``python -m embgeo`` and the ``embgeo`` console script."""
from __future__ import annotations

import sys

from .cli import main as _main


def main(argv=None) -> int:
    return _main(argv)


if __name__ == "__main__":
    sys.exit(main())
