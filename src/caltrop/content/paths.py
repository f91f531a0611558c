"""What is at a path, in words: one wording for every reader of a file (issue 21).

Content files (:mod:`caltrop.content.yamlfile`), logs (:mod:`caltrop.content.logfile`) and the
command line's own path options (``--report``) say what is there when it is not a regular file
to read, from one table: before issue 21 a symbolic link to itself and an include naming a
folder were both reported as "no such file", and ``--report /dev/null`` as "[Errno 17] File
exists".
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

#: What a path holds when it is not a regular file, by its mode (lstat's after the links).
KINDS: Final = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)

#: :func:`path_problem`'s words for a path where nothing is, not even a link.
MISSING: Final = "no such file"


def path_problem(path: Path) -> str | None:
    """Why ``path`` is no file to read, in words (None when it is a regular file): nothing there
    (:data:`MISSING`), a link to nothing or one that loops (naming its target), a folder, a FIFO
    or a device (:data:`KINDS`), or the system's reason it cannot be looked at."""
    try:
        link = os.lstat(path)
    except FileNotFoundError:
        return MISSING
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        return f"cannot be read: {_reason(exc)}"
    try:
        info = os.stat(path)
    except OSError as exc:
        if stat.S_ISLNK(link.st_mode):
            try:
                target = os.readlink(path)
            except OSError:
                target = "?"
            if isinstance(exc, FileNotFoundError):
                return f"is a symbolic link to {target}, which does not exist"
            return f"is a symbolic link that loops (to {target}): {_reason(exc)}"
        return f"cannot be read: {_reason(exc)}"
    if stat.S_ISDIR(info.st_mode):
        return "is a folder, not a file"
    for test, kind in KINDS:
        if test(info.st_mode):
            return f"is {kind}, not a regular file"
    return None if stat.S_ISREG(info.st_mode) else "is not a regular file"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[0].lower() + exc.strerror[1:]
    return str(exc)
