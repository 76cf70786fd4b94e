"""What a newcomer met on the pages, on a phone (390 px): the contact banner over the
heading, Save three screens down, two notices stacked over the score, a stale checkout
with no way back, "Try Again" with the old photo, the email broken mid-word, and the
texts that said a thing twice or only half of it."""

from __future__ import annotations

import re
import uuid

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import expect
from skimage import data
from sqlmodel import select

from prettyscore.accounts.models import User
from prettyscore.billing import checkout
from prettyscore.contact import service as contact
from prettyscore.core import messages
from prettyscore.photos.models import Photo
from tests.e2e.flows import (
    astronaut_jpeg,
    fill_sign_up,
    member_id,
    new_member,
    open_page,
    save_scored_photo,
    score_photo,
    sign_up,
    unique_email,
    wait_for_path,
    with_app_database,
)
from tests.e2e.test_contact_sent import HELLO, listed_contestant
from tests.e2e.test_phone_layout import measure

pytestmark = pytest.mark.e2e

PHONE = (390, 844)


def phone(new_context):
    return new_context(viewport=PHONE).new_page()


def no_sideways_scroll(page) -> None:
    layout = measure(page)
    assert layout["scroll"] <= layout["inner"], layout["found"]


def paid_contact_checkout(app_server, requester: str) -> str:
    """A contact request of ``requester`` paid through the test checkout: its session id."""
    photo_id = listed_contestant(app_server, f"Banner {uuid.uuid4().hex[:6]}")
    with with_app_database(app_server) as db:
        member = db.get(User, member_id(db, requester))
        request = contact.create_request(db, member, photo_id, HELLO)
        session_id = contact.start_payment(db, member, request).split("=", 1)[1]
        checkout.pay_test_checkout(db, member.id, session_id)
        return session_id


def test_the_paid_contact_notice_sits_above_the_heading_and_is_said_once(new_context, app_server):
    base = app_server.base_url
    page = phone(new_context)
    requester = new_member(page, base, "banner")
    paid_contact_checkout(app_server, requester)

    open_page(page, f"{base}/leaderboard?contact=sent")
    notice = page.get_by_test_id("contact-sent-notice")
    expect(notice).to_be_visible()
    heading = page.get_by_role("heading", name=messages.TITLE_LEADERBOARD)
    box, title = notice.bounding_box(), heading.bounding_box()
    assert box["y"] + box["height"] <= title["y"], (box, title)  # covers nothing
    background = notice.evaluate("e => getComputedStyle(e).backgroundColor")
    assert background not in ("transparent", "rgba(0, 0, 0, 0)"), background
    no_sideways_scroll(page)

    expect(page).to_have_url(re.compile(r"/leaderboard/?$"))  # the address forgets it
    page.reload()
    expect(heading).to_be_visible()
    page.wait_for_timeout(1500)
    expect(notice).to_have_count(0)


def test_a_stale_contact_checkout_leads_back_to_the_sent_requests(new_context, app_server):
    base = app_server.base_url
    page = phone(new_context)
    requester = new_member(page, base, "stale")
    session_id = paid_contact_checkout(app_server, requester)

    open_page(page, f"{base}/checkout/test?session={session_id}")
    expect(page.get_by_text(messages.CHECKOUT_NOT_FOUND)).to_be_visible()
    way_back = page.get_by_test_id("checkout-way-back")
    expect(way_back).to_have_text(messages.CONTACT_SEE_SENT)
    way_back.click()
    page.wait_for_url(re.compile(r"/contestant-requests/?#sent$"))
    expect(page.get_by_test_id("sent-request")).to_have_count(1)


def test_on_a_phone_the_result_can_be_saved_before_its_explanation(
    new_context, app_server, tmp_path
):
    page = phone(new_context)
    score_photo(page, app_server.base_url, astronaut_jpeg(tmp_path))
    save = page.get_by_role("button", name=messages.SIGN_IN_TO_SAVE)
    explanation = page.get_by_test_id("explanation")
    expect(explanation).to_be_visible()
    assert save.bounding_box()["y"] < explanation.bounding_box()["y"]
    no_sideways_scroll(page)

    # Signing up from there: one notice over the result, not the stale "sign in" too.
    save.click()
    wait_for_path(page, "/auth", "?next=/results")
    fill_sign_up(page, unique_email("from-results"))
    wait_for_path(page, "/results")
    expect(page.get_by_text(messages.ACCOUNT_CREATED)).to_be_visible()
    expect(page.get_by_text(messages.SIGN_IN_TO_SAVE)).to_have_count(0)  # the toast's text
    expect(page.get_by_role("button", name="Save to My Photos")).to_be_visible()


