"""Descriptor-relative walks and copies of a directory tree, following nothing.

Why apart from `fs.py`: PID 1 (`launcher.py`) copies a quota'd workspace in and out with these,
and imports the standard library only; `fs.py` builds the judge's operations on the same walk
and turns its refusal into the judge's `UnsafeTree` (a ConfigError). The reasons for the way
every walk here goes are in `fs.py`'s docstring.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_ENTRIES = 2_000_000  # far above any workspace quota; a walk beyond this is refused
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class TooManyEntries(Exception):
    """A walk met more than its bound of entries (`fs.walk` raises it as UnsafeTree)."""


Visit = Callable[[int, str, os.stat_result], None]


def walk(top: Path | int, on_entry: Visit, *, after_dir: Callable[[int, str], None] | None = None,
         max_entries: int = MAX_ENTRIES) -> int:
    """Call `on_entry(dir_fd, name, lstat)` for every entry below `top` (pre-order) and
    `after_dir(dir_fd, name)` once a directory's contents are done (post-order); return the
    number of entries. Symlinks are reported, never followed; `on_entry` may remove the entry
    it is given unless it is a directory (use `after_dir` for those). `top` may be an open
    directory descriptor (it stays open)."""
    fd = os.dup(top) if isinstance(top, int) else os.open(top, DIR_FLAGS)
    pending: list[list[str]] = [sorted(os.listdir(fd), reverse=True)]
    names: list[str] = []  # name of each directory we are in, below top
    count = 0
    try:
        while pending:
            if not pending[-1]:
                pending.pop()
                if not names:
                    break
                parent = os.open("..", DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = parent
                done = names.pop()
                if after_dir is not None:
                    after_dir(fd, done)
                continue
            name = pending[-1].pop()
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            count += 1
            if count > max_entries:
                raise TooManyEntries(f"{top} holds more than {max_entries:,} entries; refusing to "
                                 "walk it (a run's workspace quota should have prevented this)")
            on_entry(fd, name, info)
            if stat.S_ISDIR(info.st_mode):
                child = os.open(name, DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = child
                names.append(name)
                pending.append(sorted(os.listdir(fd), reverse=True))
    finally:
        os.close(fd)
    return count


def clear_dir_fd(dir_fd: int) -> None:
    """Remove every entry of the directory `dir_fd` (not the directory), following nothing."""
    for name in os.listdir(dir_fd):
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if not stat.S_ISDIR(info.st_mode):
            os.unlink(name, dir_fd=dir_fd)
            continue
        child = os.open(name, DIR_FLAGS, dir_fd=dir_fd)
        try:
            walk(child, _unlink_entry, after_dir=_rmdir_entry)
        finally:
            os.close(child)
        os.rmdir(name, dir_fd=dir_fd)


def _unlink_entry(fd: int, name: str, info: os.stat_result) -> None:
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(name, dir_fd=fd)


def _rmdir_entry(fd: int, name: str) -> None:
    os.rmdir(name, dir_fd=fd)


MAX_COPY_DEPTH = 200  # deeper directories are dropped when a workspace is copied
MAX_REFUSED_NAMES = 100  # refused entries named in a copy's report (the count is exact)
MAX_REFUSED_CHARS = 240  # a longer path in that report keeps its head and tail around "..."


def shorten_path(path: str, limit: int = MAX_REFUSED_CHARS) -> str:
    """`path` cut to `limit` characters: its first and last parts around "...".

    Why: the report travels in PID 1's status message, and a run can make one path 200
    directories of 255 characters deep (50 KB); a hundred of those would fill the status
    pipe. Cut, the report stays bounded (names x chars) whatever the run left."""
    if len(path) <= limit:
        return path
    head = limit // 3
    return path[:head] + "..." + path[len(path) - (limit - head - 3):]


def special_kind(mode: int) -> str:
    """What a non-regular, non-directory, non-link entry is, in words."""
    for test, name in ((stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device")):
        if test(mode):
            return name
    return "special file"


class Budget:
    """What a copy may still write: bytes (data, each file rounded up to whole pages, holes
    not counted) and inodes (every entry created, each hard-linked name included).

    Why: a run's workspace is a quota'd tmpfs, but what it holds is not what a naive copy
    writes: a sparse file (truncated to 1 GiB, no data) costs the tmpfs nothing and a dense
    copy 1 GiB; one file with 15 hard links costs one file there and 15 copies here. A copy
    that charges every name its data and skips holes writes at most the quota, whatever the
    tree looks like. `None` for a limit: unbounded."""

    def __init__(self, max_bytes: int | None, max_inodes: int | None) -> None:
        self.max_bytes, self.max_inodes = max_bytes, max_inodes
        self.bytes = 0
        self.inodes = 0
        self.exceeded = ""  # what did not fit first, in words ("" while everything fit)

    def take(self, nbytes: int, inodes: int = 1) -> bool:
        """Charge an entry of `nbytes` data; False (charging nothing) when it does not fit."""
        if self.exceeded:
            return False
        if self.max_inodes is not None and self.inodes + inodes > self.max_inodes:
            self.exceeded = f"more than {self.max_inodes:,} entries"
            return False
        if self.max_bytes is not None and self.bytes + nbytes > self.max_bytes:
            self.exceeded = f"more than {self.max_bytes:,} bytes of data"
            return False
        self.bytes += nbytes
        self.inodes += inodes
        return True


_PAGE = 4096
# errors of a destination that is full: the entry is dropped as over the quota, not an error
_FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def data_extents(fd: int, size: int) -> list[tuple[int, int]]:
    """(offset, length) of each data segment of the open file `fd` (holes skipped, by
    SEEK_DATA/SEEK_HOLE; a filesystem without them reports the whole file as data)."""
    extents = []
    pos = 0
    while pos < size:
        try:
            start = os.lseek(fd, pos, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # only a hole from pos to the end
                break
            if exc.errno in (errno.EINVAL, errno.EOPNOTSUPP):
                return [(0, size)] if size else []
            raise
        if start >= size:
            break
        end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
        extents.append((start, end - start))
        pos = end
    return extents


def copy_tree_fd(src_fd: int, dst_fd: int, uid: int, gid: int,
                 budget: Budget | None = None) -> dict[str, Any]:
    """Copy the tree below `src_fd` into the (empty) directory `dst_fd`, owned by uid:gid.

    Regular files (their data only: holes stay holes; setuid/setgid bits dropped), directories
    and symlinks (as links, never followed) are copied; FIFOs, sockets and devices are refused,
    as are directories deeper than MAX_COPY_DEPTH. Every open is relative to a directory
    descriptor with O_NOFOLLOW and every create uses O_EXCL, so neither side can redirect the
    copy. With a `budget`, every entry is charged before it is written; the first that does
    not fit (or that the destination refuses as full) and everything after it are dropped,
    named as over the quota, and `quota` says what did not fit. Returns counts (files, dirs,
    links, bytes, dropped), `quota` ("" when everything fit) and `refused`: [relative path
    (cut to MAX_REFUSED_CHARS by `shorten_path`), what it was] of the first
    MAX_REFUSED_NAMES entries not copied.
    """
    budget = budget or Budget(None, None)
    counts: dict[str, Any] = dict.fromkeys(("files", "dirs", "links", "bytes", "dropped"), 0)
    refused: list[list[str]] = []

    def drop(path: str, what: str) -> None:
        counts["dropped"] += 1
        if len(refused) < MAX_REFUSED_NAMES:
            refused.append([shorten_path(path), what])

    stack: list[tuple[int, int, list[str], str]] = [
        (os.dup(src_fd), os.dup(dst_fd), sorted(os.listdir(src_fd), reverse=True), "")]
    try:
        while stack:
            s, d, names, prefix = stack[-1]
            if not names:
                os.close(s)
                os.close(d)
                stack.pop()
                continue
            name = names.pop()
            info = os.stat(name, dir_fd=s, follow_symlinks=False)
            mode = stat.S_IMODE(info.st_mode) & 0o1777
            if budget.exceeded:  # stopped at the quota: the rest is dropped, not walked
                drop(prefix + name, f"over the workspace quota ({budget.exceeded})")
                continue
            if stat.S_ISREG(info.st_mode):
                try:
                    written = _copy_file_fd(s, d, name, mode, uid, gid, budget)
                except OSError as exc:
                    _full(exc, budget)
                    with contextlib.suppress(OSError):
                        os.unlink(name, dir_fd=d)
                    written = None
                if written is None:
                    drop(prefix + name, f"over the workspace quota ({budget.exceeded})")
                else:
                    counts["bytes"] += written
                    counts["files"] += 1
            elif stat.S_ISLNK(info.st_mode):
                if not budget.take(0):
                    drop(prefix + name, f"over the workspace quota ({budget.exceeded})")
                    continue
                try:
                    os.symlink(os.readlink(name, dir_fd=s), name, dir_fd=d)
                except OSError as exc:
                    _full(exc, budget)
                    drop(prefix + name, f"over the workspace quota ({budget.exceeded})")
                    continue
                os.chown(name, uid, gid, dir_fd=d, follow_symlinks=False)
                counts["links"] += 1
            elif stat.S_ISDIR(info.st_mode) and len(stack) < MAX_COPY_DEPTH:
                if not budget.take(0):
                    drop(prefix + name, f"over the workspace quota ({budget.exceeded})")
                    continue
                try:
                    os.mkdir(name, 0o700, dir_fd=d)
                except OSError as exc:
                    _full(exc, budget)
                    drop(prefix + name, f"over the workspace quota ({budget.exceeded})")
                    continue
                child_s = os.open(name, DIR_FLAGS, dir_fd=s)
                child_d = os.open(name, DIR_FLAGS, dir_fd=d)
                os.fchown(child_d, uid, gid)
                os.fchmod(child_d, mode)
                stack.append((child_s, child_d, sorted(os.listdir(child_s), reverse=True),
                              prefix + name + "/"))
                counts["dirs"] += 1
            else:
                drop(prefix + name, f"a directory deeper than {MAX_COPY_DEPTH} levels"
                     if stat.S_ISDIR(info.st_mode) else special_kind(info.st_mode))
    finally:
        for s, d, _, _ in stack:
            os.close(s)
            os.close(d)
    counts["refused"] = refused
    counts["quota"] = budget.exceeded
    return counts


def _full(exc: OSError, budget: Budget) -> None:
    """A destination refusing an entry as full ends the copy like the budget; any other error
    is the copy's own and is raised."""
    if exc.errno not in _FULL_ERRNOS:
        raise exc
    budget.exceeded = budget.exceeded or f"the destination is full: {exc.strerror}"


