"""``caltrop serve``: the table server (issue 11) on uvicorn.

On start it migrates the database (putting the bundled examples in its library the first time)
and prints the URL to open: its home page opens a table of an example or of uploaded files, and
shows the GM the players' links and QR codes. With ``--encounter NAME`` it also opens a table of
NAME at once and prints its GM link and one link per player (tokens are shown once: only their
hashes are stored). Tables opened before keep working with the links given then.
"""

from __future__ import annotations

import enum
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from caltrop.errors import CaltropError

#: How long an idle HTTP connection is kept open: a player's phone sends a command every few
#: seconds to a minute, and a kept connection saves a handshake per command (uvicorn's 5 s
#: default suits a proxy in front of it, which keeps its own)
KEEP_ALIVE_SECONDS = 30


class Sync(enum.StrEnum):
    """How a SQLite commit waits for the disk (:func:`caltrop.store.open_database`)."""

    normal = "normal"
    full = "full"


def _lan_address() -> str:
    """This machine's address on its network (what phones on the same wifi open), found by
    asking the system which address it would send from; 127.0.0.1 if there is none. Nothing
    is sent: a UDP socket's connect only picks a route."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: routable, never answered
            address = str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"
    return address if not address.startswith("0.") else "127.0.0.1"


def serve(
    db: Annotated[
        str | None,
        typer.Option(
            help="A SQLAlchemy URL (postgresql+psycopg://…); default: a SQLite file in the user "
            "data folder (Linux: ~/.local/share/caltrop/caltrop.db)",
            show_default=False,
        ),
    ] = None,
    host: Annotated[str, typer.Option(help="The address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port to listen on", min=1, max=65535)] = 8000,
    encounter: Annotated[
        str | None,
        typer.Option(
            help="Open a table of this example at once and print its links (default: none; "
            "open tables from the home page)",
            show_default=False,
        ),
    ] = None,
    sync: Annotated[
        Sync,
        typer.Option(
            help="SQLite: 'normal' — a command survives the server's crash or kill, a power "
            "cut may take back the last second of commands; 'full' — each command waits for "
            "the disk and survives a power cut too"
        ),
    ] = Sync.normal,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            help="Behind a TLS proxy: the proxy's address(es), comma-separated, whose "
            "X-Forwarded-Proto / X-Forwarded-For are believed (the seat cookie is then Secure "
            "over https) [default: none]",
            show_default=False,
        ),
    ] = None,
    new_tables_burst: Annotated[
        int | None,
        typer.Option(
            help="Tables one client address may open at once, then --new-tables-per-minute "
            "(both 0: no limit) [default: 20]",
            min=0,
            show_default=False,
        ),
    ] = None,
    new_tables_per_minute: Annotated[
        float | None,
        typer.Option(
            help="Tables one client address may open a minute [default: 6]",
            min=0,
            show_default=False,
        ),
    ] = None,
    chance: Annotated[
        bool,
        typer.Option(
            help="The live chance of winning on the GM's screen, worked out in a worker "
            "process (issue 23)",
        ),
    ] = True,
) -> None:
    """Serve tables to a GM and players on their own devices (HTTP and WebSockets)."""
    import uvicorn
    from sqlalchemy.exc import SQLAlchemyError

    from caltrop.store import Repository, default_url, open_database
    from caltrop.store.service import RefusalError, Tables
    from caltrop.web import Settings, create_app
    from caltrop.web.collector import settle_for_serving
    from caltrop.web.protocol import BoundedHttpProtocol
    from caltrop.web.settings import NEW_TABLES_BURST, NEW_TABLES_PER_MINUTE

    errors = Console(stderr=True)
    shown_host = _lan_address() if host in ("0.0.0.0", "::") else host
    base = f"http://{shown_host}:{port}"
    url = db or default_url()
    try:
        engine = open_database(url)
        tables = Tables(Repository(engine))
        tables.library()  # the examples are ready to open from the first start
        new = tables.create(encounter) if encounter else None
        engine.dispose()
    except (RefusalError, CaltropError) as exc:
        errors.print(f"[red]{escape(str(exc))}[/red]", highlight=False)
        raise typer.Exit(2) from None
    except (SQLAlchemyError, OSError) as exc:
        errors.print(
            f"[red]cannot open the database {escape(url)}: {escape(str(exc).splitlines()[0])}[/red]",
            highlight=False,
        )
        raise typer.Exit(2) from None
    # plain lines, never wrapped: a link must survive copying whole
    typer.echo(f"Caltrop table server on {base}  (database: {url})")
    if new is not None:
        typer.echo(f"GM link (keep it secret): {base}/join/{new.gm_token}")
        for creature, token in new.player_tokens.items():
            typer.echo(f"  {creature}: {base}/join/{token}")
    else:
        typer.echo(f"Open {base}/ to start a table: the GM's screen gives each player a link")
    typer.echo(
        "API: 'Authorization: Bearer TOKEN'; POST /api/commands, GET /api/view, WS /ws; /docs"
    )
    app = create_app(
        Settings(
            database_url=url,
            base_url=base,
            sqlite_sync=sync.value,
            new_tables_burst=NEW_TABLES_BURST if new_tables_burst is None else new_tables_burst,
            new_tables_per_minute=(
                NEW_TABLES_PER_MINUTE if new_tables_per_minute is None else new_tables_per_minute
            ),
            chance=chance,
        )
    )
    settle_for_serving()  # short collector pauses (issue 11's p99)
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        http=BoundedHttpProtocol,  # header and body deadlines, bounded headers (issue 20 §2)
        # believed only from the named proxy: a client cannot claim https by a header of its own
        proxy_headers=forwarded_allow_ips is not None,
        forwarded_allow_ips=forwarded_allow_ips or "",
    )
