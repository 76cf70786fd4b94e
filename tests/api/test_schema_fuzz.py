"""The API's own OpenAPI description, fuzzed: no request, however odd, makes it fail.

Schemathesis turns every operation of the description into a Hypothesis strategy of
requests, both valid ones (bodies and parameters as documented) and invalid ones (each
rule broken on purpose). Each request is sent over HTTP to the running API twice: with
what was generated (a visitor, or a random bearer token) and with a member's real bearer
token. Every answer must be deliberate: a success or a 4xx in GoTrue's error shape,
never a 500.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from sqlmodel import Session

from prettyscore.accounts import service
from prettyscore.api_app import rest_api

#: Examples per operation and mode; enough to reach odd corners, bounded in time.
EXAMPLES = 20

SCHEMA = schemathesis.openapi.from_dict(rest_api().openapi())
OPERATIONS = sorted(
    (operation.path, operation.method.upper())
    for operation in (result.ok() for result in SCHEMA.get_all_operations())
)


@pytest.fixture
def member_headers(api, db_engine) -> dict[str, str]:
    """A signed-in member's bearer header (a new member for every operation)."""
    with Session(db_engine) as db:
        signed_in = service.sign_up(db, "fuzz.member@example.com", "fuzz-secret-1")
        db.commit()
    return {"Authorization": f"Bearer {signed_in.access_token}"}


def _explain(response) -> str:
    request = response.request
    return f"{request.method} {request.url} -> {response.status_code}: {response.text[:300]}"


def _check(response) -> None:
    assert response.status_code < 500, _explain(response)
    if response.status_code >= 400 and response.content:
        body = response.json()
        shaped = {"code", "msg"} <= set(body) or {"code", "message"} <= set(body)
        assert shaped, _explain(response)


def test_every_route_is_described():
    paths = {path for path, _ in OPERATIONS}
    assert any(path.startswith("/auth/v1/") for path in paths)
    assert any(path.startswith("/functions/v1/") for path in paths)


@pytest.mark.parametrize("mode", list(GenerationMode), ids=lambda mode: mode.value)
@pytest.mark.parametrize(("path", "method"), OPERATIONS)
def test_no_request_makes_the_api_fail(api_server, member_headers, path, method, mode):
    operation = SCHEMA[path][method]

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    @given(case=operation.as_strategy(generation_mode=mode), as_member=st.booleans())
    def send(case, as_member):
        headers = member_headers if as_member else None
        _check(case.call(base_url=api_server.url, headers=headers, timeout=30))

    try:
        send()
    except Unsatisfiable:
        # No parameter or body to break (e.g. GET /auth/v1/health): nothing negative exists.
        pytest.skip(f"{method} {path} takes nothing that could be sent wrong")
