"""The authorisation matrix of the HTTP routes: the REST API (``rest_api().routes``) and
the Starlette routes mounted beside it (stored media, Stripe's webhook, referral links).

Every route is enumerated from the apps and must be classified here; the routes that
serve one member's things are called by a visitor and by a stranger with the member's
ids, and refuse them without changing anything.
"""

from __future__ import annotations

import pytest

from prettyscore.api_app import rest_api
from prettyscore.billing.api import billing_routes
from prettyscore.core.media import LocalMediaStore
from prettyscore.partners.api import partner_routes
from prettyscore.photos.media_api import media_routes
from tests.security.authorisation_world import World, build_world, changed_tables, snapshot

PUBLIC, BEARER, SIGNED = "public", "bearer", "signed"

#: (methods, path) -> who may call it. PUBLIC: anyone (auth endpoints, docs, referral
#: links; media decides per file); BEARER: a member's access token; SIGNED: a Stripe
#: signature, no user at all.
ROUTES: dict[tuple[str, str], str] = {
    ("GET,HEAD", "/api/openapi.json"): PUBLIC,
    ("GET", "/api/docs"): PUBLIC,
    ("GET", "/api/docs/assets/{name}"): PUBLIC,
    ("GET", "/auth/v1/health"): PUBLIC,
    ("GET", "/auth/v1/settings"): PUBLIC,
    ("GET", "/auth/v1/.well-known/jwks.json"): PUBLIC,
    ("POST", "/auth/v1/signup"): PUBLIC,
    ("POST", "/auth/v1/token"): PUBLIC,
    ("POST", "/auth/v1/logout"): BEARER,
    ("GET", "/auth/v1/user"): BEARER,
    ("PUT", "/auth/v1/user"): BEARER,
    ("POST", "/auth/v1/recover"): PUBLIC,
    ("POST", "/auth/v1/otp"): PUBLIC,
    ("POST", "/auth/v1/resend"): PUBLIC,
    ("GET", "/auth/v1/reauthenticate"): BEARER,
    ("POST", "/auth/v1/verify"): PUBLIC,
    ("GET", "/auth/v1/verify"): PUBLIC,
    ("GET", "/auth/v1/authorize"): PUBLIC,
    ("POST", "/auth/v1/sso"): PUBLIC,
    ("GET", "/auth/v1/user/identities/authorize"): BEARER,
    ("DELETE", "/auth/v1/user/identities/{identity_id}"): BEARER,
    ("POST", "/auth/v1/factors"): BEARER,
    ("POST", "/auth/v1/factors/{factor_id}/challenge"): BEARER,
    ("POST", "/auth/v1/factors/{factor_id}/verify"): BEARER,
    ("DELETE", "/auth/v1/factors/{factor_id}"): BEARER,
    ("DELETE,GET,PATCH,POST,PUT", "/auth/v1/{unknown:path}"): PUBLIC,
    ("POST", "/functions/v1/edit-photo"): BEARER,
    ("POST", "/functions/v1/generate-video"): BEARER,
    ("POST", "/functions/v1/check-video-status"): BEARER,
    ("POST", "/functions/v1/check-subscription"): BEARER,
    ("POST", "/functions/v1/check-feature-access"): BEARER,
    ("POST", "/functions/v1/record-feature-usage"): BEARER,
    ("POST", "/functions/v1/personality-analysis"): BEARER,
    ("POST", "/functions/v1/create-checkout"): BEARER,
    ("POST", "/functions/v1/track-referral"): PUBLIC,
    ("POST", "/functions/v1/{name}"): PUBLIC,  # unknown function: 404 for anyone
    ("GET,HEAD", "/media/{key:path}"): PUBLIC,
    ("POST", "/api/stripe/webhook"): SIGNED,
    ("GET,HEAD", "/r/{code}"): PUBLIC,
    ("GET,HEAD", "/r/{code}/"): PUBLIC,
}

BEARER_BODIES = {
    "/functions/v1/check-video-status": {"taskId": "x"},
    "/functions/v1/check-feature-access": {"feature": "feet_scoring"},
}


def _flatten(routes):
    for route in routes:
        if hasattr(route, "effective_candidates"):  # FastAPI's included routers
            yield from _flatten(route.effective_candidates())
        else:
            yield route


def enumerated_routes() -> set[tuple[str, str]]:
    every = list(_flatten(rest_api().routes)) + media_routes() + billing_routes()
    every += partner_routes()
    return {(",".join(sorted(route.methods or [])), route.path) for route in every}


def test_every_http_route_is_in_the_access_table():
    found, table = enumerated_routes(), set(ROUTES)
    assert sorted(found - table) == [], "classify these routes"
    assert sorted(table - found) == [], "these routes no longer exist"


@pytest.fixture
def world(api, api_server, db) -> World:
    return build_world(db, LocalMediaStore(api_server.media_dir))


def _concrete(path: str) -> str:
    return path.replace("{identity_id}", "x").replace("{factor_id}", "x")


def test_every_bearer_route_refuses_a_visitor_and_changes_nothing(api, db, world):
    before = snapshot(db)
    bearer = [key for key, access in ROUTES.items() if access == BEARER]
    for methods, path in bearer:
        method = methods.split(",")[0]
        body = BEARER_BODIES.get(path, {})
        kwargs = {} if method in ("GET", "DELETE") else {"json": body}
        answer = api.request(method, _concrete(path), **kwargs)
        assert answer.status_code in (401, 403), (method, path, answer.text)
    assert changed_tables(before, snapshot(db)) == []


def test_the_webhook_refuses_an_unsigned_event(api, db, world):
    before = snapshot(db)
    event = {"type": "checkout.session.completed", "data": {"object": {}}}
    answer = api.post("/api/stripe/webhook", json=event)
    assert answer.status_code == 400
    assert changed_tables(before, snapshot(db)) == []


def test_a_members_private_photo_is_served_to_them_only(api, world):
    url = f"/media/{world.photo_key}"
    assert api.get(url, headers=world.member.headers).status_code == 200
    for actor in (world.visitor, world.stranger, world.admin, world.premium):
        answer = api.get(url, headers=actor.headers)
        assert answer.status_code == 404, (actor.name, answer.status_code)


def test_a_stranger_cannot_follow_another_members_video(api, db, world):
    body = {"taskId": world.video_id}
    mine = api.post("/functions/v1/check-video-status", json=body, headers=world.member.headers)
    assert mine.status_code == 200 and mine.json()["status"] == "completed"
    theirs = api.post("/functions/v1/check-video-status", json=body, headers=world.stranger.headers)
    assert theirs.status_code == 404
    assert world.photo_key not in theirs.text


def test_create_checkout_for_someone_elses_user_id_is_refused(api, db, world):
    before = snapshot(db)
    body = {"type": "subscription", "userId": str(world.member.user_id)}
    answer = api.post("/functions/v1/create-checkout", json=body, headers=world.stranger.headers)
    assert 400 <= answer.status_code < 500 and answer.status_code != 422, answer.text
    assert changed_tables(before, snapshot(db)) == []


def test_edit_photo_of_another_members_file_is_refused(api, db, world):
    before = snapshot(db)
    body = {"imageUrl": f"/media/{world.photo_key}", "prompt": "brighter"}
    answer = api.post("/functions/v1/edit-photo", json=body, headers=world.stranger.headers)
    assert 400 <= answer.status_code < 500 and answer.status_code != 422, answer.text
    assert changed_tables(before, snapshot(db)) == []
