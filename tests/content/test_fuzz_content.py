"""The content loader fuzzed with mutated YAML (issue 10, "Tests": "the content loader (mutated
YAML)"): whatever is edited in a bundled file, loading it ends in a result or a
:class:`~caltrop.errors.ContentError` naming the file, within seconds — never another exception.
"""

from __future__ import annotations

import shutil
import tempfile
from functools import cache
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from caltrop.content import check_file, examples_root, load_encounter
from caltrop.errors import ContentError
from tests.fuzzing import fuzz, within

EXAMPLES = Path(str(examples_root()))
FILES = sorted(str(p.relative_to(EXAMPLES)) for p in EXAMPLES.rglob("*.yaml"))
ENCOUNTERS = sorted(f for f in FILES if f.startswith("encounters/"))

#: Fragments a hostile edit puts in: numbers past every limit, YAML's own syntax, aliases,
#: control characters (escaped and raw), markup, deep nesting.
FRAGMENTS = st.sampled_from(
    [
        "9" * 5000,
        "1e400",
        "-1",
        "0",
        "1000000000",
        ".nan",
        "~",
        "[",
        "]",
        "{",
        "}",
        ": ",
        "- ",
        "&a",
        "*a",
        "<<: *a",
        "!!python/object:os.system",
        '"\\e[31m"',
        '"\\0"',
        "\x00",
        "\x1b[31m",
        "[/x] M",
        "\t",
        "'",
        '"',
        "#",
        "[" * 100,
        "\n",
        "\n  ",
        "kind: encounter",
        "caltrop:monsters/goblin",
        "../../../../etc/passwd",
        "/dev/zero",
    ]
)


@cache
def _workspace() -> Path:
    """A private copy of the bundled examples, so that relative includes resolve."""
    root = Path(tempfile.mkdtemp(prefix="caltrop-fuzz-"))
    shutil.copytree(
        EXAMPLES, root / "examples", ignore=shutil.ignore_patterns("*.py", "__pycache__")
    )
    return root / "examples"


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, str]:
    """A bundled file and its text with one to four edits: a fragment inserted, a span
    deleted or replaced, a line repeated."""
    name = draw(st.sampled_from(FILES))
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "replace", "repeat"]))
        if kind == "insert":
            text = text[:at] + draw(FRAGMENTS | st.text(max_size=6)) + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 40)) :]
        elif kind == "replace":
            end = at + draw(st.integers(1, 12))
            text = text[:at] + draw(FRAGMENTS) + text[end:]
        else:
            lines = text.splitlines(keepends=True) or [""]
            i = draw(st.integers(0, len(lines) - 1))
            lines[i:i] = [lines[i]] * draw(st.integers(1, 50))
            text = "".join(lines)
    return name, text


@fuzz(100)
@given(mutations(), st.sampled_from(ENCOUNTERS))
def test_a_mutated_content_file_loads_or_is_refused_in_words(
    mutation: tuple[str, str], encounter: str
) -> None:
    """The mutated file is checked on its own and through an encounter that may include it;
    each load ends within 10 s in a definition or one ContentError without raw control bytes."""
    name, text = mutation
    root = _workspace()
    target = root / name
    original = (EXAMPLES / name).read_bytes()
    target.write_text(text, encoding="utf-8", errors="surrogatepass")

    def check() -> None:
        check_file(target)

    def load() -> None:
        load_encounter(root / encounter)

    try:
        for call in (check, load):
            try:
                within(10, call)
            except ContentError as exc:
                message = str(exc)
                assert message
                assert "\x1b" not in message
                assert "\x00" not in message
    finally:
        target.write_bytes(original)
