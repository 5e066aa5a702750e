"""An output file of a command, checked and reserved before the work starts.

``slagwerk play --record PATH`` plays a whole match before it writes the
record; a path that cannot be written must fail at once, not after the
match. :class:`ReservedOutput` checks the path when it is made and creates
the temporary file (a unique name in the same folder, ``O_CREAT | O_EXCL``)
that will become ``PATH``; :meth:`ReservedOutput.write` fills it and renames
it over ``PATH`` (``os.replace``, or ``os.link`` when nothing may be
overwritten), so ``PATH`` holds the old content or the new, never a part.
A symbolic link at ``PATH`` is refused, never followed.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from contextlib import suppress

from ..errors import OutputError, path_text

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_TRIES = 16


class ReservedOutput:
    """A file ``path`` to be written later, checked now.

    :param flag: how the user gave the path (``--record``), for messages.
    :param force: whether an existing regular file may be replaced.
    :raises OutputError: one line, if ``path`` names a folder or a symbolic
        link, lies in a folder that does not exist or cannot be written, or
        exists and ``force`` is false.
    """

    def __init__(self, path, *, flag: str = "--record", force: bool = False):
        self.path = os.fspath(path)
        self.force = force
        self.where = f"{flag} {path_text(self.path)}"
        self.temporary: str | None = None
        self.fd = -1
        name = os.path.basename(self.path)
        if not name or name in (".", ".."):
            raise OutputError(f"{self.where}: names a folder; give a file name")
        self.folder = os.path.dirname(self.path) or "."
        if not os.path.isdir(self.folder):
            what = "is not a folder" if os.path.lexists(self.folder) else "does not exist"
            raise OutputError(f"{self.where}: the folder {path_text(self.folder)} {what}")
        self._check_destination()
        self._reserve(name)

    def _check_destination(self) -> None:
        try:
            info = os.lstat(self.path)
        except FileNotFoundError:
            return
        except OSError as err:
            raise OutputError(f"{self.where}: cannot write it: {err.strerror or err}") from None
        if stat.S_ISLNK(info.st_mode):
            raise OutputError(f"{self.where}: is a symbolic link; a record is never written through a link")
        if stat.S_ISDIR(info.st_mode):
            raise OutputError(f"{self.where}: is a folder; give a file name")
        if not stat.S_ISREG(info.st_mode):
            raise OutputError(f"{self.where}: exists and is not a regular file")
        if not self.force:
            raise OutputError(f"{self.where}: the file exists; use --force to overwrite it")

    def _reserve(self, name: str) -> None:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
        for _ in range(_TRIES):
            temporary = os.path.join(self.folder, f".{name}.{secrets.token_hex(6)}.tmp")
            try:
                self.fd = os.open(temporary, flags, 0o666)
            except FileExistsError:
                continue
            except OSError as err:
                # The folder exists (checked above): "no such file" here means a file
                # system that makes no new files, such as /proc.
                reason = ("it takes no new files" if err.errno == errno.ENOENT
                          else err.strerror or str(err))
                raise OutputError(
                    f"{self.where}: cannot write in the folder {path_text(self.folder)}: {reason}"
                ) from None
            self.temporary = temporary
            return
        raise OutputError(f"{self.where}: no unused temporary name in {path_text(self.folder)}")

    def write(self, text: str) -> None:
        """Write ``text`` (UTF-8) to the file, atomically.

        :raises OutputError: if it cannot; the temporary file is then kept
            (and named in the message) when it holds the whole text.
        """
        if self.temporary is None:
            raise OutputError(f"{self.where}: already written")
        data = text.encode("utf-8")
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view):]
            os.fsync(self.fd)
        except OSError as err:
            self.discard()
            raise OutputError(f"{self.where}: cannot write it: {err.strerror or err}") from None
        os.close(self.fd)
        self.fd = -1
        temporary, self.temporary = self.temporary, None  # from here on it is kept, whatever happens
        kept = f"; the record is kept in {path_text(temporary)}"
        if os.path.islink(self.path):  # appeared while the work went on
            raise OutputError(f"{self.where}: is now a symbolic link, which is never followed{kept}")
        try:
            if self.force:
                os.replace(temporary, self.path)
            else:
                self._link_new(temporary)
        except FileExistsError:
            raise OutputError(
                f"{self.where}: the file appeared meanwhile; use --force to overwrite it{kept}"
            ) from None
        except OSError as err:
            raise OutputError(f"{self.where}: cannot write it: {err.strerror or err}{kept}") from None

    def _link_new(self, temporary: str) -> None:
        """Give ``temporary`` the name ``path`` only if nothing has that name
        (:class:`FileExistsError` otherwise)."""
        try:
            os.link(temporary, self.path)
        except FileExistsError:
            raise
        except OSError as err:
            if err.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
                raise
            if os.path.lexists(self.path):  # no hard links here: check, then rename
                raise FileExistsError(errno.EEXIST, "exists") from None
            os.replace(temporary, self.path)
            return
        with suppress(OSError):  # the record has its name; a left-over second name is harmless
            os.unlink(temporary)

    def discard(self) -> None:
        """Remove the temporary file (nothing was written); harmless once written."""
        if self.fd >= 0:
            with suppress(OSError):
                os.close(self.fd)
            self.fd = -1
        if self.temporary is not None:
            with suppress(OSError):
                os.unlink(self.temporary)
            self.temporary = None
