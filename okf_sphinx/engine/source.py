"""Where index files come from: a build folder on disk or a deployed site URL.

Both read the same ``_okf/<name>.js`` files the browser loads, one at a time,
only when a request needs them.  The disk source never follows symbolic links
(a link inside the tree counts as absent, a root that is a link is refused);
the URL source caps sizes (per file and per site), time (per request, in total)
and redirects (same origin only).  Names are checked against the format's
grammar first, so a tampered index cannot make a reader open anything else.
"""

from __future__ import annotations

import errno
import io
import os
import re
import stat
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any, Protocol

from okf_sphinx.core.errors import OkfError, json_text
from okf_sphinx.core.index_format import STAGING_PREFIX

MAX_FILE_BYTES = 64 * 1024 * 1024
#: The most index bytes one URL site may send a reader, all files together.
MAX_SITE_BYTES = 1024 * 1024 * 1024
#: Seconds one index file's request may take over HTTP(S), connect to last byte.
HTTP_TIMEOUT = 20.0
#: Redirects followed per request (same origin only).
MAX_REDIRECTS = 5
#: The names of index files (``<name>.js`` under the index folder) a reader opens.
FILE_NAME = re.compile(r"^(manifest|unicode|concepts|objects|files|smart|meta|paths|semantic|[tx]/[0-9a-f]{1,8}(-[0-9]{1,9})?|[gdenhlvw]/[0-9a-f]{1,8}|[spfb]/[0-9]{1,9})$")
DEFAULT_DIR = "_okf"
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
#: How long a reader waits (seconds) for a missing index file while a ``.okf-*`` folder beside
#: the index says it is being swapped in — or kept out of MkDocs' clean (docs/index-format.md).
SWAP_WAIT = 5.0
_SWAP_POLL = 0.02


def check_name(name: str) -> str:
    """``name`` when it is an index file's name (:data:`FILE_NAME`), else ``index_corrupt``."""
    if not isinstance(name, str) or not FILE_NAME.fullmatch(name):
        raise OkfError("index_corrupt", f"index refers to an invalid file name {json_text(name)}; rebuild the site")
    return name


class Source(Protocol):
    location: str

    def read(self, name: str, fresh: bool = False) -> bytes:
        """The bytes of ``<name>.js``; ``OkfError`` when missing or unreadable.  ``fresh``:
        past any cache between the reader and the site (a URL: a query no cache holds)."""
        ...

    def read_copy(self, path: str) -> bytes:
        """The bytes of a file the site ships beside the index (``files.js``'s ``copy``:
        ``../_sources/…``, relative to the index folder)."""
        ...


def check_copy(path: str) -> list[str]:
    """The parts of a ``copy`` path, once it is known to be one (format.COPY_PATH)."""
    from okf_sphinx.core.index_format import COPY_PATH

    if not isinstance(path, str) or not COPY_PATH.match(path):
        raise OkfError("index_corrupt", f"index refers to an invalid source copy {json_text(path)}; rebuild the site")
    return path.split("/")


class _Missing(OkfError):
    """An index file that is not there (maybe for a moment: see :meth:`DiskSource.read`)."""


def _staging_beside(index_dir: Path) -> bool:
    try:
        return any(e.startswith(STAGING_PREFIX) for e in os.listdir(index_dir.parent))
    except OSError:
        return False


