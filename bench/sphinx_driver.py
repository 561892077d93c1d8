"""Run ``sphinx-build`` with or without okf_sphinx appended to the project's extensions.

Usage: ``python bench/sphinx_driver.py [--okf] SPHINX-BUILD-ARGS...``

The project's own ``conf.py`` is read unchanged; with ``--okf`` the loaded
configuration gets ``"okf_sphinx"`` appended to ``extensions`` (Sphinx's ``-D``
can only replace the list, not extend it). Both benchmark builds go through
this same driver, so they pay the same interpreter start-up.
"""

from __future__ import annotations

import sys


def _time_hooks(log: str) -> None:
    """Append the CPU time of every okf_sphinx hook call to ``log``: the extension's own
    cost, measured in each process (``-j`` workers included) and free of the noise
    that comparing two whole builds carries on a shared machine."""
    import functools
    import os
    import time

    from okf_sphinx.capture.sphinx import collector, extension, search_page

    def timed(fn):  # noqa: ANN001, ANN202
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            t0 = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                with open(log, "a", encoding="ascii") as fh:
                    fh.write(f"{fn.__name__} {os.getpid()} {time.process_time() - t0:.6f}\n")

        return wrapper

    collector.OkfCollector.process_doc = timed(collector.OkfCollector.process_doc)
    extension.on_build_finished = timed(extension.on_build_finished)
    extension.on_include_read = timed(extension.on_include_read)
    search_page._page_context = timed(search_page._page_context)


def main(argv: list[str]) -> int:
    okf = False
    if argv and argv[0] == "--okf":
        okf = True
        argv = argv[1:]
    if okf:
        from sphinx.config import Config

        original = Config.read.__func__  # type: ignore[attr-defined]

        # Sphinx < 7.3 passes overrides and tags positionally, later releases by keyword.
        def read(cls, confdir, *args, **kwargs):  # noqa: ANN001, ANN002, ANN202
            config = original(cls, confdir, *args, **kwargs)
            if "okf_sphinx" not in config.extensions:
                config.extensions = [*config.extensions, "okf_sphinx"]
            return config

        Config.read = classmethod(read)  # type: ignore[method-assign, assignment]
        import os

        if os.environ.get("OKF_BENCH_HOOKS"):
            _time_hooks(os.environ["OKF_BENCH_HOOKS"])

    from sphinx.cmd.build import main as sphinx_main

    return sphinx_main(argv)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
