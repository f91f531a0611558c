"""``caltrop serve``: the table server (issue 11) on uvicorn.

On start it migrates the database, opens a new table of ``--encounter`` and prints the URL, the
GM link and one link per player (tokens are shown once: only their hashes are stored). Tables
opened before keep working with the links printed then.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from caltrop.errors import CaltropError


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
        str, typer.Option(help="The bundled encounter of the table opened on start")
    ] = "goblin-ambush",
) -> None:
    """Serve tables to a GM and players on their own devices (HTTP and WebSockets)."""
    import uvicorn
    from sqlalchemy.exc import SQLAlchemyError

    from caltrop.store import Repository, default_url, open_database
    from caltrop.store.service import RefusalError, Tables
    from caltrop.web import Settings, create_app

    errors = Console(stderr=True)
    shown_host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    base = f"http://{shown_host}:{port}"
    url = db or default_url()
    try:
        engine = open_database(url)
        new = Tables(Repository(engine)).create(encounter)
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
    typer.echo(f"GM link (keep it secret): {base}/join/{new.gm_token}")
    for creature, token in new.player_tokens.items():
        typer.echo(f"  {creature}: {base}/join/{token}")
    typer.echo(
        "API: 'Authorization: Bearer TOKEN'; POST /api/commands, GET /api/view, WS /ws; /docs"
    )
    app = create_app(Settings(database_url=url, base_url=base))
    uvicorn.run(app, host=host, port=port, log_level="warning")