def test_try_again_opens_the_upload_page_with_no_photo_chosen(new_context, app_server, tmp_path):
    page = phone(new_context)
    score_photo(page, app_server.base_url, astronaut_jpeg(tmp_path))
    page.get_by_role("button", name="Try Again").click()
    wait_for_path(page, "/upload")
    expect(page.get_by_test_id("upload-zone")).to_be_visible()
    expect(page.get_by_role("img", name="Your chosen photo")).to_have_count(0)


def test_a_long_email_breaks_at_its_at_sign_on_the_phone_dashboard(new_context, app_server):
    page = phone(new_context)
    address = f"a-rather-long-name-{uuid.uuid4().hex[:8]}@an-example-mail-domain.com"
    sign_up(page, app_server.base_url, address)
    wait_for_path(page, "/dashboard")
    email = page.get_by_test_id("dashboard-email")
    expect(email).to_have_text(address)
    lines = email.evaluate(
        "e => [...e.querySelectorAll('span')].map(part => part.getClientRects().length)"
    )
    assert lines == [1, 1], lines  # each part whole on its line
    no_sideways_scroll(page)


def test_the_texts_say_each_thing_once_and_whole(new_context, app_server, tmp_path):
    base = app_server.base_url
    page = phone(new_context)
    new_member(page, base, "texts")
    open_page(page, f"{base}/global-ranking")
    expect(page.get_by_text("Prizes are given monthly to the top 10")).to_have_count(1)

    open_page(page, f"{base}/contestant-requests")
    # The page lists the requests received and the ones sent: its subtitle says both.
    expect(page.get_by_text(re.compile(r"paid to send you, and the ones you sent"))).to_be_visible()

    score_photo(page, base, astronaut_jpeg(tmp_path))
    # /partners has 15, 20 and 30% tiers: the results' footer says "up to".
    expect(page.get_by_text(re.compile(r"Partners earn up to 30% commission"))).to_be_visible()


def tall_portrait(folder) -> str:
    """A full-length shape: the face at the top of a photo nearly three times as tall."""
    face = data.astronaut()
    canvas = np.full((1400, 512, 3), 96, dtype=np.uint8)
    canvas[:512] = face
    path = folder / "tall.jpg"
    Image.fromarray(canvas).save(path, quality=92)
    return str(path)


def test_a_dashboard_card_keeps_the_face_of_a_tall_photo(new_context, app_server, tmp_path):
    base = app_server.base_url
    page = phone(new_context)
    address = new_member(page, base, "tall")
    save_scored_photo(page, base, tall_portrait(tmp_path))
    with with_app_database(app_server) as db:
        photo = db.exec(select(Photo).where(Photo.user_id == member_id(db, address))).one()
        face_y = photo.focus_y
    assert face_y is not None and face_y < 0.3  # the analysis found the face at the top

    open_page(page, f"{base}/dashboard")
    picture = page.get_by_test_id("photo-card").get_by_role("img").first
    expect(picture).to_be_visible()
    shown = picture.evaluate(
        """img => { const style = getComputedStyle(img);
        return {nw: img.naturalWidth, nh: img.naturalHeight, cw: img.clientWidth,
                ch: img.clientHeight, position: style.objectPosition}; }"""
    )
    # object-fit: cover; the rows of the photo the card shows:
    scale = max(shown["cw"] / shown["nw"], shown["ch"] / shown["nh"])
    rows = shown["ch"] / scale
    share = float(shown["position"].split()[1].rstrip("%")) / 100
    top = (shown["nh"] - rows) * share
    face = face_y * shown["nh"]
    assert top <= face - 0.05 * shown["nh"] and face <= top + rows, (shown, face_y)
