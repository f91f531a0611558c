"""A content file's text and YAML, read without trusting either (issue 10).

Content is uploaded by anyone with a link to the table server, so reading refuses, with a
:class:`~caltrop.content.problems.ContentFileError` that names the file and the line:

* anything but a regular file (a FIFO would hang the reader, ``/dev/zero`` never ends), and a
  file over :data:`~caltrop.content.limits.MAX_FILE_BYTES` — from its size, before it is read;
* text that is not UTF-8, and a NUL byte or another character YAML does not allow;
* YAML nested deeper than :data:`~caltrop.content.limits.MAX_YAML_DEPTH` (the composer and the
  validators recurse), more than :data:`~caltrop.content.limits.MAX_YAML_VALUES` values counting
  what each alias repeats (a "billion laughs" file is a few lines), and an alias inside the very
  collection it names;
* an integer written with more than :data:`~caltrop.content.limits.MAX_INT_CHARS` characters
  (Python refuses to convert one past 4,300 digits, and no content number needs 40).

The limits are checked on the parser's events, which need no recursion and stop at the first
value past a limit, before a node tree is built. The C parser (libyaml) is used when PyYAML has
it, as it is about ten times faster; its syntax errors are worded again by the Python parser
when the file is small, since those name the character found.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import yaml

from caltrop.content import limits
from caltrop.content.problems import ContentFileError, Problem, node_line

#: Syntax errors of files up to this size are worded by the Python parser (see the docstring).
_REWORD_BYTES: Final = 256 * 1024

_KINDS: Final = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class _RefusedError(Exception):
    """A value past a limit, found while parsing or constructing: its line and what is wrong."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def _bounded_int(loader: Any, node: yaml.ScalarNode) -> Any:
    text = str(loader.construct_scalar(node))
    if len(text) > limits.MAX_INT_CHARS:
        raise _RefusedError(
            node_line(node),
            f"a number written with {len(text):,} characters; numbers in content have at most "
            f"{limits.MAX_INT_CHARS} (a content limit)",
        )
    return loader.construct_yaml_int(node)


class _PythonLoader(yaml.SafeLoader):
    """PyYAML's safe loader, with integers bounded."""


_PythonLoader.add_constructor("tag:yaml.org,2002:int", _bounded_int)

_Loader: type[Any] = _PythonLoader
if getattr(yaml, "__with_libyaml__", False):

    class _CLoader(yaml.CSafeLoader):
        """libyaml's safe loader, with integers bounded."""

    _CLoader.add_constructor("tag:yaml.org,2002:int", _bounded_int)
    _Loader = _CLoader


# -- reading the file ---------------------------------------------------------------------------


def read_file_text(path: Path, name: str) -> str:
    """The UTF-8 text of the regular file at ``path`` of at most ``MAX_FILE_BYTES``, opened so
    that nothing blocks. ``FileNotFoundError`` passes through (the caller says "no such file")."""

    def refuse(message: str) -> ContentFileError:
        return ContentFileError([Problem(name, 1, "", message)])

    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:
        raise refuse(f"cannot read the file: {_reason(exc)}") from None
    _require_regular(info, refuse)
    _require_size(info.st_size, refuse)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise refuse(f"cannot read the file: {_reason(exc)}") from None
    with os.fdopen(fd, "rb") as handle:
        _require_regular(os.fstat(handle.fileno()), refuse)  # replaced since the stat
        data = handle.read(limits.MAX_FILE_BYTES + 1)
    _require_size(len(data), refuse)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ContentFileError(
            [
                Problem(
                    name,
                    line,
                    "",
                    f"not UTF-8 text (byte 0x{data[exc.start]:02x}); a content file is UTF-8 "
                    "YAML text",
                )
            ]
        ) from None


def _require_regular(info: os.stat_result, refuse: Callable[[str], ContentFileError]) -> None:
    for test, kind in _KINDS:
        if test(info.st_mode):
            raise refuse(f"is {kind}, not a content file")
    if not stat.S_ISREG(info.st_mode):
        raise refuse("is not a regular file")


def _require_size(size: int, refuse: Callable[[str], ContentFileError]) -> None:
    if size > limits.MAX_FILE_BYTES:
        raise refuse(
            f"the file is {size:,} bytes; a content file is at most {limits.MAX_FILE_BYTES:,} "
            "(a content limit)"
        )


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


# -- parsing ------------------------------------------------------------------------------------


