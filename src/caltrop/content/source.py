"""Where content comes from: files on disk or resources bundled in the package, and YAML parsing.

A :class:`Source` reads its text and resolves paths relative to itself, so an encounter's
``include: [../actions.yaml]`` works the same for a user's files and for the bundled examples
(which may live inside a wheel or zip, reached through :mod:`importlib.resources`).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Protocol

import yaml

from caltrop.content.problems import ContentFileError, Problem
from caltrop.content.yamlfile import parse_text, read_file_text


class Source(Protocol):
    """A content file: a display name for messages, a key for caching, and its text."""

    @property
    def name(self) -> str: ...

    @property
    def key(self) -> str: ...

    @property
    def stem(self) -> str: ...

    def exists(self) -> bool: ...

    def read_text(self) -> str: ...

    def resolve(self, relative: str) -> Source | None:
        """The source at ``relative`` (a '/'-separated path) from this one's folder."""
        ...


@dataclass(frozen=True, slots=True)
class PathSource:
    """A file on disk."""

    path: Path

    @property
    def name(self) -> str:
        return str(self.path)

    @property
    def key(self) -> str:
        try:
            return "file:" + str(self.path.resolve())
        except (OSError, ValueError, RuntimeError):  # a NUL in the name, a symlink loop
            return "file:" + str(self.path.absolute())

    @property
    def stem(self) -> str:
        return self.path.stem

    def exists(self) -> bool:
        try:
            return self.path.is_file()
        except (OSError, ValueError):  # a NUL in the name, a name too long
            return False

    def read_text(self) -> str:
        return read_file_text(self.path, self.name)

    def resolve(self, relative: str) -> PathSource | None:
        if not relative or any(not ch.isprintable() for ch in relative):
            return None  # a NUL or a control character names no file
        return PathSource(Path(os.path.normpath(self.path.parent / relative)))


@dataclass(frozen=True, slots=True)
class ResourceSource:
    """A file inside a package's resources (``root``), at the '/'-separated ``parts``."""

    root: Traversable
    parts: tuple[str, ...]
    label: str

    @property
    def name(self) -> str:
        return posixpath.join(self.label, *self.parts)

    @property
    def key(self) -> str:
        return "resource:" + self.name

    @property
    def stem(self) -> str:
        return posixpath.splitext(self.parts[-1])[0] if self.parts else ""

    def _traversable(self) -> Traversable:
        node = self.root
        for part in self.parts:
            node = node.joinpath(part)
        return node

    def exists(self) -> bool:
        return self._traversable().is_file()

    def read_text(self) -> str:
        return self._traversable().read_text(encoding="utf-8")

    def resolve(self, relative: str) -> ResourceSource | None:
        if relative.startswith("/"):
            return None
        joined = posixpath.normpath(posixpath.join(*self.parts[:-1], relative))
        if joined.startswith("..") or joined in (".", ""):
            return None
        return ResourceSource(self.root, tuple(joined.split("/")), self.label)


@dataclass(frozen=True, slots=True)
class TextSource:
    """Text given directly (a web form, a test); relative references cannot be resolved."""

    text: str
    label: str = "<text>"

    @property
    def name(self) -> str:
        return self.label

    @property
    def key(self) -> str:
        return "text:" + self.label + ":" + str(hash(self.text))

    @property
    def stem(self) -> str:
        return posixpath.splitext(posixpath.basename(self.label))[0]

    def exists(self) -> bool:
        return True

    def read_text(self) -> str:
        return self.text

    def resolve(self, relative: str) -> None:
        return None


@dataclass(frozen=True, slots=True)
class UploadSource:
    """One of a set of uploaded files (the table server's uploads), by its '/'-separated name in
    the set. Relative references resolve inside the set only: nothing is read from the
    server's disk, and a path that leaves the set (``../x``, ``/etc/x``) names no file."""

    files: Mapping[str, str]
    path: str

    @property
    def name(self) -> str:
        return self.path

    @property
    def key(self) -> str:
        return "upload:" + self.path

    @property
    def stem(self) -> str:
        return posixpath.splitext(posixpath.basename(self.path))[0]

    def exists(self) -> bool:
        return self.path in self.files

    def read_text(self) -> str:
        try:
            return self.files[self.path]
        except KeyError:
            raise FileNotFoundError(self.path) from None

    def resolve(self, relative: str) -> UploadSource | None:
        if not relative or relative.startswith("/") or any(not c.isprintable() for c in relative):
            return None
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(self.path), relative))
        if joined.startswith("..") or joined in (".", ""):
            return None
        return UploadSource(self.files, joined)


def parse_yaml(source: Source) -> tuple[yaml.Node, Any]:
    """Compose and construct one YAML document with the safe loader, keeping the node tree.

    Raises :class:`ContentFileError` for a missing or unreadable file, a file past a content
    limit (:mod:`caltrop.content.yamlfile`), a syntax error (with its line), an empty file, or a
    key given twice in one mapping.
    """
    try:
        text = source.read_text()
    except FileNotFoundError:
        raise ContentFileError([Problem(source.name, 1, "", "no such file")]) from None
    except ContentFileError:
        raise
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ContentFileError(
            [Problem(source.name, 1, "", f"cannot read the file: {exc}")]
        ) from None
    return parse_text(text, source.name)
