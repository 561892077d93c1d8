"""``python -m okf_sphinx`` is the ``okf`` command."""

from .cli import main

raise SystemExit(main())
