"""`python -m vdplace` is the `vdplace` command."""

import sys

from .cli import main

sys.exit(main())
