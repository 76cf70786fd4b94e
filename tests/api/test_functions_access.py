"""Who may call the server functions, and how: the bearer token only (visitors refused,
aal2 for members with a second factor), track-referral open to visitors with the
partner cookie, unknown names, the OpenAPI description, and the real Supabase functions
client. Both databases."""

from __future__ import annotations

from http.cookies import SimpleCookie

import pytest
from supabase_functions import SyncFunctionsClient
from supabase_functions.errors import FunctionsHttpError

from prettyscore.accounts import service as accounts
from prettyscore.accounts.bearer import INSUFFICIENT_AAL, MISSING_TOKEN
from prettyscore.accounts.models import MfaFactor
from prettyscore.core import messages
from prettyscore.partners import admin_service as partner_admin
from prettyscore.partners import service as partners
from prettyscore.partners.models import PartnerAccount, PartnerStatus
from tests.api.functions_support import astronaut_jpeg, call, data_url, new_member, stored_photo

SIXTY_DAYS = 60 * 24 * 60 * 60
MEMBER_FUNCTIONS = {
    "edit-photo": {"imageUrl": "/media/x", "prompt": "brighter"},
    "check-subscription": {},
    "generate-video": {"imageUrl": "/media/x"},
    "check-video-status": {"taskId": "x"},
    "check-feature-access": {"featureName": "feet_scoring"},
    "record-feature-usage": {"featureName": "feet_scoring"},
    "personality-analysis": {"answers": {}, "quizType": "basic"},
    "create-checkout": {"type": "subscription"},
}


# ---------------------------------------------------------------------------
# Who is calling
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(MEMBER_FUNCTIONS))
def test_a_visitor_is_refused(api, name):
    no_token = call(api, name, **MEMBER_FUNCTIONS[name])
    bad_token = api.post(
        f"/functions/v1/{name}",
        json=MEMBER_FUNCTIONS[name],
        headers={"Authorization": "Bearer not.a.token"},
    )

    assert no_token.status_code == bad_token.status_code == 401
    assert no_token.json() == {
        "code": 401,
        "error_code": "no_authorization",
        "msg": MISSING_TOKEN,
        "error": MISSING_TOKEN,
    }
    assert bad_token.json()["error_code"] == "bad_jwt"


def test_a_signed_out_session_is_refused_at_once(api, db):
    member = new_member(db)
    accounts.sign_out(db, member.token)
    db.commit()

    answer = call(api, "check-subscription", member)

    assert answer.status_code == 401
    assert answer.json()["error_code"] == "bad_jwt"


def test_a_member_with_a_second_factor_must_prove_it(api, db):
    member = new_member(db)
    db.add(MfaFactor(user_id=member.id, factor_type="totp", status="verified"))
    db.commit()

    answer = call(api, "check-subscription", member)

    assert answer.status_code == 403
    assert answer.json()["error_code"] == "insufficient_aal"
    assert answer.json()["msg"] == INSUFFICIENT_AAL


def test_an_unknown_function_is_not_found(api, db):
    member = new_member(db)

    answers = [
        call(api, "no-such-function", member),
        call(api, "no-such-function"),
        api.post(
            "/functions/v1/no-such-function",
            headers={"X-Supabase-Api-Version": "2024-01-01"},
        ),
    ]

    assert [a.status_code for a in answers] == [404] * 3
    assert answers[0].json()["msg"] == answers[1].json()["msg"] == messages.FUNCTION_NOT_FOUND
    assert answers[2].json() == {
        "code": "not_found",
        "message": messages.FUNCTION_NOT_FOUND,
        "error": messages.FUNCTION_NOT_FOUND,
    }


def test_a_malformed_body_is_a_400_in_the_same_shape(api, db):
    member = new_member(db)

    broken = api.post(
        "/functions/v1/edit-photo",
        content=b"{not json",
        headers={**member.headers, "Content-Type": "application/json"},
    )
    missing = call(api, "edit-photo", member, prompt="brighter")

    assert broken.status_code == missing.status_code == 400
    assert broken.json()["error_code"] == missing.json()["error_code"] == "validation_failed"
    assert "imageUrl" in missing.json()["error"]


