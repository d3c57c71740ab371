"""``python -m ember.utils.benchmark``: the ``ember-timer`` command."""

import sys

from ember.utils.benchmark._cli import main

if __name__ == "__main__":
    sys.exit(main())
