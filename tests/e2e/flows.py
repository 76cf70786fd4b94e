"""Steps shared by the browser tests: what a person does, in a few reusable pieces."""

from __future__ import annotations

import contextlib
import hashlib
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import redis
from playwright.sync_api import expect
from sqlmodel import Session, select

from prettyscore.accounts import service as accounts
from prettyscore.accounts.models import User
from prettyscore.billing.checkout import format_amount
from prettyscore.core import messages
from prettyscore.core.constants import LEADERBOARD_DIALOG_MIN_SCORE, PREMIUM_MONTHLY_CENTS
from prettyscore.core.db import make_engine, session_scope
from prettyscore.partners.programme import AFFILIATE_COOKIE
from prettyscore.web.browser_key import BROWSER_COOKIE


def unique_email(prefix: str) -> str:
    """A new address for each test, so runs never collide."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}@example.com"


#: How long a scored photo may take to land on /results under the suite's load.
ANALYSIS_LANDS_WITHIN_MS = 30_000


def wait_for_path(page, path: str, query: str = "", timeout: float | None = None) -> None:
    """Wait until the browser shows ``path`` (the production build adds a trailing slash)."""
    base = re.escape(path.rstrip("/"))
    tail = re.escape(query) if query else ""
    page.wait_for_url(re.compile(rf"^https?://[^/]+{base}/?{tail}$"), timeout=timeout)


def open_page(page, url: str) -> None:
    """Go to ``url`` and wait until the page is live, as a person waits for it to load."""
    page.goto(url)
    wait_until_ready(page)


def wait_until_ready(page) -> None:
    """Wait for the layout's page-ready marker (hydrated, on_load events done)."""
    page.get_by_test_id("page-ready").wait_for(state="attached")


def expect_on_load_notice(page, text: str) -> None:
    """Expect the notice a page's on_load event sends (a refusal, a sign-in request).

    It comes from the server after the page has hydrated and the event has run, within
    the browser tests' patience for any expected state (``DEFAULT_TIMEOUT_MS``).
    """
    expect(page.get_by_text(text)).to_be_visible()


def sign_up(page, base_url: str, address: str, password: str = "secret12") -> None:
    """Open /auth, switch to Sign Up and submit the form."""
    open_page(page, f"{base_url}/auth")
    fill_sign_up(page, address, password)


def fill_sign_up(page, address: str, password: str = "secret12") -> None:
    """On the /auth page already open: switch to Sign Up and submit the form."""
    page.get_by_role("tab", name=messages.SIGN_UP).click()
    form = page.locator("form").filter(
        has=page.get_by_placeholder(messages.SIGNUP_PASSWORD_PLACEHOLDER)
    )
    form.get_by_placeholder(messages.EMAIL_PLACEHOLDER).fill(address)
    form.get_by_placeholder(messages.SIGNUP_PASSWORD_PLACEHOLDER).fill(password)
    form.get_by_role("button", name=messages.SIGN_UP).click()


def sign_in_form(page):
    """The Sign In tab's form."""
    return page.locator("form").filter(
        has=page.get_by_placeholder(messages.PASSWORD_PLACEHOLDER, exact=True)
    )


def sign_in(page, address: str, password: str = "secret12") -> None:
    """Fill and submit the Sign In form on the current /auth page."""
    form = sign_in_form(page)
    form.get_by_placeholder(messages.EMAIL_PLACEHOLDER).fill(address)
    form.get_by_placeholder(messages.PASSWORD_PLACEHOLDER, exact=True).fill(password)
    form.get_by_role("button", name=messages.SIGN_IN).click()


def new_member(page, base_url: str, prefix: str = "member") -> str:
    """Sign up a new member in this browser context and wait for the dashboard."""
    address = unique_email(prefix)
    sign_up(page, base_url, address)
    wait_for_path(page, "/dashboard")
    wait_until_ready(page)  # as a person would: the dashboard has finished loading
    page.get_by_test_id("dashboard-email").wait_for()
    return address


def browser_key(page) -> str:
    """The key the browser holds for the app (web.browser_key)."""
    (key,) = [c["value"] for c in page.context.cookies() if c["name"] == BROWSER_COOKIE]
    return key


def key_after(page, old: str, seconds: float = 10.0) -> str:
    """The browser's key once it is no longer ``old`` (the page replaces it by itself)."""
    deadline = time.monotonic() + seconds
    while True:
        key = browser_key(page)
        if key != old or time.monotonic() > deadline:
            return key
        time.sleep(0.1)


