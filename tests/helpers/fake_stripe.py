"""A small stand-in for the Stripe API: a real HTTP server on 127.0.0.1.

Point ``STRIPE_API_BASE`` at ``fake.url`` and the real ``stripe`` library talks to it.
It answers the calls PrettyScore makes, with Stripe-shaped JSON:

- ``POST /v1/checkout/sessions``: a new Checkout session (id ``cs_test_...``, ``url``)
- ``POST /v1/checkout/sessions/{id}/expire``: the session, expired
- ``GET``, ``POST``, ``DELETE /v1/subscriptions/{id}``: the subscription (read, updated,
  cancelled; once cancelled it reads as cancelled)
- ``GET /v1/invoices/{id}``: the invoice, paid by the payment intent ``pi_{id}``
- ``POST /v1/refunds``: a refund of a payment intent

and records every request with its form body flattened as Stripe encodes it
(``line_items[0][price_data][unit_amount]`` → ``"999"``). ``fail_next(status)`` makes the
next call fail; ``omit_url = True`` answers checkouts without a URL.
"""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl

CHECKOUT_HOST = "https://checkout.stripe.test/c/pay/"


@dataclass
class StripeRequest:
    method: str
    path: str
    form: dict[str, str]
    headers: dict[str, str]


class FakeStripe:
    """The server and what it received. Use as a context manager or start()/stop()."""

    def __init__(self) -> None:
        self.requests: list[StripeRequest] = []
        self.omit_url = False
        self.canceled: set[str] = set()  # the paths of subscriptions cancelled here
        self._failures: list[int] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def fail_next(self, status: int = 500) -> None:
        self._failures.append(status)

    def calls(self, path_prefix: str) -> list[StripeRequest]:
        return [r for r in self.requests if r.path.startswith(path_prefix)]

    # -- answers ------------------------------------------------------------------------
    def _checkout_session(self, form: dict[str, str]) -> dict:
        session_id = f"cs_test_fake{next(self._ids):06d}"
        return {
            "id": session_id,
            "object": "checkout.session",
            "mode": form.get("mode"),
            "status": "open",
            "payment_status": "unpaid",
            "client_reference_id": form.get("client_reference_id"),
            "success_url": form.get("success_url"),
            "cancel_url": form.get("cancel_url"),
            "url": None if self.omit_url else CHECKOUT_HOST + session_id,
            "livemode": False,
        }

    def _subscription(self, subscription_id: str, form: dict[str, str]) -> dict:
        return {
            "id": subscription_id,
            "object": "subscription",
            "status": "active",
            "cancel_at_period_end": form.get("cancel_at_period_end") == "true",
            "livemode": False,
        }

    def _refund(self, form: dict[str, str]) -> dict:
        return {
            "id": f"re_test_fake{next(self._ids):06d}",
            "object": "refund",
            "payment_intent": form.get("payment_intent"),
            "status": "succeeded",
        }

    def answer(self, method: str, path: str, form: dict[str, str]) -> tuple[int, dict]:
        with self._lock:
            if self._failures:
                status = self._failures.pop(0)
                return status, {"error": {"type": "api_error", "message": "Stand-in failure"}}
        if method == "POST" and path == "/v1/checkout/sessions":
            return 200, self._checkout_session(form)
        if method == "POST" and path.endswith("/expire"):
            session_id = path.split("/")[-2]
            return 200, {"id": session_id, "object": "checkout.session", "status": "expired"}
        if method == "GET" and path.startswith("/v1/invoices/"):
            invoice_id = path.rsplit("/", 1)[1]
            return 200, {
                "id": invoice_id,
                "object": "invoice",
                "payment_intent": f"pi_{invoice_id}",
            }
        if path.startswith("/v1/subscriptions/"):
            subscription = self._subscription(path.rsplit("/", 1)[1], form)
            if method == "DELETE" or path in self.canceled:
                self.canceled.add(path)
                subscription["status"] = "canceled"
            return 200, subscription
        if method == "POST" and path == "/v1/refunds":
            return 200, self._refund(form)
        return 404, {"error": {"type": "invalid_request_error", "message": "No such route"}}

    # -- server ---------------------------------------------------------------------------
    def start(self) -> FakeStripe:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode() if length else ""
                form = dict(parse_qsl(body, keep_blank_values=True))
                path = self.path.split("?", 1)[0]
                with fake._lock:
                    fake.requests.append(
                        StripeRequest(self.command, path, form, dict(self.headers.items()))
                    )
                status, payload = fake.answer(self.command, path, form)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Request-Id", "req_fake")
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = _handle

            def log_message(self, *args) -> None:  # keep test output quiet
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeStripe:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
