"""Serving: a web worker that crashes is replaced, not the end of the whole app.

Why: in production ``reflex run --env prod`` starts Granian with ``GRANIAN_WORKERS``
worker processes. Granian's default is to stop everything when one worker exits
unexpectedly ("Unexpected exit from worker-1"), and Reflex does not pass its
``respawn_failed_workers`` option: one worker killed by the system (out of memory, a
crash in native image code) took every page of every user down until someone restarted
the app. With the option, Granian starts a new worker in its place and the other
workers go on serving; tabs whose socket was on the dead worker reconnect by themselves
(with Redis their state is intact). Granian still gives up on a crash loop (a worker
dying again within seconds), so a broken deployment still stops visibly.

How: Reflex builds its Granian server from ``granian.server.Server`` when it starts;
``respawn_failed_workers`` (called from ``rxconfig.py``, which Reflex loads first) puts
there a subclass whose only difference is that default.
"""

from __future__ import annotations

import granian.server


class RespawningServer(granian.server.Server):
    """Granian's server, replacing a worker that exits unexpectedly."""

    def __init__(self, *args, respawn_failed_workers: bool = True, **kwargs):
        super().__init__(*args, respawn_failed_workers=respawn_failed_workers, **kwargs)


def respawn_failed_workers() -> None:
    """Make every Granian server started in this process replace crashed workers."""
    granian.server.Server = RespawningServer
