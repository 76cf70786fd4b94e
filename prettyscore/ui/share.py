"""Sharing a result (document 000 §2 Results, §8): the promotional text, the share panel
and the native share action.

Everything here runs in the browser, with no state and no server round trip:

- Text/SMS, Email, X/Twitter and Facebook are plain links (``sms:``, ``mailto:``, the
  two networks' share URLs in a new tab), built from the Vars passed in.
- Instagram and TikTok have no share URL: their buttons copy the message and toast
  'Message copied! Open {network} to share'.
- Copy Link copies the page's link and toasts 'Link copied to clipboard!'.
- The main Share button uses the browser's native share with the photo as a file where
  ``navigator.canShare({files})`` allows it ('Thanks for sharing!'), and otherwise copies
  the text ('Share text copied to clipboard! ...'). The photo is fetched ahead of the
  click (on mount, hover and focus), because browsers only allow a share shortly after
  the click that asked for it.

The JavaScript is called straight from the click handler (a function Var, not a queued
event), so the browser still sees the user's click when it asks to share or copy.
"""

import json
from typing import Any

import reflex as rx
from reflex.vars import FunctionStringVar
from reflex.vars.function import ArgsFunctionOperation
from reflex_components_sonner.toast import toast_ref

from prettyscore.analysis.tiers import score_text
from prettyscore.core import messages
from prettyscore.ui import styles
from prettyscore.ui.score import format_score_var

# The name the shared photo file carries, its extension following the photo's type.
SHARE_FILE_STEM = "pretty-score"
_EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/gif": "gif"}

NETWORK_SMS = messages.SHARE_TEXT_SMS
NETWORK_EMAIL = messages.SHARE_EMAIL
NETWORK_X = messages.SHARE_X_TWITTER
NETWORK_FACEBOOK = messages.SHARE_FACEBOOK
NETWORK_INSTAGRAM = messages.SHARE_INSTAGRAM
NETWORK_TIKTOK = messages.SHARE_TIKTOK

TWITTER_INTENT = "https://twitter.com/intent/tweet"
FACEBOOK_SHARER = "https://www.facebook.com/sharer/sharer.php"


def share_text(score: float, label: str) -> str:
    """The fixed promotional text: score out of 10, label and #AIPhotoChallenge."""
    return messages.SHARE_TEXT.format(score=score_text(score), label=label)


def share_text_var(score: Any, label: Any) -> rx.Var[str]:
    """``share_text`` for Vars (a Var[float] score and Var[str] label), built in the browser."""
    return rx.Var.create(
        messages.SHARE_TEXT.format(score=format_score_var(score), label=rx.Var.create(label))
    ).to(str)


# ---------------------------------------------------------------------------
# Browser side
# ---------------------------------------------------------------------------
# Copies text: the async Clipboard API where the page is a secure context, else the old
# hidden-textarea copy (plain http on a LAN address has no navigator.clipboard).
_COPY_JS = """
const copyText = async (text) => {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch (err) {}
  try {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.top = '0';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  } catch (err) {
    return false;
  }
};
"""

# Fetches the photo as a File once per URL; the promise is kept, so the click finds it ready.
_PHOTO_FILE_JS = f"""
const photoFile = (url) => {{
  if (!url || !navigator.canShare) return Promise.resolve(null);
  const cache = (window.__prettyScoreShareFiles = window.__prettyScoreShareFiles || new Map());
  if (!cache.has(url)) {{
    cache.set(url, fetch(url, {{credentials: 'same-origin'}})
      .then((res) => (res.ok ? res.blob() : null))
      .then((blob) => {{
        if (!blob) return null;
        const type = blob.type || 'image/png';
        const ext = {json.dumps(_EXTENSIONS)}[type] || 'png';
        return new File([blob], {json.dumps(SHARE_FILE_STEM)} + '.' + ext, {{type: type}});
      }})
      .catch(() => {{ cache.delete(url); return null; }}));
  }}
  return cache.get(url);
}};
"""

_PREFETCH = FunctionStringVar.create(f"((url) => {{ {_PHOTO_FILE_JS} photoFile(url); }})")

_NATIVE_SHARE = FunctionStringVar.create(
    f"""(async (text, imageUrl, toast, texts) => {{
  {_COPY_JS}
  {_PHOTO_FILE_JS}
  try {{
    const file = navigator.share ? await photoFile(imageUrl) : null;
    if (file && navigator.canShare({{files: [file]}})) {{
      try {{
        await navigator.share({{files: [file], text: text}});
        toast.success(texts.thanks);
        return;
      }} catch (err) {{
        if (err && err.name === 'AbortError') return;
      }}
    }}
    if (await copyText(text)) toast.success(texts.copied);
    else toast.error(texts.failed);
  }} catch (err) {{
    console.error('share', err);
    toast.error(texts.failed);
  }}
}})"""
)

