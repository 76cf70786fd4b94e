"""Every page lives at an address named in ``core.routes`` and has a tab title of one form.

A link written as a bare string would break silently when its page moved; the browser tab
(and a shared link's preview) should read "<page> | PrettyScore" on every page alike.
"""

from __future__ import annotations

import prettyscore.prettyscore as prettyscore_app
from prettyscore.core import messages, routes

NAMED_ADDRESSES = {
    value for name, value in vars(routes).items() if name.isupper() and isinstance(value, str)
}


def registered_pages() -> dict[str, object]:
    return dict(prettyscore_app.app._unevaluated_pages)


def as_address(route_key: str) -> str:
    """Reflex's key for a page ("index", "partners/apply") as the address a link uses."""
    return routes.HOME if route_key == "index" else f"/{route_key}"


def test_every_page_is_at_a_named_address():
    with_a_parameter = {routes.chat("[chat_request_id]"), routes.shared_score("[share_token]")}
    unnamed = {
        as_address(key)
        for key in registered_pages()
        if key != "404" and as_address(key) not in NAMED_ADDRESSES | with_a_parameter
    }
    assert unnamed == set()


def test_every_named_address_has_a_page():
    pages = {as_address(key) for key in registered_pages()}
    assert NAMED_ADDRESSES - pages == set()


def test_every_tab_title_names_the_page_then_the_product():
    suffix = f" | {messages.APP_NAME}"
    for key, page in registered_pages().items():
        heading = page.title.removesuffix(suffix)
        assert page.title.endswith(suffix) and heading.strip(), (key, page.title)
        assert messages.page_title(heading) == page.title
