"""How an upload ended, told to the server: Reflex's ``rx.upload_files`` sends the photo
over HTTP and, when the network drops it, only logs the error in the browser, so the
page would say 'Processing...' for ever.

Put ``WATCH_UPLOADS`` before ``rx.upload_files`` in a drop's event chain and
``upload_outcome(handler)`` after it: the first notes the upload request as it opens, the
second waits for it to end and calls ``handler`` with ``true`` (the server answered with
success) or ``false`` (the network, or the server, dropped it).

``UploadProgress`` is the state side, mixed into every state that takes a photo (the face
and the feet, hands and pet pages): 'Processing...' with the upload's progress while the
photo travels, and its end, with the documented notice, when the upload is dropped.
"""

from __future__ import annotations

import reflex as rx

from prettyscore.core import messages

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


class UploadProgress(rx.State, mixin=True):
    """A chosen photo on its way: ``uploading`` from the drop until its handler has
    kept it (or the upload ended without it), with the upload's ``upload_percent``.
    A state lists it before its Reflex parent (``class ScoreState(UploadProgress,
    AuthState)``); its upload handler calls ``_upload_done()`` when it ends."""

    uploading: bool = False
    upload_percent: int = 0

    @rx.event
    def upload_started(self, accepted: int):
        """A drop the picker accepted (``accepted`` files) is about to be sent: show
        'Processing...' and hold 'Get My Score!' until it has arrived."""
        if accepted > 0:
            self.uploading, self.upload_percent = True, 0

    @rx.event
    def upload_progress(self, progress: dict[str, int | float | bool]):
        """The browser's upload progress (Reflex's ``on_upload_progress``)."""
        share = progress.get("progress", 0)
        if self.uploading and isinstance(share, (int, float)) and not isinstance(share, bool):
            self.upload_percent = max(0, min(100, int(share * 100)))

    @rx.event
    def upload_ended(self, ok: bool):
        """The browser's word that the chosen photo's upload is over (``ok`` False: the
        network, or the server, dropped it before the photo arrived): end 'Processing...'
        and say so. Had the photo arrived, its handler would have ended it already."""
        if ok is True or not self.uploading or self._photo_being_kept():
            return None
        self._upload_done()
        return rx.toast.error(messages.UPLOAD_FAILED)

    def _photo_being_kept(self) -> bool:
        """The photo arrived and its handler is still checking it (then it ends the wait)."""
        return False

    def _upload_done(self) -> None:
        self.uploading, self.upload_percent = False, 0
