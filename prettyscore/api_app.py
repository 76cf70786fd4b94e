"""The public REST API: the authentication service and the server functions.

One FastAPI app, mounted around the Reflex app (``rx.App(api_transformer=...)``), so the
same process and port serve the pages and the API. Its routes call the same services as
the pages; this module only assembles them and publishes their OpenAPI description.
"""

from __future__ import annotations

from fastapi import FastAPI

from prettyscore.accounts import mfa_api
from prettyscore.accounts.api import router as auth_router
from prettyscore.api.docs import docs_router
from prettyscore.api.errors import install_error_handlers
from prettyscore.core.errors import NotFound
from prettyscore.functions.api import router as functions_router

OPENAPI_URL = "/api/openapi.json"

DESCRIPTION = """
PrettyScore's backend, callable by the product's own pages, by scripts and by the
Supabase client libraries.

* **Authentication** (`/auth/v1`): compatible with Supabase Auth (GoTrue).
* **Server functions** (`/functions/v1/{name}`): invoked by name with a bearer token.

Errors have GoTrue's shape: `{"code": "<error_code>", "message": "..."}` for clients
that send `X-Supabase-Api-Version: 2024-01-01`, otherwise
`{"code": <status>, "error_code": "...", "msg": "..."}`.
"""


def rest_api() -> FastAPI:
    """The API app with every router registered."""
    api = FastAPI(
        title="PrettyScore API",
        version="1.0.0",
        description=DESCRIPTION,
        openapi_url=OPENAPI_URL,
        docs_url=None,
        redoc_url=None,
    )
    install_error_handlers(api)
    for router in _routers():
        api.include_router(router)
    api.include_router(docs_router(OPENAPI_URL, api.title))
    api.add_api_route(
        "/auth/v1/{unknown:path}",
        _unknown_auth_route,
        methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
        include_in_schema=False,
    )
    return api


async def _unknown_auth_route(unknown: str) -> None:
    """Any other path under /auth/v1: GoTrue's 404, not the pages' "page not found"."""
    raise NotFound("Not Found", code="not_found")


def _routers() -> list:
    """Every area's API router, in the order the documentation lists them."""
    return [auth_router, mfa_api.router, functions_router]
