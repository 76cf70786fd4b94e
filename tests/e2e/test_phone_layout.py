"""Every page fits the screen, from a small phone to a desktop, for every kind of user.

Most visitors are on a phone. For a visitor, a member, a Premium member and an admin,
each page of the app is opened once and measured at several widths (the viewport is
resized, not reloaded): the page never scrolls sideways
(``document.documentElement.scrollWidth <= window.innerWidth``). The menus a phone
opens (the navigation drawer, the account menu) fit on screen too, and the navigation
leads to the pages that used to be linked from nowhere.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import expect

from prettyscore.core import messages
from prettyscore.web.page_paths import prerendered_page_paths
from tests.e2e.flows import (
    member_id,
    new_admin,
    new_member,
    open_page,
    subscribe_to_premium,
    with_app_database,
)
from tests.e2e.test_admin_partners import pending_partner

# Layout is the browser's business: measured on the default server only.
pytestmark = pytest.mark.e2e

#: Small phone, common phone, tablet (the sidebar's first width) and a laptop.
WIDTHS = (360, 390, 768, 1280)
HEIGHT = 800
USER_KINDS = ("visitor", "member", "premium", "admin")
#: Where screenshots of the 390 px pages go (set PHONE_SHOTS to a folder to keep them).
SHOTS = os.environ.get("PHONE_SHOTS")
SHOT_ROUTES = ("/", "/user-dashboard", "/leaderboard", "/admin/partners", "/premium")
#: A name long enough to push a card wider than a phone if nothing lets it wrap.
LONG_NAME = "Maximiliana-Alexandrina Featherstonehaugh-Wolfeschlegelsteinhausen"

# The elements reaching past the right edge (the deepest ones), to say what overflows.
OVERFLOW_REPORT = """() => {
  const width = window.innerWidth;
  const found = [];
  for (const element of document.body.querySelectorAll('*')) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1) continue;
    if ([...element.children].some((child) => child.getBoundingClientRect().right > width + 1))
      continue;
    const id = element.getAttribute('data-testid');
    const text = (element.textContent || '').trim().slice(0, 30);
    found.push(`${element.tagName.toLowerCase()}${id ? '[' + id + ']' : ''} `
      + `right=${Math.round(box.right)} "${text}"`);
    if (found.length >= 4) break;
  }
  // Tables must fit their box too, not scroll inside it.
  const tables = [...document.querySelectorAll('[data-testid="admin-table"]')]
    .filter((box) => box.querySelector('table').getBoundingClientRect().width
      > box.getBoundingClientRect().width + 1)
    .map((box) => `admin-table ${Math.round(box.querySelector('table')
      .getBoundingClientRect().width)} px in ${Math.round(box.getBoundingClientRect().width)}`);
  // A table's header or short word (a number, a status) is never split across lines.
  const broken = [];
  for (const cell of document.querySelectorAll('[data-testid="admin-table"] :is(th, td)')) {
    if (!cell.offsetParent) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.data.matchAll(/\\S+/g)) {
        if (cell.tagName === 'TD' && word[0].length > 12) continue;  // emails may break
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(`"${word[0]}" split in a ${cell.tagName.toLowerCase()}`);
      }
    }
  }
  return {scroll: document.documentElement.scrollWidth, inner: width, found, tables, broken};
}"""

SETTLE = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def app_routes(app_server) -> list[str]:
    """Every page the production build prerendered, but for addresses with a parameter."""
    folder = Path(app_server.env["REFLEX_WEB_WORKDIR"]) / "build" / "client"
    routes = prerendered_page_paths(folder)
    assert "/leaderboard" in routes, f"no pages found in {folder}"
    return sorted({"/", *(route for route in routes if "[" not in route and route != "/404")})


def measure(page) -> dict:
    page.evaluate(SETTLE)
    return page.evaluate(OVERFLOW_REPORT)


def overflows_at_each_width(page, where: str) -> list[str]:
    """Resize through WIDTHS on the page already open; one line per width that overflows."""
    problems = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": HEIGHT})
        found = measure(page)
        if found["scroll"] > found["inner"]:
            problems.append(f"{where} at {width} px: {found['scroll']} px wide; {found['found']}")
        if found["tables"]:
            problems.append(f"{where} at {width} px: {found['tables']}")
        if found["broken"]:
            problems.append(f"{where} at {width} px: {found['broken'][:4]}")
    return problems


def settled_box(page, locator) -> dict | None:
    """The element's box once it stops moving (menus and drawers slide in)."""
    box = None
    for _ in range(40):
        page.evaluate(SETTLE)
        moved, box = box, locator.bounding_box()
        if box is not None and box == moved:
            break
        page.wait_for_timeout(50)
    return box


