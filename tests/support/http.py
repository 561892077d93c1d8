"""Built sites served on 127.0.0.1 by a real ``http.server`` for the tests."""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

K = TypeVar("K")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    requests: list[str]

    def log_message(self, *args) -> None:  # noqa: D102 - keep test output clean
        pass

    def do_GET(self) -> None:  # noqa: N802
        type(self).requests.append(self.path)
        super().do_GET()


def serve_handler(handler: Any) -> tuple[str, http.server.ThreadingHTTPServer]:
    """A server on 127.0.0.1 (a free port) answering with ``handler`` in a thread of its own,
    until the caller shuts it down; (base URL, server)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/", server


@contextlib.contextmanager
def running(handler: Any) -> Iterator[str]:
    """:func:`serve_handler` for the ``with`` block: its base URL, the server shut down after."""
    url, server = serve_handler(handler)
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def serve_folder(folder: Path, base: type[http.server.SimpleHTTPRequestHandler] = _Quiet) -> Iterator[tuple[str, list[str]]]:
    """``folder`` over HTTP on 127.0.0.1 with the handler ``base`` (default: quiet, every
    request's path recorded in the list it yields beside the URL)."""
    handler = type("Handler", (base,), {"requests": []})
    with running(functools.partial(handler, directory=str(folder))) as url:
        yield url, handler.requests


def serve(root: Path) -> tuple[str, http.server.ThreadingHTTPServer]:
    """Serve ``root`` until the caller shuts the server down; (base URL, server)."""
    handler = type("Handler", (_Quiet,), {"requests": []})
    return serve_handler(functools.partial(handler, directory=str(root)))


@contextlib.contextmanager
def serving_each(folders: dict[K, Path]) -> Iterator[dict[K, str]]:
    """Each of ``folders`` served by :func:`serve_folder` for the ``with`` block: their base
    URLs under the same keys, every server shut down after."""
    with contextlib.ExitStack() as stack:
        yield {key: stack.enter_context(serve_folder(folder))[0] for key, folder in folders.items()}