def parse_text(text: str, name: str) -> tuple[yaml.Node, Any]:
    """Compose and construct one YAML document of ``text`` (the file ``name``), keeping the node
    tree. Raises :class:`ContentFileError` for a file past a limit (see the module docstring),
    a syntax error (with its line), an empty file, or a key given twice in one mapping."""

    def refuse(line: int, message: str) -> ContentFileError:
        return ContentFileError([Problem(name, line, "", message)])

    if len(text) > limits.MAX_FILE_BYTES or (
        len(text.encode("utf-8", "surrogatepass")) > limits.MAX_FILE_BYTES
    ):
        size = len(text.encode("utf-8", "surrogatepass"))
        raise refuse(
            1,
            f"the text is {size:,} bytes; a content file is at most {limits.MAX_FILE_BYTES:,} "
            "(a content limit)",
        )
    bad = yaml.reader.Reader.NON_PRINTABLE.search(text)
    if bad is not None:
        at = bad.start()
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        code = ord(bad.group())
        what = "a NUL byte" if code == 0 else f"the character U+{code:04X}"
        raise refuse(
            line,
            f"{what} at column {column} is not allowed in a YAML file (is it a text file? "
            'write a control character, if at all, as an escape inside "double quotes")',
        )
    try:
        _check_events(text, _Loader)
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                raise refuse(1, "the file is empty; expected a mapping with 'kind:'")
            duplicates = _duplicate_keys(node)
            if duplicates:
                raise ContentFileError([Problem(name, *d) for d in duplicates])
            data = loader.construct_document(node)
        finally:
            loader.dispose()
    except _RefusedError as exc:
        raise refuse(exc.line, exc.message) from None
    except yaml.MarkedYAMLError as exc:
        if "nesting depth" in str(exc.problem):  # libyaml's own limit (1000), met first
            line = int(exc.problem_mark.line) + 1 if exc.problem_mark is not None else 1
            raise refuse(
                line, f"YAML nested more than {limits.MAX_YAML_DEPTH} deep (a content limit)"
            ) from None
        raise refuse(*_syntax_error(_reworded(exc, text))) from None
    except yaml.YAMLError as exc:
        raise refuse(1, f"YAML error: {' '.join(str(exc).split())}") from None
    return node, data


def _check_events(text: str, loader_type: type[Any]) -> None:
    """Refuse YAML past the depth and value limits, from the parser's events (no recursion)."""
    loader = loader_type(text)
    try:
        depth = 0
        values = 0
        sizes: dict[str, int] = {}
        open_collections: list[tuple[str | None, int]] = []
        while loader.check_event():
            event = loader.get_event()
            line = int(event.start_mark.line) + 1 if event.start_mark is not None else 1
            if isinstance(event, yaml.AliasEvent):
                anchor = str(event.anchor)
                if any(a == anchor for a, _ in open_collections):
                    raise _RefusedError(
                        line, f"the alias *{anchor} is inside the collection &{anchor} it repeats"
                    )
                values += sizes.get(anchor, 1)
            elif isinstance(event, yaml.ScalarEvent):
                values += 1
                if event.anchor is not None:
                    sizes[str(event.anchor)] = 1
            elif isinstance(event, yaml.CollectionStartEvent):
                values += 1
                depth += 1
                if depth > limits.MAX_YAML_DEPTH:
                    raise _RefusedError(
                        line,
                        f"YAML nested more than {limits.MAX_YAML_DEPTH} deep (a content limit)",
                    )
                anchor_name = None if event.anchor is None else str(event.anchor)
                open_collections.append((anchor_name, values))
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
                anchor_name, started = open_collections.pop()
                if anchor_name is not None:
                    sizes[anchor_name] = values - started + 1
            if values > limits.MAX_YAML_VALUES:
                raise _RefusedError(
                    line,
                    f"more than {limits.MAX_YAML_VALUES:,} values in one file, counting what "
                    "each alias repeats (a content limit)",
                )
    finally:
        loader.dispose()


def _reworded(exc: yaml.MarkedYAMLError, text: str) -> yaml.MarkedYAMLError:
    """The Python parser's wording of a syntax error the C parser found, for a small file."""
    if _Loader is _PythonLoader or len(text) > _REWORD_BYTES:
        return exc
    loader = _PythonLoader(text)
    try:
        loader.get_single_node()
    except yaml.MarkedYAMLError as python_error:
        return python_error
    except (yaml.YAMLError, RecursionError):
        return exc
    finally:
        loader.dispose()
    return exc


def _syntax_error(exc: yaml.MarkedYAMLError) -> tuple[int, str]:
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
    return line, " ".join(f"YAML syntax error{column}: {what}{context}".split())


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
