"""``python -m okf_sphinx`` is the ``okf`` command."""

from .surfaces.cli import main

raise SystemExit(main())
