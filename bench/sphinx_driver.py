"""Run ``sphinx-build`` with or without okf_sphinx appended to the project's extensions.

Usage: ``python bench/sphinx_driver.py [--okf] SPHINX-BUILD-ARGS...``

The project's own ``conf.py`` is read unchanged; with ``--okf`` the loaded
configuration gets ``"okf_sphinx"`` appended to ``extensions`` (Sphinx's ``-D``
can only replace the list, not extend it). Both benchmark builds go through
this same driver, so they pay the same interpreter start-up.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    okf = False
    if argv and argv[0] == "--okf":
        okf = True
        argv = argv[1:]
    if okf:
        from sphinx.config import Config

        original = Config.read.__func__  # type: ignore[attr-defined]

        def read(cls, confdir, **kwargs):  # noqa: ANN001, ANN202
            config = original(cls, confdir, **kwargs)
            if "okf_sphinx" not in config.extensions:
                config.extensions = [*config.extensions, "okf_sphinx"]
            return config

        Config.read = classmethod(read)  # type: ignore[method-assign, assignment]

    from sphinx.cmd.build import main as sphinx_main

    return sphinx_main(argv)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