def new_admin(page, app_server, prefix: str = "admin") -> str:
    """Sign up a new member in this browser context and give them the admin role, as
    the role is granted outside the app (a user_roles row)."""
    address = new_member(page, app_server.base_url, prefix)
    with with_app_database(app_server) as db:
        accounts.grant_role(db, address)
    return address


def subscribe_to_premium(page, base_url: str) -> None:
    """As a signed-in member: subscribe on /premium and pay in the built-in test checkout."""
    open_page(page, f"{base_url}/premium")
    page.get_by_role("button", name=messages.PREMIUM_SUBSCRIBE).click()
    page.wait_for_url(re.compile(r"/checkout/test/?\?session=\w+$"))
    price = format_amount(PREMIUM_MONTHLY_CENTS)
    page.get_by_role("button", name=messages.TEST_CHECKOUT_PAY.format(amount=price)).click()
    wait_for_path(page, "/premium", "?success=true")


def unique_code(prefix: str) -> str:
    """A partner short code no other test uses: ``prefix`` then random, 10 characters."""
    return (prefix + uuid.uuid4().hex[:10]).upper()[:10]


def fill_partner_application(
    page, base_url: str, name: str, typed_code: str, typed_promo: str
) -> None:
    """From /partners, 'Apply Now', then type the application (not yet submitted)."""
    open_page(page, f"{base_url}/partners")
    page.get_by_role("link", name=messages.PARTNERS_APPLY_NOW).first.click()
    wait_for_path(page, "/partners/apply")
    wait_until_ready(page)
    form = page.get_by_test_id("partner-application-form")
    form.get_by_label(messages.PARTNER_DISPLAY_NAME).fill(name)
    form.get_by_label(messages.PARTNER_SHORT_CODE).press_sequentially(typed_code)
    form.get_by_label(messages.PARTNER_PROMO_CODE).press_sequentially(typed_promo)


def affiliate_cookies(context) -> list[dict]:
    """The browser's ``affiliate_code`` cookies (none, or the referral link's one)."""
    return [cookie for cookie in context.cookies() if cookie["name"] == AFFILIATE_COOKIE]


def astronaut_jpeg(folder) -> Path:
    """A real portrait (scikit-image's astronaut) as a JPEG file a person would pick."""
    from PIL import Image
    from skimage import data

    path = Path(folder) / "astronaut.jpg"
    Image.fromarray(data.astronaut()).save(path, format="JPEG", quality=92)
    return path


def score_photo(page, base_url: str, photo_path) -> None:
    """Open /upload, choose ``photo_path``, get the score and wait for /results."""
    open_page(page, f"{base_url}/upload")
    page.get_by_test_id("upload-zone").locator("input[type=file]").set_input_files(str(photo_path))
    expect(page.get_by_role("img", name="Your chosen photo")).to_be_visible()
    page.get_by_role("button", name=messages.GET_MY_SCORE).click()
    see_the_score(page)


def shown_score(page) -> float:
    """The overall score the results page shows, as a number."""
    text = page.get_by_test_id("results").get_by_text(re.compile(r"^\d+(\.\d)?/10$")).first
    return float(text.inner_text().removesuffix("/10"))


def see_the_score(page) -> None:
    """Land on /results; at 9.5 and above (Elite Beauty) the page invites the person to
    the leaderboard by itself (document 000), and they answer "Not now"."""
    # The analysis shows its progress for at least ANALYSIS_WAIT_SECONDS, then works for
    # as long as the machine lets it: three browser processes at once slow it down.
    wait_for_path(page, "/results", timeout=ANALYSIS_LANDS_WITHIN_MS)
    expect(page.get_by_test_id("results")).to_be_visible()
    if shown_score(page) >= LEADERBOARD_DIALOG_MIN_SCORE:
        invitation = page.get_by_role("dialog", name="Join the Leaderboard")
        expect(invitation).to_be_visible()
        invitation.get_by_role("button", name="Not now").click()
        expect(invitation).to_be_hidden()


def choose_on_upload_page(page, path) -> None:
    page.get_by_test_id("upload-zone").locator("input[type=file]").set_input_files(str(path))


def score_from_upload_page(page, base: str, path) -> None:
    """Open /upload, choose ``path``, get the score, land on /results."""
    open_page(page, f"{base}/upload")
    choose_on_upload_page(page, path)
    expect(page.get_by_role("img", name="Your chosen photo")).to_be_visible()
    page.get_by_role("button", name=messages.GET_MY_SCORE).click()
    see_the_score(page)


