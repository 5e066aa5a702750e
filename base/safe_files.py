"""Files written into folders that someone else may have prepared: no links followed, nothing clobbered.

A results folder may come from another machine or another person, so every
name in it is treated as hostile. The functions here:

- open the folder itself with ``O_DIRECTORY | O_NOFOLLOW`` and work on the
  names inside it relative to that descriptor, so a symbolic link, whether
  the folder or a file in it, is refused, never followed;
- open files with ``O_NOFOLLOW`` and refuse anything but a regular file
  (a FIFO, a device, a folder), and refuse to write in place into a file
  with more than one hard link;
- create new files with ``O_CREAT | O_EXCL`` (:func:`create_file`), so an
  existing file is never overwritten by accident;
- replace a file atomically (:func:`replace_file`) through a temporary file
  with a unique name, created with ``O_EXCL`` in the same folder, synced, then
  renamed over the target with :func:`os.replace`; it is removed on failure;
- append whole lines to a log (:class:`AppendLog`) that is locked against a
  second writer, where a failed write is cut back so that every line already
  there stays whole.

Every failure, a refused link as much as a full disk or a read-only file
system, is one :class:`SafeFileError` line naming the cause and the path.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from contextlib import contextmanager, suppress
from pathlib import Path

from .errors import SlagwerkError, path_text

try:  # advisory locks: POSIX only
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None

__all__ = [
    "AppendLog",
    "SafeFileError",
    "create_file",
    "folder_names",
    "make_folder",
    "read_file",
    "read_text",
    "remove_file",
    "replace_file",
]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # so that opening a planted FIFO cannot hang
_TEMPORARY_TRIES = 16


class SafeFileError(SlagwerkError):
    """A file or folder could not be read or written safely (one line: the cause and the path)."""


def _failure(action: str, path, err: OSError) -> SafeFileError:
    """One line: what could not be done to ``path``, and why (naming the parent at fault, if any)."""
    if err.errno == errno.ELOOP:
        reason = "it is a symbolic link (results are never read or written through links)"
    else:
        reason = err.strerror or str(err)
        culprit = err.filename  # a parent folder at fault, when it is not the path itself
        if isinstance(culprit, str) and os.path.normpath(culprit) not in (
                os.path.normpath(str(path)), os.path.basename(str(path))):
            reason += f" ({culprit!r})"
    return SafeFileError(f"cannot {action} {str(path)!r}: {reason}")


@contextmanager
def _folder(path, action: str = "open folder"):
    """A descriptor of folder ``path``, which must be a real folder, not a link to one."""
    try:
        fd = os.open(path, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
    except OSError as err:
        if err.errno == errno.ENOTDIR and os.path.islink(path):
            err = OSError(errno.ELOOP, os.strerror(errno.ELOOP))
        elif err.errno == errno.ENOTDIR and os.path.exists(path):
            err = OSError(errno.ENOTDIR, "it is not a folder")
        raise _failure(action, path, err) from None
    try:
        yield fd
    finally:
        os.close(fd)


def _open(folder_fd: int, name: str, flags: int, path, action: str, *, in_place: bool = False,
          missing_ok: bool = False) -> int:
    """Open ``name`` in the folder without following a link; only a regular file will do.

    ``in_place`` (writing into the file itself, not replacing it): refuse a
    file with other hard links, whose other names would change too.
    ``missing_ok``: return -1 if there is no ``name``.
    """
    try:
        fd = os.open(name, flags | _NOFOLLOW | _NONBLOCK | _CLOEXEC, 0o666, dir_fd=folder_fd)
    except FileNotFoundError as err:
        if missing_ok:
            return -1
        raise _failure(action, path, err) from None
    except OSError as err:
        raise _failure(action, path, err) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SafeFileError(f"cannot {action} {str(path)!r}: it is not a regular file")
        if in_place and info.st_nlink > 1:
            raise SafeFileError(f"cannot {action} {str(path)!r}: it has {info.st_nlink} hard links "
                                f"(results are never written into a file that has other names)")
        if fcntl is not None and _NONBLOCK:
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _sync_folder(folder_fd: int) -> None:
    with suppress(OSError):  # some file systems cannot sync a folder; the rename is done all the same
        os.fsync(folder_fd)


def read_text(path, max_bytes: int, error: type[Exception] = SafeFileError, kind: str = "JSON") -> str:
    """The UTF-8 text of the file at ``path`` (a user's file: a record, a parameter file).

    Only a regular file is read (a FIFO or a device could block or never end),
    and at most ``max_bytes`` of it. Every failure is one ``error`` line,
    ``PATH: why``; ``kind`` names what the file should hold.
    """
    shown = path_text(path)
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
        if regular:
            with open(path, "rb") as fh:
                raw = fh.read(max_bytes + 1)
    except (OSError, ValueError) as err:  # ValueError: a NUL character in the name, say
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err).splitlines()[0]
        raise error(f"{shown}: cannot read: {why}") from None
    if not regular or len(raw) > max_bytes:
        why = f"larger than {max_bytes} bytes, the most read" if regular else "not a regular file"
        raise error(f"{shown}: {why} (it should hold {kind})")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise error(f"{shown}: not UTF-8 text (byte {err.start}: {err.reason}); it should hold {kind} "
                    f"in UTF-8") from None


def make_folder(path) -> None:
    """Create folder ``path`` with its missing parents; an existing folder is fine.

    :raises SafeFileError: if ``path`` is a symbolic link or not a folder, or
        cannot be created (a parent is a file, no permission, read-only, ...).
    """
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        pass  # a file or a link to one: refused just below
    except OSError as err:
        raise _failure("create folder", path, err) from None
    with _folder(path, "create folder"):
        pass


def folder_names(path) -> list[str] | None:
    """The names in folder ``path`` (``None`` if there is nothing at ``path``).

    :raises SafeFileError: if ``path`` is a symbolic link, a file or unreadable.
    """
    if not os.path.lexists(path):
        return None
    with _folder(path) as fd:
        try:
            return sorted(os.listdir(fd))
        except OSError as err:
            raise _failure("list folder", path, err) from None


def read_file(folder, name: str) -> bytes | None:
    """The bytes of file ``name`` in ``folder``, or ``None`` if it is not there.

    :raises SafeFileError: if the folder or the file is a symbolic link, the
        file is not a regular file, or it cannot be read.
    """
    path = Path(folder) / name
    with _folder(folder, "read") as dfd:
        fd = _open(dfd, name, os.O_RDONLY, path, "read", missing_ok=True)
        if fd < 0:
            return None
        try:
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
        except OSError as err:
            raise _failure("read", path, err) from None
        finally:
            os.close(fd)


def create_file(folder, name: str, data: bytes) -> None:
    """Write ``data`` to a new file ``name`` in ``folder``; it must not exist yet.

    A file left half-written by a failure is removed.

    :raises SafeFileError: if ``name`` exists (as anything, a link included)
        or cannot be written.
    """
    path = Path(folder) / name
    with _folder(folder, "create") as dfd:
        fd = _open(dfd, name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, path, "create")
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except OSError as err:
            os.close(fd)
            _unlink_quietly(dfd, name)
            raise _failure("write", path, err) from None
        os.close(fd)
        _sync_folder(dfd)


def replace_file(folder, name: str, data: bytes) -> None:
    """Replace (or create) file ``name`` in ``folder`` with ``data``, atomically.

    ``data`` goes to a temporary file with a unique name, created with
    ``O_EXCL`` in the same folder and synced, which is then renamed over
    ``name``: a reader sees the old content or the new, never a mix, and a
    planted file or link under any temporary name changes nothing. The
    temporary file is removed on failure.

    :raises SafeFileError: if ``name`` is a symbolic link or not a regular
        file, or anything cannot be written.
    """
    path = Path(folder) / name
    with _folder(folder, "write") as dfd:
        try:
            info = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            info = None
        except OSError as err:
            raise _failure("write", path, err) from None
        if info is not None and stat.S_ISLNK(info.st_mode):
            raise _failure("write", path, OSError(errno.ELOOP, os.strerror(errno.ELOOP)))
        if info is not None and not stat.S_ISREG(info.st_mode):
            raise SafeFileError(f"cannot write {str(path)!r}: it is not a regular file")
        temporary, fd = _new_temporary(dfd, name, path)
        try:
            _write_all(fd, data)
            os.fsync(fd)
            os.close(fd)
            fd = -1
            os.replace(temporary, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except OSError as err:
            if fd >= 0:
                os.close(fd)
            _unlink_quietly(dfd, temporary)
            raise _failure("write", path, err) from None
        except BaseException:
            if fd >= 0:
                os.close(fd)
            _unlink_quietly(dfd, temporary)
            raise
        _sync_folder(dfd)


def _new_temporary(folder_fd: int, name: str, path) -> tuple[str, int]:
    for _ in range(_TEMPORARY_TRIES):
        temporary = f".{name}.{secrets.token_hex(8)}.tmp"
        try:
            return temporary, os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
                                      0o666, dir_fd=folder_fd)
        except FileExistsError:
            continue
        except OSError as err:
            raise _failure("write", path, err) from None
    raise SafeFileError(f"cannot write {str(path)!r}: no unused temporary name beside it")


def _unlink_quietly(folder_fd: int, name: str) -> None:
    with suppress(OSError):
        os.unlink(name, dir_fd=folder_fd)


def remove_file(folder, name: str) -> bool:
    """Remove ``name`` from ``folder`` if it is there (a link is removed, never its target).

    :returns: whether there was something to remove.
    :raises SafeFileError: if ``name`` is a folder or cannot be removed.
    """
    path = Path(folder) / name
    with _folder(folder, "remove") as dfd:
        try:
            os.unlink(name, dir_fd=dfd)
        except FileNotFoundError:
            return False
        except OSError as err:
            if err.errno in (errno.EISDIR, errno.EPERM) and os.path.isdir(path) and not os.path.islink(path):
                err = OSError(errno.EISDIR, "it is a folder")
            raise _failure("remove", path, err) from None
        return True


def open_for_append(folder, name: str) -> int:
    """A descriptor appending to ``name`` in ``folder`` (created if missing), for several
    writers at once (a bot's standard error in every worker): never through a link, only
    a regular file with no other hard links. The caller closes it.

    :raises SafeFileError: if it cannot be opened so.
    """
    with _folder(folder, "open") as dfd:  # read-write: a FIFO opens at once, then is refused
        return _open(dfd, name, os.O_RDWR | os.O_APPEND | os.O_CREAT, Path(folder) / name, "open",
                     in_place=True)


class AppendLog:
    """A log of whole lines, opened for appending: never through a link, one writer at a time.

    ``new``: create the file, which must not exist; otherwise it is created
    if missing. The file is locked (``flock``) for as long as it is open, so
    that a second run on the same folder is refused instead of interleaving
    its lines. :meth:`append` writes a line completely or, on failure, cuts
    the file back to where it was.
    """

    def __init__(self, folder, name: str, *, new: bool = False):
        self.path = Path(folder) / name
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | (os.O_EXCL if new else 0)
        with _folder(folder, "open") as dfd:
            self.fd = _open(dfd, name, flags, self.path, "create" if new else "open", in_place=True)
        if fcntl is not None:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as err:
                os.close(self.fd)
                self.fd = -1
                if err.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise SafeFileError(f"cannot open {str(self.path)!r}: another process is writing "
                                        f"to it") from None
                raise _failure("lock", self.path, err) from None

    def read(self) -> bytes:
        """The whole file."""
        try:
            size = os.fstat(self.fd).st_size
            chunks, offset = [], 0
            while offset < size and (chunk := os.pread(self.fd, min(size - offset, 1 << 20), offset)):
                chunks.append(chunk)
                offset += len(chunk)
            return b"".join(chunks)
        except OSError as err:
            raise _failure("read", self.path, err) from None

    def truncate(self, size: int) -> None:
        """Cut the file to ``size`` bytes."""
        try:
            os.ftruncate(self.fd, size)
            os.fsync(self.fd)
        except OSError as err:
            raise _failure("cut", self.path, err) from None

    def append(self, data: bytes) -> None:
        """Append ``data`` (one or more whole lines) to the operating system's copy of the file.

        :raises SafeFileError: if it cannot be written; the file is then cut
            back to its length before the call, so no partial line remains.
        """
        try:
            before = os.fstat(self.fd).st_size
        except OSError as err:
            raise _failure("write", self.path, err) from None
        try:
            _write_all(self.fd, data)
        except OSError as err:
            with suppress(OSError):  # else a torn last line, cut off when the run is resumed
                os.ftruncate(self.fd, before)
            raise _failure("write", self.path, err) from None

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing releases the lock
            self.fd = -1

    def __enter__(self) -> AppendLog:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
