"""Where content comes from: files on disk or resources bundled in the package, and YAML parsing.

A :class:`Source` reads its text and resolves paths relative to itself, so an encounter's
``include: [../actions.yaml]`` works the same for a user's files and for the bundled examples
(which may live inside a wheel or zip, reached through :mod:`importlib.resources`).
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Protocol

import yaml

from caltrop.content.problems import ContentFileError, Problem, node_line


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
        return "file:" + str(self.path.resolve())

    @property
    def stem(self) -> str:
        return self.path.stem

    def exists(self) -> bool:
        return self.path.is_file()

    def read_text(self) -> str:
        return self.path.read_text(encoding="utf-8")

    def resolve(self, relative: str) -> PathSource:
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


def parse_yaml(source: Source) -> tuple[yaml.Node, Any]:
    """Compose and construct one YAML document with the safe loader, keeping the node tree.

    Raises :class:`ContentFileError` for a missing or unreadable file, a syntax error (with its
    line), an empty file, or a key given twice in one mapping.
    """
    try:
        text = source.read_text()
    except FileNotFoundError:
        raise ContentFileError([Problem(source.name, 1, "", "no such file")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ContentFileError(
            [Problem(source.name, 1, "", f"cannot read the file: {exc}")]
        ) from None
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise ContentFileError(
                [Problem(source.name, 1, "", "the file is empty; expected a mapping with 'kind:'")]
            )
        duplicates = _duplicate_keys(node)
        if duplicates:
            raise ContentFileError([Problem(source.name, *d) for d in duplicates])
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = int(mark.line) + 1 if mark is not None else 1
        what = exc.problem or "invalid YAML"
        context = ""
        if exc.context:
            started = exc.context_mark
            since = (
                f" that starts on line {int(started.line) + 1}"
                if started is not None and started.line != (mark.line if mark else None)
                else ""
            )
            context = f" ({exc.context}{since})"
        column = f" at column {int(mark.column) + 1}" if mark is not None else ""
        raise ContentFileError(
            [Problem(source.name, line, "", f"YAML syntax error{column}: {what}{context}")]
        ) from None
    except yaml.YAMLError as exc:
        raise ContentFileError([Problem(source.name, 1, "", f"YAML error: {exc}")]) from None
    finally:
        loader.dispose()
    return node, data


def _duplicate_keys(root: yaml.Node) -> list[tuple[int, str, str]]:
    found: list[tuple[int, str, str]] = []
    seen_nodes: set[int] = set()

    def walk(node: yaml.Node, path: str) -> None:
        if id(node) in seen_nodes:
            return
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[str, int] = {}
            for key, value in node.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
                    continue
                child = f"{path}.{key.value}" if path else str(key.value)
                if key.value in first:
                    found.append(
                        (
                            node_line(key),
                            child,
                            f"duplicate key {key.value!r} (first given on line {first[key.value]})",
                        )
                    )
                else:
                    first[key.value] = node_line(key)
                walk(value, child)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, f"{path}[{i + 1}]")

    walk(root, "")
    return found