_COPY_FOR_NETWORK = FunctionStringVar.create(
    f"""(async (text, toast, copied, failed) => {{
  {_COPY_JS}
  if (await copyText(text)) toast.success(copied);
  else toast.error(failed);
}})"""
)

_SHARE_TEXTS = {
    "thanks": messages.THANKS_FOR_SHARING,
    "copied": messages.SHARE_TEXT_COPIED,
    "failed": messages.COPY_FAILED,
}


def _no_arg_action(call: rx.Var) -> rx.Var:
    """Wrap a JavaScript call as a function Var usable as any event trigger."""
    return ArgsFunctionOperation.create((), call)


def native_share_action(
    text: Any, image_url: Any, copied: str = messages.SHARE_TEXT_COPIED
) -> rx.Var:
    """An event trigger value (e.g. ``on_click=``): native share of the photo file where the
    browser can, else copy ``text``, with the documented toasts.

    ``text`` is a Var[str] (see ``share_text_var``), ``image_url`` a Var[str] URL of the
    photo on this site ("" to share the text alone); ``copied`` is the toast after a copy
    (the face results' long text; the feet and hands results say it shorter).
    """
    texts = {**_SHARE_TEXTS, "copied": copied}
    return _no_arg_action(
        _NATIVE_SHARE.call(
            rx.Var.create(text), rx.Var.create(image_url), toast_ref, rx.Var.create(texts)
        )
    )


def copy_text_action(text: Any, copied_text: str) -> rx.Var:
    """An event trigger value: copy ``text`` (a str or Var[str]) and toast ``copied_text``
    (or that copying failed)."""
    return _no_arg_action(
        _COPY_FOR_NETWORK.call(
            rx.Var.create(text),
            toast_ref,
            rx.Var.create(copied_text),
            rx.Var.create(messages.COPY_FAILED),
        )
    )


def copy_for_network_action(text: Any, network: str) -> rx.Var:
    """An event trigger value: copy ``text`` and toast 'Message copied! Open {network} to
    share' (the Instagram and TikTok options)."""
    return copy_text_action(text, messages.MESSAGE_COPIED_OPEN_NETWORK.format(network=network))


def prefetch_photo_action(image_url: Any) -> rx.Var:
    """An event trigger value that fetches the photo for a later native share."""
    return _no_arg_action(_PREFETCH.call(rx.Var.create(image_url)))


# ---------------------------------------------------------------------------
# Share links
# ---------------------------------------------------------------------------
_LINKS = FunctionStringVar.create(
    f"""((kind, text, url) => {{
  const withUrl = url ? text + ' ' + url : text;
  const enc = encodeURIComponent;
  if (kind === 'sms') return 'sms:?&body=' + enc(withUrl);
  if (kind === 'email') return 'mailto:?subject=' + enc({json.dumps(messages.SHARE_EMAIL_SUBJECT)})
    + '&body=' + enc(withUrl);
  if (kind === 'x') return '{TWITTER_INTENT}?text=' + enc(text) + (url ? '&url=' + enc(url) : '');
  if (kind === 'facebook') return '{FACEBOOK_SHARER}?u=' + enc(url) + '&quote=' + enc(text);
  return '#';
}})"""
)


def share_href(kind: str, text: Any, page_url: Any) -> rx.Var[str]:
    """The share link of ``kind`` ('sms', 'email', 'x', 'facebook') for a text and page."""
    return _LINKS.call(kind, rx.Var.create(text), rx.Var.create(page_url)).to(str)


# ---------------------------------------------------------------------------
# Components
# ---------------------------------------------------------------------------
_OPTION_STYLE = {
    "display": "flex",
    "flex_direction": "column",
    "align_items": "center",
    "justify_content": "center",
    "gap": "0.4rem",
    "width": "100%",
    "min_height": "76px",
    "padding": "0.75rem 0.5rem",
    "border_radius": "16px",
    "border": styles.BORDER,
    "background": "white",
    "color": "var(--gray-12)",
    "font_size": "0.85rem",
    "font_weight": "500",
    "text_decoration": "none",
    "cursor": "pointer",
    "transition": "background 120ms ease, transform 120ms ease",
    "_hover": {"background": "var(--pink-a2)", "transform": "translateY(-1px)"},
    "&:focus-visible": {"outline": "2px solid var(--pink-9)", "outline_offset": "2px"},
}


def _option_icon(icon: str, background: str) -> rx.Component:
    """A round badge with a lucide icon, or with a letter (``"text:f"``) where lucide has
    no brand logo (it ships none). The letter is drawn by CSS, not written in the page,
    so the option's visible text is its network's name alone and its accessible name
    ("Share via X/Twitter") contains it."""
    if icon.startswith("text:"):
        mark = rx.el.span(
            data_mark=icon.removeprefix("text:"),
            style={
                "&::before": {"content": "attr(data-mark)"},
                "color": "white",
                "font_weight": "800",
                "font_size": "1.1rem",
                "line_height": "1",
            },
        )
    else:
        mark = rx.icon(icon, size=18, color="white")
    return rx.center(
        mark,
        width="36px",
        height="36px",
        border_radius="50%",
        background=background,
        aria_hidden="true",
    )


