"""A page's lead photo, shown from the first paint instead of after the app has loaded.

Results and My Photos can show a photo only once the app's JavaScript has loaded, its
websocket has connected and the tab's state has arrived: on a slow phone, seconds after
the page itself painted. Their loading views therefore hold a hidden frame with an
``<img>`` that is filled before any of that, and shown:

- by the server, as it serves the page (``fill``): My Photos, with the newest photo of the
  member whose session cookies came with the request (``photos.early``);
- by the tab itself: Results, whose photo belongs to one tab's state, which the request
  does not name. The page remembers its photo in the tab's sessionStorage when it shows
  it (``remember``), and an inline script right after the frame fills it on the tab's
  next load of the page, before the app's scripts have even been fetched.

React does not compare attributes when it hydrates prerendered markup in production, so
a filled frame keeps its photo until the app replaces the loading view with the page's
content. A frame nobody fills stays hidden; an address that no longer loads (a photo
deleted since, a visitor's photo purged) hides it again.
"""

from __future__ import annotations

import html
import json
import re

import reflex as rx

ATTRIBUTE = "data-early-photo"
STORAGE_PREFIX = "ps-early-photo:"
#: Only our own stored photos are shown (what a tab remembered is checked again on load).
MEDIA_PREFIX = "/media/"

# Fills the frame just before it, from what this tab remembered for the page. Written
# without <, > and & so that it reads the same as markup text and as script.
_FROM_TAB = (
    "(function(){{var box=document.currentScript.previousElementSibling,url=null;"
    "try{{url=sessionStorage.getItem({key})}}catch(e){{}}"
    "if(!url||url.indexOf({prefix})!==0)return;"
    'var img=box.getElementsByTagName("img")[0];'
    "img.onerror=function(){{box.hidden=true}};img.src=url;box.hidden=false}})()"
)


def frame(slot: str, *, alt: str, from_tab: bool = False, **frame_props) -> rx.Component:
    """The hidden frame of ``slot``'s early photo; ``from_tab`` adds the inline script
    that fills it from the tab's sessionStorage. ``frame_props`` style the frame."""
    box = rx.box(
        rx.el.img(
            alt=alt,
            custom_attrs={"fetchpriority": "high"},
            style={
                "width": "100%",
                "height": "100%",
                "object_fit": "cover",
                "border_radius": "inherit",
                "display": "block",
            },
        ),
        custom_attrs={ATTRIBUTE: slot, "hidden": True},
        **frame_props,
    )
    if not from_tab:
        return box
    return rx.fragment(box, rx.el.script(_tab_script(slot)))


def _tab_script(slot: str) -> str:
    return _FROM_TAB.format(key=json.dumps(STORAGE_PREFIX + slot), prefix=json.dumps(MEDIA_PREFIX))


def remember(slot: str, url: str) -> rx.event.EventSpec:
    """Have this tab remember ``url`` as ``slot``'s photo (or forget it: ``url`` empty)."""
    key = json.dumps(STORAGE_PREFIX + slot)
    if url.startswith(MEDIA_PREFIX):
        script = f"try{{sessionStorage.setItem({key},{json.dumps(url)})}}catch(e){{}}"
    else:
        script = f"try{{sessionStorage.removeItem({key})}}catch(e){{}}"
    return rx.call_script(script)


def fill(page_html: str, slot: str, url: str) -> str:
    """``page_html`` with ``slot``'s frame shown and its image at ``url`` (a stored photo's
    address); unchanged when the page has no such frame or ``url`` is not one."""
    if not url.startswith(MEDIA_PREFIX):
        return page_html
    frame_tag = re.compile(r"<div\b[^>]*\b" + ATTRIBUTE + r'="' + re.escape(slot) + r'"[^>]*>')
    found = frame_tag.search(page_html)
    if found is None:
        return page_html
    shown = re.sub(r'\shidden(="[^"]*")?(?=[\s/>])', "", found.group(0))
    img = page_html.find("<img ", found.end())
    if img < 0:
        return page_html
    source = f'<img src="{html.escape(url, quote=True)}" '
    return (
        page_html[: found.start()]
        + shown
        + page_html[found.end() : img]
        + source
        + page_html[img + len("<img ") :]
    )
