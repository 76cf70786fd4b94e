"""``POST /api/stripe/webhook``: Stripe's signed events, the only way payments are fulfilled.

The raw body is checked against ``STRIPE_WEBHOOK_SECRET`` (signature and a timestamp no
older than five minutes) before anything is read from it: a bad or stale signature gets
400 and changes nothing. A valid event is applied once (``webhooks.receive_event``); a
replay gets 200 as well, so Stripe stops resending it. A failure while applying gets
500, nothing of the event is kept, and Stripe retries later.
Mount with ``Starlette(routes=billing_routes())`` through ``rx.App(api_transformer=...)``.
"""

from __future__ import annotations

import json
import logging

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from prettyscore.api.bodies import BodyTooLarge, read_body
from prettyscore.billing import stripe_client, webhooks

log = logging.getLogger(__name__)

WEBHOOK_PATH = "/api/stripe/webhook"
#: Stripe's events are a few kilobytes; anything far larger is not one of them.
MAX_EVENT_BYTES = 512 * 1024


def billing_routes() -> list[Route]:
    """The payment routes, to mount on the backend's Starlette app."""
    return [Route(WEBHOOK_PATH, stripe_webhook, methods=["POST"])]


def _bad_request(reason: str) -> Response:
    return JSONResponse({"error": reason}, status_code=400)


def _parse_event(payload: bytes) -> dict | None:
    """The event in a verified body, if it has the fields every event has."""
    try:
        event = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(event, dict) or not event.get("id") or not event.get("type"):
        return None
    data = event.get("data")
    if not isinstance(data, dict) or not isinstance(data.get("object"), dict):
        return None
    return event


async def stripe_webhook(request: Request) -> Response:
    """Verify, then apply the event once; 200 for new and replayed events alike."""
    try:
        await read_body(request, MAX_EVENT_BYTES)  # cut off while it arrives
    except BodyTooLarge:
        return _bad_request("payload too large")
    payload = await request.body()
    try:
        stripe_client.verify_webhook(payload, request.headers.get("stripe-signature"))
    except stripe_client.InvalidWebhook as error:
        log.warning("Rejected a webhook: %s", error)
        return _bad_request("invalid signature")
    event = _parse_event(payload)
    if event is None:
        return _bad_request("not an event")
    try:
        applied = await anyio.to_thread.run_sync(webhooks.receive_event, event)
    except Exception:
        log.exception("Failed to apply payment event %s (%s)", event["id"], event["type"])
        return JSONResponse({"error": "not processed"}, status_code=500)
    return JSONResponse({"received": True, "duplicate": not applied})
