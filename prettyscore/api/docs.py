"""The interactive API page (Swagger UI) at ``/api/docs``, served entirely from this app.

FastAPI's own docs page loads Swagger UI from a CDN; a machine without internet (and a
privacy-minded site) should not depend on that, so the page's script and styles come
from the ``swagger-ui-py`` package's copy, served under ``/api/docs/assets/``.
"""

from __future__ import annotations

from pathlib import Path

import swagger_ui
from fastapi import APIRouter
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, Response

DOCS_URL = "/api/docs"
ASSETS = Path(swagger_ui.__file__).parent / "static"
SERVED_ASSETS = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "favicon-32x32.png": "image/png",
}


def docs_router(openapi_url: str, title: str) -> APIRouter:
    """The page and its assets; left out of the OpenAPI description itself."""
    router = APIRouter(include_in_schema=False)

    @router.get(DOCS_URL)
    def interactive_page() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{title} — interactive documentation",
            swagger_js_url=f"{DOCS_URL}/assets/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_URL}/assets/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_URL}/assets/favicon-32x32.png",
            swagger_ui_parameters={"persistAuthorization": True, "tryItOutEnabled": True},
        )

    @router.get(DOCS_URL + "/assets/{name}")
    def asset(name: str) -> Response:
        if name not in SERVED_ASSETS:
            return Response(status_code=404)
        return FileResponse(
            ASSETS / name,
            media_type=SERVED_ASSETS[name],
            headers={"Cache-Control": "public, max-age=86400"},
        )

    return router
