"""The index on disk: files written to a staging folder and swapped in atomically, a stale
or partial index removed without following links, and single files replaced atomically.

A reader (engine/source.py) sees the old index or the new one, never none or a mix.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from okf_sphinx.core import index_format as fmt
from okf_sphinx.core.errors import NotAnIndexError
from okf_sphinx.core.hosts import Host

from .packing import bundle_rare


def is_index_folder(target: Path) -> bool:
    """Is ``target`` a folder this extension wrote (an empty one, or one whose
    ``manifest.js`` has the okfLoad wrapper)?  Links are never followed."""
    if target.is_symlink() or not target.is_dir():
        return False
    manifest = target / "manifest.js"
    if manifest.is_symlink() or not manifest.is_file():
        return not any(target.iterdir())
    with manifest.open("rb") as f:
        return f.read(len(_MANIFEST_HEAD)) == _MANIFEST_HEAD


_MANIFEST_HEAD = fmt.MANIFEST_HEAD


def remove_index(target: Path, host: Host) -> None:
    """Remove an index folder (stale or partial) without following links.

    Only what this extension wrote is removed: a link is unlinked (its target
    untouched); a file, or a folder that is not an okf_sphinx index, is left as
    it is and refused with :class:`NotAnIndexError`.
    """
    if target.is_symlink():
        target.unlink()
    elif is_index_folder(target):
        shutil.rmtree(target)
    elif target.exists():
        raise NotAnIndexError(target, host)


def write_index(target: Path, files: dict[str, Any], host: Host) -> int:
    """Write ``files`` as ``target/<name>.js`` (the rare ones bundled, :func:`~.packing.bundle_rare`)
    and swap them in atomically; returns the bytes written.

    Every file carries the build's identity (:func:`~okf_sphinx.core.index_format.build_id`
    of all their contents, the manifest's ``build``), so a reader served files of two builds
    notices.  The files go to a temporary sibling folder, the manifest last with the
    ``index_revision`` of the others; then that folder takes ``target``'s place
    in one step (``renameat2(RENAME_EXCHANGE)`` on Linux), so a reader sees the
    old index or the new one, never none or a mix.  Where the exchange is not
    available the old folder is renamed aside and the new one renamed in: two
    steps, between which readers wait for the manifest (see DiskSource).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists() and not target.is_symlink() and not is_index_folder(target):
        raise NotAnIndexError(target, host)  # never swap out (and then delete) a folder okf did not write
    laid_out = bundle_rare(files)
    texts = {name: fmt.canonical_json(value) for name, value in laid_out.items() if name != "manifest"}
    plain = {k: v for k, v in laid_out["manifest"].items() if k not in ("build", "index_revision")}
    build = fmt.build_id(texts)
    tmp = Path(tempfile.mkdtemp(prefix=fmt.STAGING_PREFIX, dir=target.parent))
    written = 0
    try:
        dirs: set[Path] = set()
        revision = hashlib.sha256()
        for name in sorted(texts):
            path = tmp / f"{name}.js"
            if path.parent not in dirs:
                path.parent.mkdir(parents=True, exist_ok=True)
                dirs.add(path.parent)
            data = fmt.wrap_json(name, texts.pop(name), build)
            revision.update(f"{name}\n{len(data)}\n".encode())
            revision.update(data)
            path.write_bytes(data)
            written += len(data)
        manifest = {**plain, "build": build, "index_revision": revision.hexdigest()}
        files["manifest"] = manifest
        data = fmt.wrap("manifest", manifest, build)
        (tmp / "manifest.js").write_bytes(data)
        written += len(data)
        os.chmod(tmp, 0o755)
        _swap_in(tmp, target, host)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return written


def index_revision(index_dir: Path) -> str:
    """The ``index_revision`` of the files under ``index_dir`` (all but the manifest),
    as :func:`write_index` computes it."""
    names = sorted(
        p.relative_to(index_dir).as_posix()[: -len(".js")]
        for p in index_dir.rglob("*.js") if p.is_file()
    )
    revision = hashlib.sha256()
    for name in names:
        if name == "manifest":
            continue
        data = (index_dir / f"{name}.js").read_bytes()
        revision.update(f"{name}\n{len(data)}\n".encode())
        revision.update(data)
    return revision.hexdigest()


_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two folders (Linux ``renameat2``); False where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # noqa: PLC0415

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False  # the file system (or kernel) cannot exchange
    raise OSError(err, os.strerror(err), str(b))


def _swap_in(new: Path, target: Path, host: Host) -> None:
    if target.is_dir() and not target.is_symlink():
        if _exchange(new, target):
            shutil.rmtree(new)  # now the old index
            return
        old = Path(tempfile.mkdtemp(prefix=fmt.STAGING_PREFIX, dir=target.parent))
        os.rename(target, old / "old")  # the window: readers wait for the manifest
        os.rename(new, target)
        shutil.rmtree(old)
        return
    remove_index(target, host)
    os.replace(new, target)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8", "surrogatepass"))
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
