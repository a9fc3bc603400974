"""``python -m orgbrain``: the same as the ``orgbrain`` command."""

from .cli import main

if __name__ == "__main__":
    main()