def _link_option(
    network: str, icon: str, background: str, href: Any, new_tab: bool
) -> rx.Component:
    extra = {"target": "_blank", "rel": "noopener noreferrer"} if new_tab else {}
    label = messages.SHARE_VIA.format(network=network)
    if new_tab:
        label = f"{label} {messages.OPENS_IN_NEW_TAB}"
    return rx.el.a(
        _option_icon(icon, background),
        rx.el.span(network),
        href=href,
        aria_label=label,
        style=_OPTION_STYLE,
        data_testid=f"share-{network.lower().replace('/', '-')}",
        **extra,
    )


def _copy_option(network: str, icon: str, background: str, text: Any) -> rx.Component:
    return rx.el.button(
        _option_icon(icon, background),
        rx.el.span(network),
        type="button",
        on_click=copy_for_network_action(text, network),
        aria_label=messages.SHARE_VIA.format(network=network),
        style=_OPTION_STYLE,
        data_testid=f"share-{network.lower()}",
    )


def _copy_link_option(page_url: rx.Var) -> rx.Component:
    """Copy the page's link, toasting 'Link copied to clipboard!' (document 000 §8)."""
    return rx.el.button(
        _option_icon("link", "#ec4899"),
        rx.el.span(messages.SHARE_COPY_LINK),
        type="button",
        on_click=copy_text_action(page_url, messages.LINK_COPIED),
        aria_label=messages.SHARE_COPY_LINK,
        style=_OPTION_STYLE,
        data_testid="share-copy-link",
    )


def share_button(
    text: Any,
    image_url: Any,
    label: str = messages.SHARE,
    copied: str = messages.SHARE_TEXT_COPIED,
    **props: Any,
) -> rx.Component:
    """The main Share button: native share with the photo file, else copy the text
    (``copied`` is the toast then)."""
    props.setdefault("size", "3")
    props.setdefault("radius", "full")
    props.setdefault("style", styles.GRADIENT_BUTTON)
    prefetch = prefetch_photo_action(image_url)
    return rx.button(
        rx.icon("share-2", size=18),
        label,
        on_click=native_share_action(text, image_url, copied),
        on_mount=prefetch,
        on_mouse_enter=prefetch,
        on_focus=prefetch,
        data_testid="share-native",
        **props,
    )


def _social_options(text: rx.Var, url: rx.Var) -> list[rx.Component]:
    """X/Twitter and Facebook open their share pages; Instagram and TikTok, which have
    none, copy the message and say so."""
    return [
        _link_option(NETWORK_X, "text:X", "#111827", share_href("x", text, url), True),
        _link_option(
            NETWORK_FACEBOOK, "text:f", "#1877f2", share_href("facebook", text, url), True
        ),
        _copy_option(
            NETWORK_INSTAGRAM,
            "camera",
            "linear-gradient(45deg, #f59e0b, #ec4899 50%, #8b5cf6)",
            text,
        ),
        _copy_option(NETWORK_TIKTOK, "music-2", "#111827", text),
    ]


def social_share_row(share_text: Any, page_url: Any) -> rx.Component:
    """The four social networks alone (the dashboard editor's share buttons)."""
    return rx.grid(
        *_social_options(rx.Var.create(share_text), rx.Var.create(page_url)),
        columns="4",
        spacing="2",
        width="100%",
        role="group",
        aria_label=messages.SHARE_HEADING,
    )


def share_panel(share_text: Any, image_url: Any, page_url: Any) -> rx.Component:
    """The share panel: the main Share button, the six options and Copy Link.

    ``share_text`` is a Var[str] (``share_text_var(score, label)``), ``image_url`` a
    Var[str] same-site URL of the photo to share as a file, ``page_url`` a Var[str]
    absolute URL the links carry (Facebook needs one; e.g. the site's public URL).
    """
    text = rx.Var.create(share_text)
    url = rx.Var.create(page_url)
    return rx.box(
        rx.vstack(
            rx.hstack(
                rx.heading(messages.SHARE_HEADING, as_="h2", size="5"),
                share_button(text, image_url),
                justify="between",
                align="center",
                width="100%",
                wrap="wrap",
                spacing="3",
            ),
            rx.grid(
                _link_option(
                    NETWORK_SMS, "message-circle", "#22c55e", share_href("sms", text, url), False
                ),
                _link_option(
                    NETWORK_EMAIL, "mail", "#6366f1", share_href("email", text, url), False
                ),
                *_social_options(text, url),
                _copy_link_option(url),
                columns=rx.breakpoints(initial="3", md="7"),
                spacing="3",
                width="100%",
            ),
            spacing="4",
            width="100%",
        ),
        style=styles.CARD,
        width="100%",
        role="region",
        aria_label=messages.SHARE_HEADING,
        data_testid="share-panel",
    )