class DiskSource:
    """Index files under a local folder, read without following symlinks."""

    def __init__(self, index_dir: Path) -> None:
        self.index_dir = index_dir
        self.location = str(index_dir)

    def read(self, name: str, fresh: bool = False) -> bytes:  # a folder has no cache in between
        deadline = None
        while True:
            try:
                return self._read(name)
            except _Missing:
                if not self.swapping():
                    # the swap may have ended between the read and the look: read once more,
                    # and give up only when the file is still missing with no swap under way
                    try:
                        return self._read(name)
                    except _Missing:
                        if not self.swapping():
                            raise
                if deadline is None:
                    deadline = time.monotonic() + SWAP_WAIT
                elif time.monotonic() >= deadline:
                    raise
            time.sleep(_SWAP_POLL)

    def stamp(self) -> tuple[int, ...] | None:
        """A cheap identity of ``manifest.js`` (one ``lstat``): the writer never rewrites a
        file in place, so an unchanged stamp means the very file read before."""
        try:
            st = os.stat(os.path.join(self.index_dir, "manifest.js"), follow_symlinks=False)
        except OSError:
            return None
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def swapping(self) -> bool:
        """Is the index between two steps of a swap (see writer/disk.py write_index), or kept
        out of MkDocs' clean: a ``.okf-*`` folder beside it?"""
        return _staging_beside(self.index_dir)

    def read_copy(self, path: str) -> bytes:
        return self._read_parts(check_copy(path), path, f"the site's copy {path} of a captured file")

    def _read(self, name: str) -> bytes:
        check_name(name)
        return self._read_parts((name + ".js").split("/"), name)

    def _read_parts(self, parts: list[str], name: str, label: str = "") -> bytes:
        """Open ``parts`` from the index folder one component at a time, following no link
        (``..`` climbs to the site's copies of its sources)."""
        label = label or f"index file {name}.js"
        fd = None
        try:
            fd = os.open(self.index_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            for part in parts[:-1]:
                nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                os.close(fd)
                fd = nxt
            ffd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)
            try:
                st = os.fstat(ffd)
                if not stat.S_ISREG(st.st_mode):
                    raise OkfError("index_corrupt", f"{label} is not a regular file")
                if st.st_size > MAX_FILE_BYTES:
                    raise OkfError("resource_limit", f"{label} is {st.st_size} bytes; the limit is {MAX_FILE_BYTES}")
                with os.fdopen(ffd, "rb", closefd=False) as fh:
                    # the file's own size, not the cap: read(n) allocates n bytes up front (64 MiB per file)
                    return fh.read(min(st.st_size, MAX_FILE_BYTES) + 1)
            finally:
                os.close(ffd)
        except OkfError:
            raise
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
                code = "index_not_found" if name == "manifest" else "index_corrupt"
                why = "is a symbolic link (links are not followed)" if exc.errno == errno.ELOOP else "is missing"
                kind = OkfError if exc.errno == errno.ELOOP else _Missing
                raise kind(code, f"{label} under {self.location} {why}; rebuild the site", file=name if label.startswith("the site") else f"{name}.js") from None
            raise OkfError("index_corrupt", f"cannot read {label}: {exc.strerror}", file=name if label.startswith("the site") else f"{name}.js") from None
        finally:
            if fd is not None:
                os.close(fd)


class _DeadlineRaw(io.RawIOBase):
    """A socket's reading side whose every read waits at most until ``deadline``."""

    def __init__(self, sock: Any, deadline: float) -> None:
        self._sock = sock
        self._io = sock.makefile("rb", buffering=0)
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int | None:
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("the request's deadline passed")
        self._sock.settimeout(remaining)
        return self._io.readinto(b)

    def close(self) -> None:
        self._io.close()
        super().close()


class _DeadlineSocket:
    """A connected socket whose responses must arrive, whole, before ``deadline``:
    a server trickling a byte at a time cannot keep a request alive."""

    def __init__(self, sock: Any, deadline: float) -> None:
        self._sock = sock
        self._deadline = deadline

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> Any:
        return io.BufferedReader(_DeadlineRaw(self._sock, self._deadline))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


def _deadline_handlers(deadline: float) -> list[Any]:
    import http.client  # noqa: PLC0415
    import urllib.request  # noqa: PLC0415

    class _Connect:
        def connect(self) -> None:
            self.timeout = max(deadline - time.monotonic(), 0.001)
            super().connect()  # type: ignore[misc]
            self.sock = _DeadlineSocket(self.sock, deadline)  # type: ignore[attr-defined]

    class _HTTP(_Connect, http.client.HTTPConnection):
        pass

    class _HTTPS(_Connect, http.client.HTTPSConnection):
        pass

    class Http(urllib.request.HTTPHandler):
        def http_open(self, req: Any) -> Any:
            return self.do_open(_HTTP, req)

    class Https(urllib.request.HTTPSHandler):
        def https_open(self, req: Any) -> Any:
            return self.do_open(_HTTPS, req, **({"context": self._context} if self._context else {}))

    return [Http(), Https()]


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or {"http": 80, "https": 443}.get(scheme)


