"""How an upload ended, told to the server: Reflex's ``rx.upload_files`` sends the photo
over HTTP and, when the network drops it, only logs the error in the browser, so the
page would say 'Processing...' for ever.

Put ``WATCH_UPLOADS`` before ``rx.upload_files`` in a drop's event chain and
``upload_outcome(handler)`` after it: the first notes the upload request as it opens, the
second waits for it to end and calls ``handler`` with ``true`` (the server answered with
success) or ``false`` (the network, or the server, dropped it).
"""

from __future__ import annotations

import reflex as rx

_WATCH = "window.__psUploadWatch"

# Notes each upload request (its URL holds /_upload) as it opens: a promise of its outcome.
WATCH_UPLOADS = rx.call_script(
    "(() => {"
    f" const watch = ({_WATCH} = {_WATCH} || {{ last: Promise.resolve(true) }});"
    " if (watch.installed) return;"
    " watch.installed = true;"
    " const open = XMLHttpRequest.prototype.open;"
    " XMLHttpRequest.prototype.open = function (method, url, ...rest) {"
    "  if (String(url).includes('/_upload')) {"
    "   watch.last = new Promise((resolve) => this.addEventListener('loadend',"
    "    () => resolve(this.status >= 200 && this.status < 300), { once: true }));"
    "  }"
    "  return open.call(this, method, url, ...rest);"
    " };"
    "})()"
)


def upload_outcome(handler) -> rx.event.EventSpec:
    """Once the upload just started has ended: ``handler(ok)``."""
    return rx.call_script(f"({_WATCH} ? {_WATCH}.last : Promise.resolve(true))", callback=handler)
