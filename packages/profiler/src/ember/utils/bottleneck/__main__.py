"""Entry point: ``python -m ember.utils.bottleneck script.py [args]``."""

from ember.utils.bottleneck._main import main

if __name__ == "__main__":
    main()