def fits_on_screen(page, locator, what: str) -> list[str]:
    box = settled_box(page, locator)
    width = page.viewport_size["width"]
    if box is None or box["x"] < -1 or box["x"] + box["width"] > width + 1:
        return [f"{what} at {width} px does not fit: {box}"]
    return []


def listed_photo(app_server, address: str) -> None:
    """A verified leaderboard entry with a long name and a bio, as moderation leaves it."""
    from prettyscore.photos.models import Photo

    with with_app_database(app_server) as db:
        db.add(
            Photo(
                user_id=member_id(db, address),
                original_image_url=f"/media/u/{address}/missing.jpg",
                score=1.2,
                rating_label="Attractive",
                public_listing=True,
                is_verified=True,
                display_name=LONG_NAME,
                bio="Loves long walks " * 8,
            )
        )


def long_partner(app_server, partner) -> None:
    """The partner with a long display name and a long email, as real ones have."""
    from prettyscore.accounts.models import User
    from prettyscore.partners.models import PartnerAccount

    with with_app_database(app_server) as db:
        account = db.get(PartnerAccount, partner.id)
        account.display_name = LONG_NAME
        owner = db.get(User, account.user_id)
        owner.email = f"{LONG_NAME.lower()}.{uuid.uuid4().hex[:6]}@example.com"


def become(kind: str, page, app_server) -> str | None:
    base = app_server.base_url
    if kind == "visitor":
        return None
    if kind == "admin":
        address = new_admin(page, app_server, "phone-admin")
        # Rows in the partner tables, one with a long name and email.
        long_partner(app_server, pending_partner(app_server, (1_500, 2_250)))
    else:
        address = new_member(page, base, f"phone-{kind}")
    if kind == "premium":
        subscribe_to_premium(page, base)
    listed_photo(app_server, address)
    return address


def open_menus(page, kind: str) -> list[str]:
    """At phone width: the drawer and the account menu open within the screen."""
    problems = []
    for width in (360, 390):
        page.set_viewport_size({"width": width, "height": HEIGHT})
        open_page(page, "/")
        page.get_by_role("button", name=messages.NAV_OPEN_MENU).click()
        drawer = page.get_by_test_id("nav-drawer")
        expect(drawer).to_be_visible()
        problems += fits_on_screen(page, drawer, "the navigation drawer")
        page.keyboard.press("Escape")
        expect(drawer).to_be_hidden()
        if kind == "visitor":
            continue
        button = page.get_by_role("button", name=messages.MY_ACCOUNT)
        problems += fits_on_screen(page, button, "the account button")
        button.click()
        menu = page.get_by_role("menu")
        expect(menu).to_be_visible()
        problems += fits_on_screen(page, menu, "the account menu")
        page.keyboard.press("Escape")
        expect(menu).to_be_hidden()
    return problems


def contact_dialog(page, kind: str) -> list[str]:
    """At 360 px, the leaderboard's contact dialog (another member's entry) fits."""
    if kind == "visitor":
        return []
    page.set_viewport_size({"width": 360, "height": HEIGHT})
    open_page(page, "/leaderboard")
    contact = page.get_by_role("button", name=messages.LEADERBOARD_CONTACT)
    if contact.count() == 0:
        return []
    contact.first.click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("textbox", name=messages.PROMO_CODE_FIELD)).to_be_visible()
    return fits_on_screen(page, dialog, "the contact dialog") + overflows_at_each_width(
        page, "/leaderboard with the contact dialog open"
    )


