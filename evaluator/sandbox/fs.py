"""Filesystem operations on what untrusted code left behind, that never follow anything.

Why a module of its own: after a sandboxed run the judge chowns, scrubs, deletes and writes
into a workspace that hostile code shaped. Anything that follows a symlink there can be turned
against a host file (a feedback file written through a link into site-packages runs as root in
every later process); anything recursive can be crashed by a deep tree (a 1,200-level chain
breaks `os.walk` and `shutil.rmtree` on Python 3.11 with RecursionError, and its paths exceed
PATH_MAX). So every walk here is iterative, holds one directory descriptor at a time (it moves
with `openat(name, O_NOFOLLOW)` down and `openat("..")` up, which is safe because no process of
the run is alive any more), looks at entries with `lstat` only, and is bounded in entries. The
walk itself and the workspace copies live in `fdtree.py`, which PID 1 shares (it imports the
standard library only); this module adds the judge's operations and error type.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

from evaluator.errors import ConfigError
from evaluator.sandbox import fdtree
from evaluator.sandbox.fdtree import DIR_FLAGS, MAX_ENTRIES, Visit


class UnsafeTree(ConfigError):
    """A workspace tree the judge refuses to handle (too many entries, or not a directory)."""


def walk(top: Path | int, on_entry: Visit, *, after_dir: Callable[[int, str], None] | None = None,
         max_entries: int = MAX_ENTRIES) -> int:
    """`fdtree.walk` for the judge: the same walk, its refusal raised as UnsafeTree."""
    try:
        return fdtree.walk(top, on_entry, after_dir=after_dir, max_entries=max_entries)
    except fdtree.TooManyEntries as exc:
        raise UnsafeTree(str(exc)) from None


def chown_tree(top: Path, uid: int, gid: int) -> int:
    """chown `top` and everything below it, links themselves included, following nothing."""
    os.chown(top, uid, gid, follow_symlinks=False)

    def visit(fd: int, name: str, info: os.stat_result) -> None:
        if (info.st_uid, info.st_gid) != (uid, gid):
            with contextlib.suppress(FileNotFoundError):
                os.chown(name, uid, gid, dir_fd=fd, follow_symlinks=False)

    return walk(top, visit)


def remove_tree(top: Path) -> None:
    """Delete `top` (a directory, a file, a link or a special file) without following links;
    no error if it is absent. Safe on trees of any depth."""
    try:
        info = os.lstat(top)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(top)
        return

    def visit(fd: int, name: str, entry: os.stat_result) -> None:
        if not stat.S_ISDIR(entry.st_mode):
            os.unlink(name, dir_fd=fd)

    def after(fd: int, name: str) -> None:
        os.rmdir(name, dir_fd=fd)

    walk(top, visit, after_dir=after)
    os.rmdir(top)


def scrub_tree(top: Path) -> int:
    """Remove every entry that is neither a regular file nor a directory (symlinks, FIFOs,
    sockets, devices), so a later reader of a kept workspace follows nothing; returns how many
    were removed."""
    removed = 0

    def visit(fd: int, name: str, info: os.stat_result) -> None:
        nonlocal removed
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
            os.unlink(name, dir_fd=fd)
            removed += 1

    walk(top, visit)
    return removed


def write_file(directory: Path, name: str, data: bytes, mode: int = 0o644) -> Path:
    """Write `data` as a fresh regular file `directory/name`, whatever the run left there.

    What is there (a file, a symlink to a host file, a FIFO, a directory tree) is removed first,
    then the file is created with O_CREAT|O_EXCL|O_NOFOLLOW relative to a descriptor of
    `directory` (itself opened with O_NOFOLLOW), so nothing can redirect the write.
    """
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"write_file needs a plain file name, got {name!r}")
    dir_fd = os.open(directory, DIR_FLAGS)
    try:
        with contextlib.suppress(FileNotFoundError):
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                remove_tree(Path(directory) / name)
            else:
                os.unlink(name, dir_fd=dir_fd)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(name, flags, mode, dir_fd=dir_fd)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
    finally:
        os.close(dir_fd)
    return Path(directory) / name
