"""The README's API walkthrough works as written: its ``curl`` commands, played against a table
of Orc Bridge with the GM's and bron's tokens, each get a 2xx answer and the roll resolves."""

from __future__ import annotations

import itertools
import re
import shlex
from pathlib import Path

from fastapi.testclient import TestClient

from tests.web.test_api import new_table

README = Path(__file__).resolve().parents[2] / "README.md"


def _curls() -> list[list[str]]:
    text = README.read_text(encoding="utf-8")
    block = text.split("**The API**", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    joined = block.replace("\\\n", " ")
    commands = []
    for line in joined.splitlines():
        line = line.split("   #", 1)[0].strip()  # the comments beside the commands
        if line.startswith("curl "):
            commands.append(shlex.split(line))
    return commands


def test_the_readmes_curl_walkthrough_plays(client: TestClient) -> None:
    curls = _curls()
    assert len(curls) >= 4
    table = new_table(client, "orc-bridge")
    tokens = {"$GM": table["gm"]["token"], "$BRON": table["players"]["bron"]["token"]}
    answers = []
    for argv in curls:
        url = next(a for a in argv[1:] if a.startswith("localhost:"))
        headers: dict[str, str] = {}
        body: str | None = None
        for flag, value in itertools.pairwise(argv):
            if flag == "-H":
                name, _, content = value.partition(": ")
                headers[name] = re.sub(r"\$\w+", lambda m: tokens[m.group(0)], content)
            elif flag == "-d":
                body = value
        path = url.removeprefix("localhost:8000")
        if body is None:
            got = client.get(path, headers=headers)
        else:
            got = client.post(path, content=body, headers=headers)
        assert got.status_code < 300, (argv, got.text)
        answers.append(got)
    rolled = next(a.json() for a in answers if a.json().get("command") == "roll")
    assert rolled["outcomes"][0]["roller"] == "bron"
