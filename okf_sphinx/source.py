"""Where index files come from: a build folder on disk or a deployed site URL.

Both read the same ``_okf/<name>.js`` files the browser loads, one at a time,
only when a request needs them.  The disk source never follows symbolic links
(a link inside the tree counts as absent, a root that is a link is refused);
the URL source caps sizes and time.  Names are checked against the format's
grammar first, so a tampered index cannot make a reader open anything else.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import urllib.parse
from pathlib import Path
from typing import Protocol

from .errors import OkfError

MAX_FILE_BYTES = 64 * 1024 * 1024
HTTP_TIMEOUT = 20.0
_NAME = re.compile(r"^(manifest|unicode|concepts|files|t/[0-9a-f]{1,8}(-[0-9]{1,9})?|[spf]/[0-9]{1,9})$")
DEFAULT_DIR = "_okf"


def check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise OkfError("index_corrupt", f"index refers to an invalid file name {name!r}; rebuild the site")
    return name


class Source(Protocol):
    location: str

    def read(self, name: str) -> bytes:
        """The bytes of ``<name>.js``; ``OkfError`` when missing or unreadable."""
        ...


class DiskSource:
    """Index files under a local folder, read without following symlinks."""

    def __init__(self, index_dir: Path) -> None:
        self.index_dir = index_dir
        self.location = str(index_dir)

    def read(self, name: str) -> bytes:
        check_name(name)
        parts = (name + ".js").split("/")
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
                    raise OkfError("index_corrupt", f"index file {name}.js is not a regular file")
                if st.st_size > MAX_FILE_BYTES:
                    raise OkfError("resource_limit", f"index file {name}.js is {st.st_size} bytes; the limit is {MAX_FILE_BYTES}")
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
                raise OkfError(code, f"index file {name}.js under {self.location} {why}; rebuild the site", file=f"{name}.js") from None
            raise OkfError("index_corrupt", f"cannot read index file {name}.js: {exc.strerror}", file=f"{name}.js") from None
        finally:
            if fd is not None:
                os.close(fd)


class UrlSource:
    """Index files of a deployed site, fetched over HTTP(S) with caps and a timeout."""

    def __init__(self, base_url: str, timeout: float = HTTP_TIMEOUT) -> None:
        self.base = base_url if base_url.endswith("/") else base_url + "/"
        self.location = self.base
        self.timeout = timeout

    def read(self, name: str) -> bytes:
        import urllib.error  # noqa: PLC0415 - urllib.request costs ~20 ms to import; disk-only runs skip it
        import urllib.request  # noqa: PLC0415

        check_name(name)
        url = urllib.parse.urljoin(self.base, name + ".js")
        request = urllib.request.Request(url, headers={"User-Agent": "okf_sphinx", "Accept-Encoding": "identity"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310 - scheme checked in open_source
                final = urllib.parse.urlsplit(response.geturl())
                if final.scheme not in ("http", "https"):
                    raise OkfError("source_unavailable", f"{url} redirected to a non-HTTP location")
                data = response.read(MAX_FILE_BYTES + 1)
        except OkfError:
            raise
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                code = "index_not_found" if name == "manifest" else "index_corrupt"
                raise OkfError(code, f"{url} was not found (HTTP 404); is this an okf_sphinx site?", url=url) from None
            raise OkfError("source_unavailable", f"{url} answered HTTP {exc.code}; try again later", url=url) from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise OkfError("source_unavailable", f"cannot fetch {url}: {reason}", url=url) from None
        if len(data) > MAX_FILE_BYTES:
            raise OkfError("resource_limit", f"{url} is larger than {MAX_FILE_BYTES} bytes", url=url)
        return data


def open_source(location: str | os.PathLike[str]) -> Source:
    """A source for a built site (its root or its ``_okf`` folder), a path or an http(s) URL."""
    text = os.fspath(location)
    if not isinstance(text, str) or not text:
        raise OkfError("schema_validation", "give the built site's folder or URL")
    scheme = urllib.parse.urlsplit(text).scheme.lower()
    if scheme in ("http", "https"):
        base = text if text.endswith("/") else text + "/"
        if base.rstrip("/").endswith("/" + DEFAULT_DIR):
            return UrlSource(base)
        return UrlSource(urllib.parse.urljoin(base, DEFAULT_DIR + "/"))
    if scheme == "file":
        text = urllib.parse.unquote(urllib.parse.urlsplit(text).path)
    elif len(scheme) > 1:
        raise OkfError("schema_validation", f"unsupported URL scheme {scheme!r}: use a folder path or an http(s) URL")
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
    if (sub / "manifest.js").exists():
        return DiskSource(sub)
    raise OkfError(
        "index_not_found",
        f"no okf_sphinx index under {root}: expected {DEFAULT_DIR}/manifest.js; build the site with "
        "extensions = ['okf_sphinx'] (or pass the index folder itself if okf_search_output_dir is set)",
    )
