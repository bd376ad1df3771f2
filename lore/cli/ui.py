"""``lore ui``: serve the local web app (``lore.ui``) until Ctrl-C. Flags and messages only."""

from __future__ import annotations

import click

from lore.cli._app import App
from lore.cli._output import echo, note

pass_app = click.make_pass_decorator(App)


@click.command(name="ui")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8473,
    show_default=True,
    help="The port on 127.0.0.1 (0: any free port).",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in a browser.")
@click.option("--read-only", is_flag=True, help="Refuse every change (promote, discard, resolve).")
@pass_app
def ui_cmd(app: App, port: int, open_browser: bool, read_only: bool) -> None:
    """Browse the memory in a local web app: search, records, timeline, graph, queues.

    Serves http://127.0.0.1:PORT/ (loopback only; never another address) until
    Ctrl-C. Search ranks as `lore recall` does, with its filters and the parts
    of each score; a record's page shows every field, its revisions, its graph
    neighbours, evidence and session; the timeline walks years, months, ISO
    weeks and days; the graph view grows a neighbourhood click by click; the
    queues hold the inbox's raw observations (promote, discard) and decisions
    pending review (resolve), changed through the same code as `lore inbox`
    and `lore review`. What other processes write shows up on the next click.

    The page needs no network. Requests whose Host header is not the served
    address are refused, and a change needs the token the page was served
    with, so other web pages cannot use the server. Prints the address on
    stdout.

    \b
    Examples:
      lore ui --open
      lore ui --port 0 --read-only
    """
    import signal
    import threading

    from lore.errors import LoreError
    from lore.ui.server import UIServer

    try:
        server = UIServer(app.store, port=port, read_only=read_only)
    except OSError as exc:
        raise LoreError(
            f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}"
            " (choose another with --port N, or --port 0 for any free port)"
        ) from None

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    from lore.process import mark_long_lived

    mark_long_lived()
    echo(server.url)
    mode = " (read-only)" if read_only else ""
    note(f"serving {app.store.path}{mode} at {server.url}; Ctrl-C stops it")
    threading.Thread(target=server.routes.warm, name="lore-ui-warm", daemon=True).start()
    if open_browser:
        import webbrowser

        webbrowser.open(server.url)
    try:
        server.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
