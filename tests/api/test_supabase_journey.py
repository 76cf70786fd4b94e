"""A member's whole journey through the real Supabase client libraries from PyPI.

``supabase_auth`` and ``supabase_functions`` send exactly what a Supabase app sends and
read our answers with their own models: sign up, sign in, refresh, read the user, enrol
and verify an authenticator (aal2), call check-subscription and edit-photo, fetch the
edited photo with the same token, and sign out, after which the token opens nothing.
"""

from __future__ import annotations

import base64
import io

import httpx
import pytest
from PIL import Image
from skimage import data
from supabase_auth import SyncGoTrueClient
from supabase_functions import SyncFunctionsClient
from supabase_functions.errors import FunctionsHttpError

from prettyscore.core.rate_limits import reset_rate_limits
from tests.fixtures.totp import fresh_code

EMAIL = "journey@example.com"
PASSWORD = "journey-secret-1"


@pytest.fixture
def auth(api):
    reset_rate_limits()
    client = SyncGoTrueClient(url=f"{api.base_url}/auth/v1", auto_refresh_token=False)
    yield client
    client.close()


def _functions(api, access_token: str) -> SyncFunctionsClient:
    return SyncFunctionsClient(
        url=f"{api.base_url}/functions/v1", headers={"Authorization": f"Bearer {access_token}"}
    )


def _photo_data_url() -> str:
    buffer = io.BytesIO()
    Image.fromarray(data.astronaut()).resize((256, 256)).save(buffer, "JPEG", quality=90)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode()


def test_a_member_goes_from_sign_up_to_an_edited_photo_and_signs_out(api, auth):
    signed_up = auth.sign_up({"email": EMAIL, "password": PASSWORD})
    auth.sign_out()
    signed_in = auth.sign_in_with_password({"email": EMAIL, "password": PASSWORD})
    first_refresh = signed_in.session.refresh_token
    refreshed = auth.refresh_session()
    user = auth.get_user().user

    factor = auth.mfa.enroll({"factor_type": "totp", "friendly_name": "Phone"})
    auth.mfa.challenge_and_verify({"factor_id": factor.id, "code": fresh_code(factor.totp.secret)})
    level = auth.mfa.get_authenticator_assurance_level()
    token = auth.get_session().access_token

    functions = _functions(api, token)
    subscription = functions.invoke("check-subscription", {"responseType": "json"})
    edited = functions.invoke(
        "edit-photo",
        {
            "body": {"imageUrl": _photo_data_url(), "prompt": "Make it brighter"},
            "responseType": "json",
        },
    )
    edited_photo = httpx.get(edited["editedImageUrl"], headers={"Authorization": f"Bearer {token}"})

    auth.sign_out()
    with pytest.raises(FunctionsHttpError):
        _functions(api, token).invoke("check-subscription", {"responseType": "json"})

    assert signed_up.user.email == EMAIL and signed_up.session is not None
    assert refreshed.session.refresh_token != first_refresh
    assert user.email == EMAIL
    assert level.current_level == "aal2"
    assert subscription == {"subscribed": False, "subscription_end": None}
    assert edited_photo.status_code == 200
    assert edited_photo.headers["content-type"] == "image/jpeg"
    assert Image.open(io.BytesIO(edited_photo.content)).size == (256, 256)
