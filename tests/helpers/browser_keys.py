"""What a page does when signing in or out replaced its browser's key
(``prettyscore.web.browser_key``): the server sends it a script that posts a ticket to
``RENEW_PATH``, whose answer sets the new key's cookie. Test clients that stand in for a
page read the ticket from that script."""

from __future__ import annotations

import re

from prettyscore.web.browser_key import RENEW_PATH

_HANDED_TICKET = re.compile(re.escape(RENEW_PATH) + r'".*?body:"([^"]+)"')


def ticket_in(event_name: str, payload: dict) -> str:
    """The ticket a frontend event asks the page to hand over ("" for any other event)."""
    if event_name != "_call_script":
        return ""
    found = _HANDED_TICKET.search(str(payload.get("javascript_code", "")))
    return found.group(1) if found else ""
