"""Built sites served on 127.0.0.1 by a real ``http.server`` for the tests."""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path


class _Quiet(http.server.SimpleHTTPRequestHandler):
    requests: list[str]

    def log_message(self, *args) -> None:  # noqa: D102 - keep test output clean
        pass

    def do_GET(self) -> None:  # noqa: N802
        type(self).requests.append(self.path)
        super().do_GET()


@contextlib.contextmanager
def serve_folder(folder: Path, base: type[http.server.SimpleHTTPRequestHandler] = _Quiet) -> Iterator[tuple[str, list[str]]]:
    """``folder`` over HTTP on 127.0.0.1 with the handler ``base`` (default: quiet, every
    request's path recorded in the list it yields beside the URL)."""
    handler = type("Handler", (base,), {"requests": []})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(folder)))
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/", handler.requests
    finally:
        httpd.shutdown()
        httpd.server_close()



def serve(root: Path) -> tuple[str, http.server.ThreadingHTTPServer]:
    """Serve ``root`` until the caller shuts the server down; (base URL, server)."""
    handler = type("Handler", (_Quiet,), {"requests": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/", server
