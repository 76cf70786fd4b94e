"""Pages paint before their JavaScript is fetched.

Every page is prerendered: its HTML and the stylesheet are all the first paint needs. But
the build's head also asks for all of the page's JavaScript at once (a ``modulepreload``
link per chunk, ~216 KB compressed on Home) and starts it with a module script, so on a
slow connection the scripts share the bandwidth with the stylesheet and the first paint
waits for both. After the build this plugin rewrites each page so that the same links and
the same module script are added by a small inline script once the page has painted (or
at once in a tab that is not shown, where nothing paints). The app then starts exactly as
before, one frame later.

The prerendered body also holds each component's styles, as ``<style data-emotion>``
elements beside the markup. The first thing the app's style library (Emotion) does when
it starts is move every one of them into the head, one DOM move each, before React can
hydrate the page: a long task on a slow phone. The plugin moves them there in the built
file instead, marked as already moved (``data-s``), in the same order; the library then
finds nothing to move and takes them over as they are.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import reflex as rx

_PRELOAD = re.compile(r'<link rel="modulepreload" href="([^"]+)"\s*/>')
_BOOTSTRAP = re.compile(r'<script type="module" async="">(.*?)</script>', re.S)

# The links are added a few per task, then the module script in a task of its own: each
# link starts a fetch, and thirty of them at once are a long task on a slow phone.
_STARTER = """<script>(function(){var started=false,hrefs=HREFS;\
function boot(){var script=document.createElement("script");script.type="module";\
script.textContent=BODY;document.body.appendChild(script);}\
function add(from){var to=Math.min(from+LINKS_PER_TASK,hrefs.length);\
for(var i=from;i<to;i++){var link=document.createElement("link");\
link.rel="modulepreload";link.href=hrefs[i];document.head.appendChild(link);}\
setTimeout(to<hrefs.length?function(){add(to);}:boot,0);}\
function start(){if(started)return;started=true;add(0);}\
if(document.visibilityState==="hidden"){start();return;}\
requestAnimationFrame(function(){setTimeout(start,0);});})();</script>"""
LINKS_PER_TASK = 6


def _script_literal(value: Any) -> str:
    """``value`` as a JavaScript literal that is safe inside an HTML script element: every
    ``<`` escaped, so no ``</script>`` or ``<!--`` in it can end or hide the element."""
    return json.dumps(value).replace("<", "\\u003c")


_EMOTION_STYLE = re.compile(r'<style data-emotion="(css [^"]*)">(.*?)</style>', re.S)


def styles_in_head(html: str) -> str:
    """The page with the component styles of its body moved to the end of its head, as
    Emotion would move them at start-up (and marked ``data-s`` as it marks them)."""
    head_end = html.find("</head>")
    if head_end < 0:
        return html
    head, body = html[:head_end], html[head_end:]
    moved = [
        f'<style data-emotion="{ids}" data-s="">{css}</style>'
        for ids, css in (found.groups() for found in _EMOTION_STYLE.finditer(body))
    ]
    if not moved:
        return html
    return head + "".join(moved) + _EMOTION_STYLE.sub("", body)


def paint_first(html: str) -> str:
    """The page with its module preloads and bootstrap script started after first paint;
    a page without a module bootstrap script is returned unchanged."""
    bootstrap = _BOOTSTRAP.search(html)
    if bootstrap is None:
        return html
    hrefs = _PRELOAD.findall(html)
    starter = (
        _STARTER.replace("LINKS_PER_TASK", str(LINKS_PER_TASK))
        .replace("HREFS", _script_literal(hrefs))
        .replace("BODY", _script_literal(bootstrap.group(1)))
    )
    html = html[: bootstrap.start()] + starter + html[bootstrap.end() :]
    return _PRELOAD.sub("", html)


class PaintFirstPlugin(rx.plugins.Plugin):
    """Rewrites the built pages with :func:`styles_in_head` and :func:`paint_first`
    (after ``reflex export``'s build, before the files are compressed)."""

    def post_build(self, **context: Any) -> None:
        static_dir: Path = context["static_dir"]
        for page in static_dir.rglob("*.html"):
            text = page.read_text(encoding="utf-8")
            rewritten = paint_first(styles_in_head(text))
            if rewritten != text:
                page.write_text(rewritten, encoding="utf-8")