def _copy_file_fd(src_dir: int, dst_dir: int, name: str, mode: int, uid: int, gid: int,
                  budget: Budget) -> int | None:
    """Copy one regular file's data segments (holes stay holes); None when its data does not
    fit the budget (nothing is created then)."""
    fi = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=src_dir)
    try:
        info = os.fstat(fi)
        if not stat.S_ISREG(info.st_mode):
            return 0
        extents = data_extents(fi, info.st_size)
        data = sum(length for _, length in extents)
        if not budget.take(-(-data // _PAGE) * _PAGE):
            return None
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fo = os.open(name, flags, 0o600, dir_fd=dst_dir)
        try:
            os.fchown(fo, uid, gid)
            total = 0
            for offset, length in extents:
                done = 0
                while done < length:  # the charge caps what is written, whatever the file does
                    chunk = os.pread(fi, min(1 << 20, length - done), offset + done)
                    if not chunk:
                        break
                    view = memoryview(chunk)
                    at = offset + done
                    while view:
                        n = os.pwrite(fo, view, at)
                        view, at = view[n:], at + n
                    done += len(chunk)
                total += done
            os.ftruncate(fo, info.st_size)  # a trailing hole stays a hole
            os.fchmod(fo, mode)
            return total
        finally:
            os.close(fo)
    finally:
        os.close(fi)