def shown_explanation(page):
    """The results page's "How we got your score" panel and its measured-lines picture,
    once the heading shows and the picture has loaded."""
    panel = page.get_by_test_id("explanation")
    expect(panel.get_by_role("heading", name=messages.HOW_WE_GOT_YOUR_SCORE)).to_be_visible()
    picture = panel.get_by_role("img", name=messages.MEASURED_LINES_ALT)
    picture.scroll_into_view_if_needed()
    expect(picture).to_have_js_property("complete", True)
    return panel, picture


def save_scored_photo(page, base_url: str, photo_path) -> None:
    """As a signed-in member: score ``photo_path`` and save it to My Photos."""
    score_photo(page, base_url, photo_path)
    page.get_by_role("button", name="Save to My Photos").click()
    expect(page.get_by_text(messages.PHOTO_SAVED)).to_be_visible()


@contextlib.contextmanager
def with_app_database(app_server) -> Iterator[Session]:
    """One unit of work on the running app's own database (as the server would do it)."""
    from prettyscore.core import all_models  # noqa: F401  (every table, for foreign keys)

    engine = make_engine(app_server.database_url)
    try:
        with session_scope(engine) as db:
            yield db
    finally:
        engine.dispose()


def member_id(db: Session, address: str) -> uuid.UUID:
    """The id of the member who signed up with ``address``."""
    return db.exec(select(User.id).where(User.email == address.lower())).one()


def member_name(address: str) -> str:
    """The name a test member gives with their account (``paid_contact_request``): what
    another member sees of them, never their address."""
    return f"Member {hashlib.sha256(address.encode()).hexdigest()[:6]}"


def paid_contact_request(
    app_server, requester: str, contestant: str, status: str = "approved"
) -> uuid.UUID:
    """A paid contact request (approved unless ``status`` says otherwise) between two
    signed-up members, written to the running app's database: what the contact flow,
    its payment and the contestant's answer leave behind."""
    from prettyscore.contact.models import ContactRequest

    with with_app_database(app_server) as db:
        for address in (requester, contestant):  # each shown to the other by this name
            user = db.get(User, member_id(db, address))
            user.user_metadata = {**(user.user_metadata or {}), "full_name": member_name(address)}
        request = ContactRequest(
            requester_id=member_id(db, requester),
            contestant_id=member_id(db, contestant),
            rank_at_request=1,
            fee_amount=100_000,
            platform_share=25_000,
            contestant_share=75_000,
            message_preview="Hello! I would love to talk about your photo.",
            paid=True,
            payment_status="paid",
            status=status,
        )
        db.add(request)
        db.flush()
        return request.id


def chatting_members(
    app_server, count: int, password: str, prefix: str
) -> list[tuple[str, uuid.UUID]]:
    """``count`` signed-up members in pairs, each pair with an approved paid contact
    request between them (so they can chat): (email, request id) each."""
    emails = [unique_email(prefix) for _ in range(count + count % 2)]
    with with_app_database(app_server) as db:
        for email in emails:
            accounts.sign_up(db, email, password)
    found = []
    for first, second in zip(emails[::2], emails[1::2], strict=True):
        request_id = paid_contact_request(app_server, first, second)
        found += [(first, request_id), (second, request_id)]
    return found[:count]


def submit_first_choice_to_ranking(page, base_url: str, display_name: str = "Contestant") -> None:
    """On /global-ranking: pick the best of one's photos, give the display name, submit
    it, land on /leaderboard."""
    open_page(page, f"{base_url}/global-ranking")
    page.get_by_test_id("contest-choice").first.click()
    page.get_by_test_id("contest-entry-form").get_by_placeholder("Display name").fill(display_name)
    page.get_by_role("button", name=messages.CONTEST_SUBMIT).click()
    wait_for_path(page, "/leaderboard")
    wait_until_ready(page)


def lose_tab_state(app_server, page) -> None:
    """Delete every state Reflex keeps in Redis for ``page``'s tab (its client token),
    as a Redis restarted empty or an expiry would."""
    token = page.evaluate("window.sessionStorage.getItem('token')")
    assert token, "the page has no Reflex client token"
    client = redis.Redis.from_url(app_server.redis_url)
    try:
        lost = client.keys(f"{token}_*")
        assert lost, "no state of the tab was found in Redis"
        client.delete(*lost)
    finally:
        client.close()