def _same_site(base: str, target: str) -> bool:
    """The redirect policy: the same origin, or the same host upgraded from http to https
    (a target that does not parse is no part of the site)."""
    try:
        (s1, h1, p1), (s2, h2, p2) = _origin(base), _origin(target)
    except ValueError:
        return False
    if h1 != h2:
        return False
    if s1 == s2:
        return p1 == p2
    return s1 == "http" and s2 == "https" and p1 == 80 and p2 == 443


class UrlSource:
    """Index files of a deployed site, fetched over HTTP(S) with caps and a deadline.

    Each file's request (connect, redirects, headers and body) must finish within
    ``timeout`` seconds in total; redirects are followed only within the site's
    origin (or from http to https on the same host), at most :data:`MAX_REDIRECTS`;
    the files of one site may add up to ``max_bytes`` (:data:`MAX_SITE_BYTES`).
    """

    def __init__(self, base_url: str, timeout: float = HTTP_TIMEOUT, max_bytes: int = MAX_SITE_BYTES) -> None:
        self.base = base_url if base_url.endswith("/") else base_url + "/"
        self.location = self.base
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.bytes_read = 0
        self._sizes: dict[str, int] = {}
        self._lock = threading.Lock()

    def read(self, name: str, fresh: bool = False) -> bytes:
        check_name(name)
        url = urllib.parse.urljoin(self.base, name + ".js")
        return self._get(name, url + (f"?fresh={time.time_ns()}" if fresh else ""))

    def read_copy(self, path: str) -> bytes:
        check_copy(path)
        return self._get(path, urllib.parse.urljoin(self.base, path))

    def _get(self, name: str, url: str) -> bytes:
        import http.client  # noqa: PLC0415
        import urllib.error  # noqa: PLC0415 - urllib.request costs ~20 ms to import; disk-only runs skip it
        import urllib.request  # noqa: PLC0415

        base = self.base

        def refuse_outside(req: Any, fp: Any, newurl: str) -> None:
            """Refuse a redirect off the site, naming its target — before urllib's own checks,
            which would call one to another scheme a redirect loop."""
            try:
                target = urllib.parse.urljoin(req.full_url, newurl)
            except ValueError:
                target = newurl
            if not _same_site(base, target):
                fp.close()
                raise OkfError(
                    "source_unavailable",
                    f"{url} redirects to {target}, outside the site {base}; okf_sphinx follows redirects only "
                    "within the site's origin (or http to https on the same host): give the final URL instead",
                    url=url, redirect=target,
                )

        class Redirects(urllib.request.HTTPRedirectHandler):
            max_redirections = MAX_REDIRECTS

            def http_error_302(self, req: Any, fp: Any, code: int, msg: str, headers: Any) -> Any:
                newurl = headers.get("location") or headers.get("uri")
                if newurl:
                    refuse_outside(req, fp, newurl)
                return super().http_error_302(req, fp, code, msg, headers)

            http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

            def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
                refuse_outside(req, fp, newurl)
                return super().redirect_request(req, fp, code, msg, headers, newurl)

        with self._lock:
            allowance = min(MAX_FILE_BYTES, self.max_bytes - self.bytes_read + self._sizes.get(name, 0))
        deadline = time.monotonic() + self.timeout
        opener = urllib.request.build_opener(Redirects, *_deadline_handlers(deadline))
        request = urllib.request.Request(url, headers={"User-Agent": "okf_sphinx", "Accept-Encoding": "identity"})
        try:
            with opener.open(request, timeout=self.timeout) as response:
                final = urllib.parse.urlsplit(response.geturl())
                if final.scheme not in ("http", "https"):
                    raise OkfError("source_unavailable", f"{url} redirected to a non-HTTP location")
                data = response.read(max(allowance, 0) + 1)
        except OkfError:
            raise
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                code = "index_not_found" if name == "manifest" else "index_corrupt"
                raise OkfError(code, f"{url} was not found (HTTP 404); is this an okf_sphinx site?", url=url) from None
            if 300 <= exc.code < 400:
                raise OkfError("source_unavailable", f"{url} redirects more than {MAX_REDIRECTS} times; give the final URL",
                               url=url) from None
            raise OkfError("source_unavailable", f"{url} answered HTTP {exc.code}; try again later", url=url) from None
        except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError) or time.monotonic() >= deadline:
                raise OkfError(
                    "source_unavailable",
                    f"cannot fetch {url}: no complete answer within {self.timeout:g} s (raise it with --timeout)",
                    url=url,
                ) from None
            raise OkfError("source_unavailable", f"cannot fetch {url}: {reason}", url=url) from None
        if len(data) > allowance:
            if allowance < MAX_FILE_BYTES:
                raise OkfError(
                    "resource_limit",
                    f"the index files of {base} add up to more than {self.max_bytes} bytes, the limit per site "
                    "(raise max_bytes of UrlSource for a larger site)",
                    url=url, limit=self.max_bytes,
                )
            raise OkfError("resource_limit", f"{url} is larger than {MAX_FILE_BYTES} bytes", url=url)
        with self._lock:
            self.bytes_read += max(len(data) - self._sizes.get(name, 0), 0)
            self._sizes[name] = max(len(data), self._sizes.get(name, 0))
            if self.bytes_read > self.max_bytes:
                raise OkfError(
                    "resource_limit",
                    f"the index files of {base} add up to more than {self.max_bytes} bytes, the limit per site",
                    url=url, limit=self.max_bytes,
                )
        return data


