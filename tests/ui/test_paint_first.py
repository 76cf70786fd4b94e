"""Built pages start their JavaScript after the first paint, with the same links and the
same bootstrap the build wrote."""

from __future__ import annotations

import json
import re

from prettyscore.ui.paint_first import paint_first, styles_in_head

BOOTSTRAP = (
    'import "/assets/manifest-1.js";\n'
    'import * as route0 from "/assets/root-2.js";\n'
    'window.__reactRouterRouteModules = {"root":route0};\n'
    'import("/assets/entry.client-3.js");'
)
BUILT_PAGE = (
    '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/>'
    '<link as="style" href="/assets/styles-4.css" rel="preload"/>'
    '<link rel="modulepreload" href="/assets/manifest-1.js"/>'
    '<link rel="modulepreload" href="/assets/entry.client-3.js"/>'
    '<script>window.theme = "light";</script>'
    f'<script type="module" async="">{BOOTSTRAP}</script></head>'
    "<body><h1>Discover your beauty score</h1></body></html>"
)


def _started_with(page: str) -> tuple[list[str], str]:
    """The hrefs and the module source the inline starter adds after the paint."""
    starter = re.search(r"<script>\(function\(\)\{.*?</script>", page, re.S).group(0)
    literals = re.findall(r'(\[".*?"\]|"(?:[^"\\]|\\.)*")', starter)
    hrefs = json.loads(next(item for item in literals if item.startswith("[")))
    body = json.loads(max((item for item in literals if not item.startswith("[")), key=len))
    return hrefs, body


def test_the_page_paints_before_any_script_is_fetched():
    page = paint_first(BUILT_PAGE)
    assert '<link rel="modulepreload"' not in page
    assert '<script type="module"' not in page
    assert "requestAnimationFrame" in page and 'visibilityState==="hidden"' in page
    # What the first paint needs is untouched: the stylesheet, inline scripts, the content.
    for kept in ('href="/assets/styles-4.css"', 'window.theme = "light"', "beauty score"):
        assert kept in page


def test_after_the_paint_the_same_links_and_bootstrap_are_added():
    hrefs, body = _started_with(paint_first(BUILT_PAGE))
    assert hrefs == ["/assets/manifest-1.js", "/assets/entry.client-3.js"]
    assert body == BOOTSTRAP


def test_markup_in_the_bootstrap_stays_inside_the_starter():
    """The bootstrap travels as a string literal: "</" and "<!--" in it are escaped, so
    the HTML parser cannot end or comment out the starter script."""
    source = BUILT_PAGE.replace("window.__react", "'</p><!--';window.__react")
    page = paint_first(source)
    starter = page[page.index("<script>(function") :]
    assert "</p>" not in starter and "<!--" not in starter
    assert "'</p><!--';" in _started_with(page)[1]


def test_a_page_without_a_module_bootstrap_is_left_as_it_is():
    plain = "<html><head><title>404</title></head><body>Not found</body></html>"
    assert paint_first(plain) == plain


STYLED_PAGE = (
    "<html><head><title>Home</title>"
    '<link href="/assets/styles-4.css" rel="stylesheet"/></head><body>'
    '<style data-emotion="css a1">.css-a1{color:pink;}</style><div class="css-a1">one</div>'
    '<style data-emotion="css b2 c3">.css-b2{margin:0;}.css-c3{padding:0;}</style>'
    '<p class="css-b2 css-c3">two</p><style>.plain{}</style></body></html>'
)


def test_component_styles_are_in_the_head_in_order_marked_as_moved():
    page = styles_in_head(STYLED_PAGE)
    head, body = page.split("</head>")
    assert head.endswith(
        '<link href="/assets/styles-4.css" rel="stylesheet"/>'
        '<style data-emotion="css a1" data-s="">.css-a1{color:pink;}</style>'
        '<style data-emotion="css b2 c3" data-s="">.css-b2{margin:0;}.css-c3{padding:0;}</style>'
    )
    assert "data-emotion" not in body
    # The content and any other style stay where they were.
    assert body == (
        '<body><div class="css-a1">one</div><p class="css-b2 css-c3">two</p>'
        "<style>.plain{}</style></body></html>"
    )


def test_a_page_without_component_styles_is_left_as_it_is():
    plain = "<html><head><title>404</title></head><body>Not found</body></html>"
    assert styles_in_head(plain) == plain
