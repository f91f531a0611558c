"""No dead code by name (issue 24 item 6: "the four unreferenced functions go"): every public
function and method defined in ``src/caltrop`` is named somewhere besides its ``def`` — called,
registered, listed in a table, declared by a protocol it implements, named by the dice grammar
(a lark rule calls its transformer's method of that name), or documented in README/docs.

The check is by word, over the repository's text (source, tests, benchmarks, templates, docs):
a function that nothing names can be deleted without changing anything, so it should be."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "caltrop"
#: files whose text may name a function: what the repository reads, runs or documents
SUFFIXES = {".py", ".md", ".html", ".js", ".toml", ".yaml", ".yml", ".lark", ".txt"}
WORD = re.compile(r"\w+")


def _words_by_file() -> dict[Path, Counter[str]]:
    roots = [ROOT / "src", ROOT / "tests", ROOT / "benchmarks", ROOT / "docs", ROOT / "scripts"]
    files = [ROOT / "README.md"] + [
        f
        for r in roots
        if r.exists()
        for f in r.rglob("*")
        if f.is_file() and f.suffix in SUFFIXES and "__pycache__" not in f.parts
    ]
    return {
        f: Counter(WORD.findall(f.read_text(encoding="utf-8", errors="replace"))) for f in files
    }


def _public_defs() -> list[tuple[Path, str]]:
    """Every public module-level function and public method of a module-level class."""
    out = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            bodies = [node] if isinstance(node, ast.FunctionDef) else []
            if isinstance(node, ast.ClassDef):
                bodies = [n for n in node.body if isinstance(n, ast.FunctionDef)]
            out += [(path, f.name) for f in bodies if not f.name.startswith("_")]
    return out


def test_every_public_function_is_named_besides_its_def() -> None:
    words = _words_by_file()
    defs = _public_defs()
    assert len(defs) > 500  # the reader sees the package
    unnamed = [
        f"{path.relative_to(ROOT)}: {name}"
        for path, name in defs
        if words[path][name] <= 1 and not any(c[name] for f, c in words.items() if f != path)
    ]
    assert unnamed == []
