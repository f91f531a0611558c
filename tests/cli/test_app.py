"""The ``caltrop`` console script: its commands are there and it starts without a traceback."""

from __future__ import annotations

import subprocess
import sys

from caltrop import __version__
from caltrop.cli import app, main
from tests.cli.conftest import Invoke


def test_help_lists_every_command(invoke: Invoke) -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("roll", "odds", "pool", "table"):
        assert command in result.stdout


def test_version(invoke: Invoke) -> None:
    assert invoke("--version").stdout.strip() == f"caltrop {__version__}"


def test_main_is_the_console_script() -> None:
    assert callable(main)
    assert app.info.name == "caltrop"
    code = "from caltrop.cli import main; import sys; sys.argv = ['caltrop', 'pool', '6', '--load', '2', '--extra', '1d4']; main()"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "Roll 4d4+1d4" in done.stdout
