"""Pages paint before their JavaScript is fetched.

Every page is prerendered: its HTML and the stylesheet are all the first paint needs. But
the build's head also asks for all of the page's JavaScript at once (a ``modulepreload``
link per chunk, ~216 KB compressed on Home) and starts it with a module script, so on a
slow connection the scripts share the bandwidth with the stylesheet and the first paint
waits for both. After the build this plugin rewrites each page so that the same links and
the same module script are added by a small inline script once the page has painted (or
at once in a tab that is not shown, where nothing paints). The app then starts exactly as
before, one frame later.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import reflex as rx

_PRELOAD = re.compile(r'<link rel="modulepreload" href="([^"]+)"\s*/>')
_BOOTSTRAP = re.compile(r'<script type="module" async="">(.*?)</script>', re.S)

_STARTER = """<script>(function(){var started=false;function start(){if(started)return;\
started=true;HREFS.forEach(function(href){var link=document.createElement("link");\
link.rel="modulepreload";link.href=href;document.head.appendChild(link);});\
var script=document.createElement("script");script.type="module";script.textContent=BODY;\
document.body.appendChild(script);}\
if(document.visibilityState==="hidden"){start();return;}\
requestAnimationFrame(function(){setTimeout(start,0);});})();</script>"""


def _script_literal(value: Any) -> str:
    """``value`` as a JavaScript literal that is safe inside an HTML script element: every
    ``<`` escaped, so no ``</script>`` or ``<!--`` in it can end or hide the element."""
    return json.dumps(value).replace("<", "\\u003c")


def paint_first(html: str) -> str:
    """The page with its module preloads and bootstrap script started after first paint;
    a page without a module bootstrap script is returned unchanged."""
    bootstrap = _BOOTSTRAP.search(html)
    if bootstrap is None:
        return html
    hrefs = _PRELOAD.findall(html)
    starter = _STARTER.replace("HREFS", _script_literal(hrefs)).replace(
        "BODY", _script_literal(bootstrap.group(1))
    )
    html = html[: bootstrap.start()] + starter + html[bootstrap.end() :]
    return _PRELOAD.sub("", html)


class PaintFirstPlugin(rx.plugins.Plugin):
    """Rewrites the built pages with :func:`paint_first` (after ``reflex export``'s
    build, before the files are compressed)."""

    def post_build(self, **context: Any) -> None:
        static_dir: Path = context["static_dir"]
        for page in static_dir.rglob("*.html"):
            text = page.read_text(encoding="utf-8")
            rewritten = paint_first(text)
            if rewritten != text:
                page.write_text(rewritten, encoding="utf-8")
