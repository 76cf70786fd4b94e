"""The API app itself: its OpenAPI description and its error shape for unknown routes."""

from __future__ import annotations


def test_the_openapi_description_is_served(api):
    answer = api.get("/api/openapi.json")

    assert answer.status_code == 200
    assert answer.json()["info"]["title"] == "PrettyScore API"


def test_an_error_speaks_the_shape_the_client_asked_for(api):
    legacy = api.get("/auth/v1/no-such-route")
    current = api.get("/auth/v1/no-such-route", headers={"X-Supabase-Api-Version": "2024-01-01"})

    assert legacy.status_code == current.status_code == 404
    assert legacy.json() == {"code": 404, "error_code": "not_found", "msg": "Not Found"}
    assert current.json() == {"code": "not_found", "message": "Not Found"}
    assert current.headers["X-Supabase-Api-Version"] == "2024-01-01"


def test_the_interactive_page_loads_its_script_and_styles_from_this_app(api):
    page = api.get("/api/docs")

    assert page.status_code == 200
    assert "/api/openapi.json" in page.text
    for asset in ("/api/docs/assets/swagger-ui-bundle.js", "/api/docs/assets/swagger-ui.css"):
        assert asset in page.text
        assert api.get(asset).status_code == 200
    assert "cdn" not in page.text.lower()
    assert api.get("/api/docs/assets/..%2Fswagger_ui%2F__init__.py").status_code == 404
