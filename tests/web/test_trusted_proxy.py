"""Behind the reverse proxy, each client is counted at its own address, and nobody else's
X-Forwarded-For is believed.

The real backend (Granian, as production serves it) trusts the proxy's address
(``FORWARDED_ALLOW_IPS=127.0.0.1``); a real reverse proxy on 127.0.0.1
(``tests/helpers/forwarding_proxy.py``, which appends each client's address as nginx
does) stands in front of it. The clients connect from loopback addresses of their own,
drawn afresh for each run (127.0.0.0/8 is all this machine's), to the proxy or straight to
the app. A stranger's wrong passwords, sent with a forged header naming the owner's
address, make only the stranger wait: on the REST API and on the pages' websocket, with
the sign-in limits as deployed (5 wrong passwords per email and address a minute).
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator

import httpx
import pytest
from reflex_base.utils.format import format_event_handler

from prettyscore.accounts.form_state import AuthFormState
from prettyscore.core import messages, routes
from prettyscore.web.browser_key import BROWSER_COOKIE
from prettyscore.web.client_address import TrustedProxies, client_behind, forwarded_hops
from tests.helpers.app_server import AppServer
from tests.helpers.auth_api import PASSWORD, sign_in, sign_up
from tests.helpers.backend_server import SERVERS, backing_services, running_backend
from tests.helpers.event_socket_client import EventSocket
from tests.helpers.forwarding_proxy import ForwardingProxy, forwarding_proxy

# One test process starts the two servers for the whole file.
pytestmark = pytest.mark.xdist_group("web_trusted_proxy")

PROXY_ADDRESS = "127.0.0.1"
WRONG_PASSWORDS_BEFORE_A_WAIT = 5  # the default RATE_LIMIT_SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS
SIGN_IN = format_event_handler(AuthFormState.event_handlers["submit_sign_in"])


@pytest.fixture(scope="module", params=SERVERS)
def behind_proxy(request, tmp_path_factory) -> Iterator[tuple[AppServer, ForwardingProxy]]:
    """The backend trusting the proxy's address, and the proxy in front of it."""
    run_dir = tmp_path_factory.mktemp(f"proxied-{request.param}")
    with (
        backing_services(request, request.param) as (database_url, redis),
        running_backend(
            request.param,
            run_dir,
            database_url=database_url,
            redis_url=redis,
            extra_env={"FORWARDED_ALLOW_IPS": PROXY_ADDRESS},
        ) as server,
        forwarding_proxy(server.port) as proxy,
    ):
        yield server, proxy


def loopback_addresses(count: int) -> list[str]:
    """Distinct addresses of this machine, none of them the proxy's."""
    found: set[str] = set()
    while len(found) < count:
        second, third, fourth = (secrets.randbelow(250) + 1 for _ in range(3))
        found.add(f"127.{second}.{third}.{fourth}")
    return sorted(found)


def client_at(address: str, base_url: str, **headers: str) -> httpx.Client:
    """An HTTP client connecting from ``address``."""
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=base_url, transport=transport, headers=headers, timeout=30)


def tab_at(address: str, base_url: str, **headers: str) -> EventSocket:
    """A page's event socket connecting from ``address``, in a browser of its own."""
    cookie = f"{BROWSER_COOKIE}={secrets.token_urlsafe(16)}"
    extra = [(name.replace("_", "-").encode(), value.encode()) for name, value in headers.items()]
    return EventSocket(base_url, source=address, cookie=cookie, headers=extra)


def new_member(proxy: ForwardingProxy, address: str) -> str:
    email = f"member-{uuid.uuid4().hex[:12]}@example.com"
    with client_at(address, proxy.url) as api:
        sign_up(api, email)
    return email


def test_the_api_counts_each_client_behind_the_proxy_and_believes_no_forged_header(
    behind_proxy,
):
    server, proxy = behind_proxy
    owner, stranger, forger = loopback_addresses(3)
    email = new_member(proxy, owner)
    claims_to_be_the_owner = {"X-Forwarded-For": owner}

    for base_url, address in [(proxy.url, stranger), (server.base_url, forger)]:
        with client_at(address, base_url, **claims_to_be_the_owner) as api:
            failures = [sign_in(api, email, "wrong password") for _ in range(5)]
            assert [answer.status_code for answer in failures] == [400] * 5
            assert sign_in(api, email).status_code == 429  # only this address waits

    with client_at(owner, proxy.url) as api:
        assert sign_in(api, email).status_code == 200


def test_the_pages_count_each_client_behind_the_proxy_and_believe_no_forged_header(
    behind_proxy,
):
    server, proxy = behind_proxy
    owner, stranger, forger = loopback_addresses(3)
    email = new_member(proxy, owner)
    wrong = {"form": {"email": email, "password": "wrong password"}}
    right = {"form": {"email": email, "password": PASSWORD}}

    for base_url, address in [(proxy.url, stranger), (server.base_url, forger)]:
        with tab_at(address, base_url, x_forwarded_for=owner) as tab:
            for _ in range(WRONG_PASSWORDS_BEFORE_A_WAIT):
                tab.send(SIGN_IN, wrong, routes.AUTH)
                assert tab.toast() == ("error", messages.INVALID_CREDENTIALS)
            tab.send(SIGN_IN, right, routes.AUTH)
            kind, text = tab.toast()
            assert kind == "error" and text.startswith("Too many attempts"), text

    with tab_at(owner, proxy.url) as tab:
        tab.send(SIGN_IN, right, routes.AUTH)
        assert tab.toast() == ("success", messages.WELCOME_BACK)


@pytest.mark.parametrize(
    "peer, forwarded_for, client",
    [
        ("203.0.113.9", ["198.51.100.1"], "203.0.113.9"),  # not a proxy: its header is ignored
        ("127.0.0.1", ["198.51.100.1, 203.0.113.9"], "203.0.113.9"),  # what the proxy appended
        ("127.0.0.1", ["198.51.100.1", "203.0.113.9, 10.1.2.3"], "203.0.113.9"),  # two proxies
        ("127.0.0.1", [], "127.0.0.1"),  # the proxy's own request
    ],
)
def test_the_client_is_the_rightmost_address_that_no_trusted_proxy_is(peer, forwarded_for, client):
    trusted = TrustedProxies.parse("127.0.0.1, 10.0.0.0/8")
    assert client_behind(peer, forwarded_hops(forwarded_for), trusted) == client


def test_a_trusted_proxy_that_is_no_address_stops_the_app_at_start_up():
    with pytest.raises(ValueError):
        TrustedProxies.parse("127.0.0.1, proxy.internal")
