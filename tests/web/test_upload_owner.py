"""What ``web.upload_owner`` relies on in Reflex 0.10.1, named so an upgrade that moves
it fails here rather than quietly letting a tab's token drive uploads again.

* ``reflex_components_core.core._upload._require_upload_headers`` takes the tab from the
  ``reflex-client-token`` header;
* ``_upload_buffered_file`` builds the upload's ``Event`` with no router data (so the
  tab's state cannot tell the upload's browser by it) and streams its answer until the
  handler's chain ends (``enqueue_stream_delta``), so the key noted for the request is
  there while the handler runs;
* a handler that streams its files in the background is answered before it runs: none
  of ours does (``takes_upload`` would let one through, and the note would be gone).
"""

from __future__ import annotations

import inspect

from reflex_base.utils.format import format_event_handler
from reflex_components_core.core import _upload

import prettyscore.prettyscore as prettyscore_app
from prettyscore.web.event_arguments import takes_upload
from prettyscore.web.upload_owner import TOKEN_HEADER


def test_reflex_names_the_uploads_tab_by_the_header_we_note():
    source = inspect.getsource(_upload._require_upload_headers)

    assert f'request.headers.get("{TOKEN_HEADER}")' in source


def test_reflex_builds_an_uploads_event_without_router_data_and_streams_until_it_ends():
    source = inspect.getsource(_upload._upload_buffered_file)

    assert "Event(\n            name=handler_name,\n            payload=" in source
    assert "router_data" not in source
    assert "app.event_processor.enqueue_stream_delta(token, event)" in source


def test_no_upload_handler_of_ours_runs_in_the_background():
    handlers = [
        handler
        for state in _all_states(prettyscore_app.app._state)
        for handler in state.event_handlers.values()
        if takes_upload(format_event_handler(handler))
    ]

    assert handlers, "no upload handler found: the walk over the states is wrong"
    assert not [handler for handler in handlers if handler.is_background]


def _all_states(state):
    yield state
    for child in state.get_substates():
        yield from _all_states(child)