# ---------------------------------------------------------------------------
# track-referral
# ---------------------------------------------------------------------------
def partner(db, code: str, *, approve: bool) -> PartnerAccount:
    """A member's partner account, approved by an admin when ``approve``."""
    owner = new_member(db, "partner")
    account = partners.apply(db, owner.id, "Anna", code)
    if approve:
        admin = new_member(db, "admin")
        accounts.grant_role(db, admin.email)
        partner_admin.set_partner_status(db, admin.id, account.id, PartnerStatus.APPROVED)
    db.commit()
    return account


def clicks(db, account: PartnerAccount) -> int:
    db.rollback()
    db.expire_all()  # read what the server committed
    return db.get(PartnerAccount, account.id).total_clicks


def test_a_visitor_following_an_approved_partners_link_gets_the_cookie(api, db):
    account = partner(db, "ANNA", approve=True)

    answer = call(api, "track-referral", code="anna")

    assert answer.status_code == 200
    assert answer.json() == {"success": True}
    cookie = SimpleCookie(answer.headers["set-cookie"])["affiliate_code"]
    assert cookie.value == "ANNA"
    assert int(cookie["max-age"]) == SIXTY_DAYS
    assert cookie["path"] == "/"
    assert cookie["samesite"].lower() == "lax"
    assert cookie["httponly"] is True
    assert clicks(db, account) == 1


@pytest.mark.parametrize("code", ["NOBODY", "WAIT", "", "AN-NA"])
def test_any_other_code_is_no_success_and_sets_nothing(api, db, code):
    pending = partner(db, "WAIT", approve=False)

    answer = call(api, "track-referral", code=code)

    assert answer.status_code == 200
    assert answer.json() == {"success": False}
    assert "set-cookie" not in answer.headers
    assert clicks(db, pending) == 0


# ---------------------------------------------------------------------------
# The description, and the Supabase client
# ---------------------------------------------------------------------------
def test_the_openapi_description_documents_every_function(api):
    spec = api.get("/api/openapi.json").json()

    for name in [*MEMBER_FUNCTIONS, "track-referral"]:
        operation = spec["paths"][f"/functions/v1/{name}"]["post"]
        assert operation["tags"] == ["functions"]
        assert "200" in operation["responses"]
        assert ("security" in operation) == (name != "track-referral")
    edit = spec["components"]["schemas"]["EditPhotoRequest"]
    assert set(edit["required"]) == {"imageUrl", "prompt"}
    assert {"editedImageUrl", "editsRemaining"} <= set(
        spec["components"]["schemas"]["EditPhotoResponse"]["properties"]
    )


def test_the_supabase_functions_client_invokes_our_functions(api, api_server, db):
    member, other = new_member(db), new_member(db, "other")
    functions = SyncFunctionsClient(
        url=f"{api_server.url}/functions/v1",
        headers={"Authorization": f"Bearer {member.token}"},
    )

    subscription = functions.invoke("check-subscription", {"responseType": "json"})
    edited = functions.invoke(
        "edit-photo",
        {
            "body": {"imageUrl": data_url(astronaut_jpeg()), "prompt": "Blur background"},
            "responseType": "json",
        },
    )
    with pytest.raises(FunctionsHttpError) as refusal:
        functions.invoke(
            "edit-photo",
            {"body": {"imageUrl": stored_photo(api_server, other), "prompt": "brighter"}},
        )

    assert subscription == {"subscribed": False, "subscription_end": None}
    assert edited["editedImageUrl"].startswith(f"{api_server.url}/media/u/{member.id}/")
    assert edited["editsRemaining"] == 4
    assert (refusal.value.status, refusal.value.message) == (400, messages.PLEASE_UPLOAD_IMAGE_FILE)