def partner_rows_show(page) -> list[str]:
    """On a phone the partner table's rows are cards, shown in full within the table."""
    page.set_viewport_size({"width": 360, "height": HEIGHT})
    open_page(page, "/admin/partners")
    row = page.get_by_test_id("partner-row").first
    expect(row.get_by_test_id("status-badge")).to_be_visible()
    table, shown = page.get_by_test_id("admin-table").bounding_box(), row.bounding_box()
    if table["y"] + table["height"] < shown["y"] + shown["height"] - 1:
        return [f"the partner table ({table}) hides its row ({shown}) at 360 px"]
    return []


@pytest.mark.parametrize("kind", USER_KINDS)
def test_no_page_scrolls_sideways(new_context, app_server, kind):
    page = new_context(viewport=(390, HEIGHT)).new_page()
    become(kind, page, app_server)
    problems = []
    for route in app_routes(app_server):
        page.set_viewport_size({"width": 390, "height": HEIGHT})
        open_page(page, route)
        page.wait_for_timeout(250)  # data the page loads after it is ready
        if SHOTS and route in SHOT_ROUTES:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            name = route.strip("/").replace("/", "-") or "home"
            page.screenshot(path=f"{SHOTS}/{kind}-{name}-390.png", full_page=True)
        problems += overflows_at_each_width(page, route)
    problems += open_menus(page, kind)
    problems += contact_dialog(page, kind)
    if kind == "admin":
        problems += partner_rows_show(page)
    assert not problems, "\n".join(problems)


def test_the_navigation_leads_an_admin_to_the_admin_pages(new_context, app_server):
    page = new_context(viewport=(1280, HEIGHT)).new_page()
    new_admin(page, app_server, "nav-admin")
    open_page(page, "/")
    sidebar = page.get_by_role("complementary")
    for route in ("/admin/partners", "/admin/payouts", "/admin/verification", "/admin/leaderboard"):
        expect(sidebar.locator(f'a[href="{route}"]')).to_be_visible()
    # At the foot of a long page the sidebar still runs the screen's full height.
    open_page(page, "/privacy")
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    assert page.evaluate("window.scrollY") > HEIGHT
    box = settled_box(page, sidebar)
    assert (box["y"], box["height"]) == (0, HEIGHT), box
    page.set_viewport_size({"width": 390, "height": HEIGHT})
    page.get_by_role("button", name=messages.NAV_OPEN_MENU).click()
    drawer = page.get_by_test_id("nav-drawer")
    expect(drawer.locator('a[href="/admin/partners"]')).to_be_visible()


def test_a_member_finds_verification_but_no_admin_pages(new_context, app_server):
    page = new_context(viewport=(390, HEIGHT)).new_page()
    new_member(page, app_server.base_url, "nav-member")
    open_page(page, "/")
    expect(page.locator('a[href^="/admin"]')).to_have_count(0)
    page.get_by_role("button", name=messages.MY_ACCOUNT).click()
    menu = page.get_by_role("menu")
    menu.get_by_role("menuitem", name=messages.TITLE_REQUEST_VERIFICATION).click()
    expect(page).to_have_url(re.compile(r"/request-verification/?$"))


def test_a_partner_finds_their_portal_in_the_account_menu(new_context, app_server):
    from prettyscore.partners.models import PartnerAccount

    page = new_context(viewport=(390, HEIGHT)).new_page()
    address = new_member(page, app_server.base_url, "nav-partner")
    with with_app_database(app_server) as db:
        db.add(
            PartnerAccount(
                user_id=member_id(db, address),
                display_name="Phone partner",
                code=uuid.uuid4().hex[:8].upper(),
            )
        )
    open_page(page, "/")
    page.get_by_role("button", name=messages.MY_ACCOUNT).click()
    page.get_by_role("menu").get_by_role("menuitem", name=messages.TITLE_PARTNER_PORTAL).click()
    expect(page).to_have_url(re.compile(r"/partners/portal/?$"))
    expect(page.get_by_role("heading", name=messages.TITLE_PARTNER_PORTAL).first).to_be_visible()


def test_the_first_tab_on_a_page_offers_to_skip_to_its_content(page, app_server):
    page.set_viewport_size({"width": 390, "height": HEIGHT})
    open_page(page, f"{app_server.base_url}/leaderboard")
    skip = page.get_by_role("link", name=messages.SKIP_TO_CONTENT)
    expect(skip).not_to_be_in_viewport()  # out of sight until a keyboard reaches it
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()