def is_url(location: str) -> bool:
    """Is ``location`` an http(s) URL (rather than a folder)?  Never raises."""
    m = _SCHEME.match(location) if isinstance(location, str) else None
    return m is not None and m.group(1).lower() in ("http", "https")


def site_url(text: str) -> str:
    """A site's http(s) URL as the base its index is found under, ending in ``/``: a
    fragment is dropped (it never reaches a server); a URL that does not parse, lacks a
    host, or has a query (which the index files could not be asked with) is
    ``schema_validation``."""
    def refuse(why: str) -> OkfError:
        shown = text if len(text) <= 200 else text[:200] + "…"
        return OkfError("schema_validation", f"the site URL {shown!r} {why}", field="site")

    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018 - a port that is no number, or out of range, raises here
    except ValueError as exc:
        raise refuse(f"is not a valid URL ({exc}); give the site's http(s) URL") from None
    if not parts.hostname:
        raise refuse("has no host; give the site's http(s) URL, e.g. https://docs.example.org/")
    if parts.query:
        raise refuse(f"has a query (?{parts.query}); an index is read from plain file URLs: give the site's URL "
                     "without it")
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def open_source(location: str | os.PathLike[str]) -> Source:
    """A source for a built site (its root or its ``_okf`` folder), a path or an http(s) URL."""
    text = os.fspath(location)
    if not isinstance(text, str) or not text:
        raise OkfError("schema_validation", "give the built site's folder or URL")
    if is_url(text):
        base = site_url(text)
        if base.rstrip("/").endswith("/" + DEFAULT_DIR):
            return UrlSource(base)
        return UrlSource(urllib.parse.urljoin(base, DEFAULT_DIR + "/"))
    m = _SCHEME.match(text)
    scheme = m.group(1).lower() if m else ""
    if scheme == "file":
        text = urllib.parse.unquote(urllib.parse.urlsplit(text).path)
    elif len(scheme) > 1:
        raise OkfError("schema_validation", f"unsupported URL scheme {json_text(scheme)}: use a folder path or an http(s) URL")
    root = Path(text)
    if root.is_symlink():
        raise OkfError("index_not_found", f"{root} is a symbolic link; give the real folder (links are not followed)")
    if not root.is_dir():
        raise OkfError("index_not_found", f"{root} is not a folder; give the built HTML site (it holds {DEFAULT_DIR}/manifest.js)")
    if (root / "manifest.js").is_file() and not (root / "manifest.js").is_symlink():
        return DiskSource(root)
    sub = root / DEFAULT_DIR
    if sub.is_symlink():
        raise OkfError("index_not_found", f"{sub} is a symbolic link; links are not followed")
    if (sub / "manifest.js").exists() or _staging_beside(sub):  # being swapped in: its reads wait for it
        return DiskSource(sub)
    raise OkfError(
        "index_not_found",
        f"no okf_sphinx index under {root}: expected {DEFAULT_DIR}/manifest.js; build the site with "
        "extensions = ['okf_sphinx'] (or pass the index folder itself if okf_search_output_dir is set)",
    )
