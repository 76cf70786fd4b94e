"""How an upload ended, told to the server: Reflex's ``rx.upload_files`` sends the photo
over HTTP and, when the network drops it, only logs the error in the browser, so the
page would say 'Processing...' for ever.

``upload_on_drop(state, handler, upload_id)`` is a drop zone's whole event chain. The
page tells the server a photo is on its way (``upload_started``), sends the photo over
HTTP to ``handler``, and then reports how the upload ended (``upload_ended``). The notice
goes over the websocket and the photo over HTTP, so on a busy server either can arrive
first. Both carry the drop's name, so a photo that arrived before the notice is not then
awaited for ever.

``UploadProgress`` is the state side, mixed into every state that takes a photo (the face
and the feet, hands and pet pages): 'Processing...' with the upload's progress while the
photo travels, and its end, with the documented notice, when the upload is dropped.
"""

from __future__ import annotations

import reflex as rx
from reflex_base.event import parse_args_spec, passthrough_event_spec

from prettyscore.core import messages

_WATCH = "window.__psUploadWatch"

# How many files of a drop the picker accepted (0 when it refused them all), as a
# client-side expression: only the count reaches the server, never the files.
(_ACCEPTED,), _ = parse_args_spec(passthrough_event_spec(list))
_ACCEPTED_DROP_COUNT = rx.Var(f"(({_ACCEPTED}) || []).length").to(int)
# A name for one drop, the same in every event of its chain (it is kept on the drop's file
# list): the server matches word of an upload starting to the photo that arrives, in
# whichever order the two reach it.
_DROP_NAME = rx.Var(
    f"((({_ACCEPTED}) || {{}}).__psDrop ??= "
    "(Date.now().toString(36) + Math.random().toString(36).slice(2)))"
).to(str)

# Notes each upload request (its URL holds /_upload) as it opens: a promise of its outcome.
# Each drop starts afresh: a drop that sends nothing (the picker refused its file, or an
# upload is still going) must not report an earlier upload's failure as its own.
_WATCH_UPLOADS = rx.call_script(
    "(() => {"
    f" const watch = ({_WATCH} = {_WATCH} || {{}});"
    " watch.last = Promise.resolve(true);"
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


def _upload_outcome(handler) -> rx.event.EventSpec:
    """Once the upload just started has ended: ``handler(ok)``, ``ok`` true when the
    server answered with success, false when the network, or the server, dropped it."""
    return rx.call_script(f"({_WATCH} ? {_WATCH}.last : Promise.resolve(true))", callback=handler)


def upload_on_drop(state: type[UploadProgress], handler, upload_id: str) -> list:
    """The event chain of a drop zone whose photo goes to ``handler(files, drop)`` of
    ``state``: 'Processing...' with progress, the photo, and its outcome."""
    return [
        _WATCH_UPLOADS,
        state.upload_started(_ACCEPTED_DROP_COUNT, _DROP_NAME),
        handler(
            rx.upload_files(upload_id=upload_id, on_upload_progress=state.upload_progress),
            _DROP_NAME,
        ),
        _upload_outcome(state.upload_ended),
    ]


class UploadProgress(rx.State, mixin=True):
    """A chosen photo on its way: ``uploading`` from the drop until its handler has
    kept it (or the upload ended without it), with the upload's ``upload_percent``.
    A state lists it before its Reflex parent (``class ScoreState(UploadProgress,
    AuthState)``); its upload handler takes the drop's name after the files and calls
    ``_upload_done(drop)`` when it ends."""

    uploading: bool = False
    upload_percent: int = 0
    # The drop whose photo last reached its handler: word of it starting, come late, is old.
    _drop_arrived: str = ""

    @rx.event
    def upload_started(self, accepted: int, drop: str):
        """A drop the picker accepted (``accepted`` files) is about to be sent: show
        'Processing...' and hold 'Get My Score!' until it has arrived (unless it has)."""
        if accepted > 0 and drop != self._drop_arrived:
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
            self._resend_upload_state()
            return None
        self._upload_done()
        return rx.toast.error(messages.UPLOAD_FAILED)

    def _resend_upload_state(self) -> None:
        """Send the tab the server's word on the upload again. The photo's answer comes
        over HTTP and the word of its start over the websocket, so the tab can get them
        the wrong way round and go on thinking the photo is on its way after it arrived
        (its 'Get My Score!' would then never say that no answer came). This event is
        the chain's last, and its answer settles it."""
        self.uploading, self.upload_percent = self.uploading, self.upload_percent

    def _photo_being_kept(self) -> bool:
        """The photo arrived and its handler is still checking it (then it ends the wait)."""
        return False

    def _upload_done(self, drop: str = "") -> None:
        """The wait is over (for the photo of ``drop``, when it came from a drop)."""
        self.uploading, self.upload_percent = False, 0
        if drop:
            self._drop_arrived = drop
