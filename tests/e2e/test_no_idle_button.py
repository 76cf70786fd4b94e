"""Every action that waits on the server is busy from the press, says in words when no
answer comes, and its "Try again" does the work once: a form (sign-up), a chat message,
an AI edit, a video, a checkout, a payment and a cancellation, the personality test's
Finish, an admin's payout, a contact request's Approve, an authenticator's Remove, a
saved photo's Delete, a feature's free trial and a feet score's Save.

As in ``test_no_lost_click``, the page's event socket runs through Playwright: the test
holds back one action's frames (a connection that dropped them) and lets them through
when it chooses. Letting the first through, waiting for its outcome and only then the
retry is the hard case: a second run could no longer be refused as "already running".
"""

from __future__ import annotations

import re

import pytest
from PIL import Image
from playwright.sync_api import expect
from sqlmodel import func, select

from prettyscore.accounts import mfa
from prettyscore.accounts import service as accounts
from prettyscore.accounts.models import AuthSession, MfaFactor
from prettyscore.billing.checkout import format_amount
from prettyscore.billing.models import CheckoutSession, Subscription
from prettyscore.chat.models import Message
from prettyscore.contact.models import ContactRequest
from prettyscore.core import messages
from prettyscore.core.constants import PREMIUM_MONTHLY_CENTS
from prettyscore.gates import service as gates
from prettyscore.gates.models import FeatureTrial
from prettyscore.partners.models import PartnerPayout
from prettyscore.personality.models import PersonalityResult
from prettyscore.photos.models import Photo
from prettyscore.video.models import VideoGeneration
from tests.e2e.flows import (
    astronaut_jpeg,
    chatting_members,
    fill_sign_up,
    member_id,
    new_admin,
    new_member,
    open_page,
    paid_contact_request,
    save_scored_photo,
    score_photo,
    sign_in,
    unique_email,
    wait_for_path,
    with_app_database,
)
from tests.e2e.test_admin_partners import pending_partner
from tests.e2e.test_body_scoring import choose_from_gallery, get_the_score
from tests.e2e.test_no_lost_click import HeldClicks, expect_no_answer_notice
from tests.e2e.test_personality import make_premium, on_question, quiz
from tests.e2e.test_phone_layout import measure
from tests.fixtures.body_photos import Scene, feet

# That a retry runs once is up to the tab's state and its lock (Redis's in production) and
# to the database.
pytestmark = [pytest.mark.e2e, pytest.mark.postgres_redis]

#: Long enough for a second run, had there been one, to reach the page or the database.
SETTLE_MS = 3000


def held(page, event: str) -> HeldClicks:
    """Hold back the page's frames of ``event`` from now on."""
    clicks = HeldClicks(event)
    page.route_web_socket(re.compile(r"/_event"), clicks.route)
    return clicks


def retry_after_the_first_answer(page, clicks: HeldClicks, first_outcome) -> None:
    """Let the held press through, wait for ``first_outcome`` (a locator shown by it),
    then let its retry through."""
    clicks.release_one()
    expect(first_outcome).to_be_visible(timeout=30_000)
    clicks.release()
    page.wait_for_timeout(SETTLE_MS)


def count(app_server, model, *where) -> int:
    with with_app_database(app_server) as db:
        return db.exec(select(func.count()).select_from(model).where(*where)).one()


def test_an_unanswered_sign_up_on_a_phone_says_so_and_trying_again_signs_up_once(
    new_context, app_server
):
    page = new_context(viewport=(390, 800)).new_page()
    clicks = held(page, "auth_form_state.submit_sign_up")
    open_page(page, f"{app_server.base_url}/auth")
    address = unique_email("twice")
    fill_sign_up(page, address)

    button = page.get_by_role("button", name=messages.SIGN_UP)
    expect(button).to_be_disabled(timeout=1000)  # busy at once
    notice = expect_no_answer_notice(page, "sign_up")
    layout = measure(page)
    assert layout["scroll"] <= layout["inner"], layout["found"]
    notice.get_by_role("button", name=messages.TRY_AGAIN).click()
    assert len(clicks.held) == 2

    clicks.release()  # the retry waits for the first run's end, then comes
    wait_for_path(page, "/dashboard")
    page.wait_for_timeout(SETTLE_MS)
    expect(page.get_by_text(messages.USER_ALREADY_REGISTERED)).to_have_count(0)
    with with_app_database(app_server) as db:
        owner = member_id(db, address)
    assert count(app_server, AuthSession, AuthSession.user_id == owner) == 1


def test_an_unanswered_chat_message_is_stored_once_after_trying_again(new_context, app_server):
    (address, request_id), _ = chatting_members(app_server, 2, "secret12", "held-chat")
    page = new_context(viewport=(390, 800)).new_page()
    open_page(page, f"{app_server.base_url}/auth")
    sign_in(page, address)
    wait_for_path(page, "/dashboard")
    clicks = held(page, "chat_state.send")
    open_page(page, f"{app_server.base_url}/messages/{request_id}")

    page.get_by_test_id("chat-input").fill("Only once, please")
    page.get_by_test_id("chat-input").press("Enter")
    expect(page.get_by_role("button", name=messages.CHAT_SEND)).to_be_disabled(timeout=1000)
    notice = expect_no_answer_notice(page, "chat_send")
    notice.get_by_role("button", name=messages.TRY_AGAIN).click()
    assert len(clicks.held) == 2

    mine = page.get_by_test_id("message-mine")
    retry_after_the_first_answer(page, clicks, mine.first)
    expect(mine).to_have_count(1)
    assert count(app_server, Message, Message.contact_request_id == request_id) == 1


def test_an_unanswered_ai_edit_spends_one_free_edit_after_trying_again(page, app_server, tmp_path):
    score_photo(page, app_server.base_url, astronaut_jpeg(tmp_path))
    left = page.get_by_test_id("free-edits-left")
    before = int(left.inner_text().split()[-1])
    clicks = held(page, "score_state.run_edit")
    page.reload()  # the held route takes effect on the page's next socket
    expect(left).to_have_text(re.compile(rf"{before}$"))

    preset = page.get_by_role("button", name="Blur background")
    preset.click()
    expect(preset).to_be_disabled(timeout=1000)
    expect(page.get_by_text("Editing...")).to_be_visible(timeout=1000)
    notice = expect_no_answer_notice(page, "results_edit")
    notice.get_by_role("button", name=messages.TRY_AGAIN).click()
    assert len(clicks.held) == 2

    retry_after_the_first_answer(page, clicks, left.get_by_text(str(before - 1)))
    expect(left).to_have_text(re.compile(rf"{before - 1}$"))
    expect(notice).to_have_count(0)


def test_an_unanswered_video_starts_one_generation_after_trying_again(page, app_server, tmp_path):
    address = new_member(page, app_server.base_url, "held-video")
    clicks = held(page, "video_state.start")
    open_page(page, f"{app_server.base_url}/video-generation")
    page.get_by_test_id("video-upload-zone").locator("input[type=file]").set_input_files(
        str(astronaut_jpeg(tmp_path))
    )
    expect(page.get_by_role("img", name="Photo to animate")).to_be_visible()

    page.get_by_role("button", name="Generate Video").click()
    expect(page.get_by_role("button", name="Generate Video")).to_be_disabled(timeout=1000)
    notice = expect_no_answer_notice(page, "video_start")
    notice.get_by_role("button", name=messages.TRY_AGAIN).click()
    assert len(clicks.held) == 2

    retry_after_the_first_answer(page, clicks, page.get_by_test_id("video-processing"))
    with with_app_database(app_server) as db:
        owner = member_id(db, address)
    assert count(app_server, VideoGeneration, VideoGeneration.user_id == owner) == 1


def test_an_unanswered_subscribe_opens_one_checkout_after_trying_again(page, app_server):
    address = new_member(page, app_server.base_url, "held-premium")
    clicks = held(page, "premium_state.subscribe")
    open_page(page, f"{app_server.base_url}/premium")

    button = page.get_by_role("button", name=messages.PREMIUM_SUBSCRIBE)
    button.click()
    expect(button).to_be_disabled(timeout=1000)
    notice = expect_no_answer_notice(page, "subscribe")
    notice.get_by_role("button", name=messages.TRY_AGAIN).click()
    assert len(clicks.held) == 2

    clicks.release()
    page.wait_for_url(re.compile(r"/checkout/test/?\?session=\w+$"))
    page.wait_for_timeout(SETTLE_MS)
    with with_app_database(app_server) as db:
        owner = member_id(db, address)
    assert count(app_server, CheckoutSession, CheckoutSession.user_id == owner) == 1


def press_held(page, clicks: HeldClicks, button, wait: str) -> None:
    """Press ``button`` with its frames held back: busy at once, the notice in words,
    and "Try again" pressed (both presses held)."""
    button.click()
    expect(button).to_be_disabled(timeout=1000)
    notice = expect_no_answer_notice(page, wait)
    notice.get_by_role("button", name=messages.TRY_AGAIN).click()
    assert len(clicks.held) == 2


def test_an_unanswered_payment_and_cancellation_each_run_once_on_a_phone(new_context, app_server):
    page = new_context(viewport=(390, 800)).new_page()
    address = new_member(page, app_server.base_url, "held-pay")
    clicks = held(page, "local_checkout_state.pay")
    open_page(page, f"{app_server.base_url}/premium")
    page.get_by_role("button", name=messages.PREMIUM_SUBSCRIBE).click()
    page.wait_for_url(re.compile(r"/checkout/test/?\?session=\w+$"))
    price = format_amount(PREMIUM_MONTHLY_CENTS)
    pay = page.get_by_role("button", name=messages.TEST_CHECKOUT_PAY.format(amount=price))
    press_held(page, clicks, pay, "test_checkout_pay")
    layout = measure(page)
    assert layout["scroll"] <= layout["inner"], layout["found"]
    clicks.release_one()  # the payment goes through; only then its retry
    wait_for_path(page, "/premium", "?success=true")
    clicks.release()
    page.wait_for_timeout(SETTLE_MS)
    expect(page.get_by_text(messages.CHECKOUT_NOT_FOUND)).to_have_count(0)
    with with_app_database(app_server) as db:
        owner = member_id(db, address)
    assert count(app_server, Subscription, Subscription.user_id == owner) == 1

    clicks.event, clicks.holding = "premium_state.confirm_cancel", True
    open_page(page, f"{app_server.base_url}/premium")
    page.get_by_role("button", name=messages.PREMIUM_CANCEL).click()
    confirm = page.get_by_role("button", name=messages.PREMIUM_CANCEL_CONFIRM)
    press_held(page, clicks, confirm, "cancel_plan")
    clicks.release()
    expect(
        page.get_by_text(re.compile(re.escape(messages.PREMIUM_CANCELLED.split("{")[0])))
    ).to_have_count(1)
    page.wait_for_timeout(SETTLE_MS)
    expect(
        page.get_by_text(re.compile(re.escape(messages.PREMIUM_CANCELLED.split("{")[0])))
    ).to_have_count(1)


def test_an_unanswered_finish_of_the_personality_test_saves_one_result(page, app_server):
    owner = make_premium(app_server, new_member(page, app_server.base_url, "held-quiz"))
    clicks = held(page, "personality_state.finish")
    open_page(page, f"{app_server.base_url}/personality-test")
    for question in range(19):
        on_question(page, question)
        quiz(page).get_by_role("radio").nth(0).click()
        quiz(page).get_by_role("button", name=messages.PERSONALITY_NEXT).click()
    on_question(page, 19)
    quiz(page).get_by_role("radio").nth(0).click()
    finish = quiz(page).get_by_role("button", name=messages.PERSONALITY_FINISH)
    press_held(page, clicks, finish, "personality_finish")

    retry_after_the_first_answer(page, clicks, page.get_by_test_id("personality-result"))
    assert count(app_server, PersonalityResult, PersonalityResult.user_id == owner) == 1


def test_an_unanswered_mark_as_paid_records_one_payout_on_a_phone(new_context, app_server):
    page = new_context(viewport=(390, 800)).new_page()
    account = pending_partner(app_server, (1_500, 2_250))
    new_admin(page, app_server)
    clicks = held(page, "payouts_admin_state.mark_paid")
    open_page(page, f"{app_server.base_url}/admin/payouts")
    owed = page.locator(f'[data-testid="unpaid-row"][data-partner-id="{account.id}"]')
    press_held(page, clicks, owed.get_by_role("button", name=messages.MARK_AS_PAID), "mark_paid")
    layout = measure(page)
    assert layout["scroll"] <= layout["inner"], layout["found"]

    retry_after_the_first_answer(page, clicks, page.get_by_text(messages.PAYOUT_MARKED_SENT))
    expect(page.get_by_test_id("payout-row").filter(has_text=account.code)).to_have_count(1)
    assert count(app_server, PartnerPayout, PartnerPayout.partner_id == account.id) == 1


def shown_once(page, text: str) -> None:
    """``text`` said once: a second run would have said it (or its failure) again."""
    expect(page.get_by_text(text, exact=True)).to_have_count(1)


def test_an_unanswered_approve_and_remove_each_run_once(page, app_server):
    contestant = new_member(page, app_server.base_url, "held-contestant")
    requester = unique_email("held-requester")
    with with_app_database(app_server) as db:
        accounts.sign_up(db, requester, "secret12")
        owner = member_id(db, contestant)
    request_id = paid_contact_request(app_server, requester, contestant, status="pending")
    clicks = held(page, "contact_inbox_state.approve")
    open_page(page, f"{app_server.base_url}/contestant-requests")
    request = page.get_by_test_id("contact-request")
    approve = request.get_by_role("button", name=messages.CONTACT_APPROVE)
    press_held(page, clicks, approve, "contact_approve")
    expect(request.get_by_role("button", name=messages.CONTACT_DENY)).to_be_disabled()

    approved = page.get_by_text(messages.CONTACT_REQUEST_APPROVED, exact=True)
    retry_after_the_first_answer(page, clicks, approved)
    shown_once(page, messages.CONTACT_REQUEST_APPROVED)
    expect(page.get_by_text(messages.FAILED_TO_APPROVE_REQUEST)).to_have_count(0)
    with with_app_database(app_server) as db:
        assert db.get(ContactRequest, request_id).status == "approved"

    with with_app_database(app_server) as db:  # an app added, its first code not yet given
        db.add(MfaFactor(user_id=owner, friendly_name="Old phone", factor_type=mfa.TOTP))
    clicks.event, clicks.holding = "security_state.remove_factor", True
    open_page(page, f"{app_server.base_url}/account/security")
    factor = page.get_by_test_id("security-factor")
    press_held(
        page, clicks, factor.get_by_role("button", name=messages.SECURITY_REMOVE), "remove_factor"
    )
    retry_after_the_first_answer(page, clicks, page.get_by_text(messages.SECURITY_NO_FACTORS))
    shown_once(page, messages.SECURITY_FACTOR_REMOVED)
    expect(page.get_by_text(messages.MFA_FACTOR_NOT_FOUND)).to_have_count(0)
    assert count(app_server, MfaFactor, MfaFactor.user_id == owner) == 0


def test_an_unanswered_delete_of_a_saved_photo_deletes_it_once_on_a_phone(
    new_context, app_server, tmp_path
):
    page = new_context(viewport=(390, 800)).new_page()
    address = new_member(page, app_server.base_url, "held-delete")
    save_scored_photo(page, app_server.base_url, astronaut_jpeg(tmp_path))
    clicks = held(page, "photos_state.delete_selected")
    open_page(page, f"{app_server.base_url}/dashboard")
    page.get_by_test_id("photo-card").click()
    dialog = page.get_by_role("dialog")
    delete = dialog.get_by_role("button", name=re.compile(r"^Delete\b"))  # "Delete Delete" busy
    delete.click()
    confirm = page.get_by_role("alertdialog")
    confirm.get_by_role("button", name="Delete photo").click()
    expect(confirm).to_have_count(0)  # the photo's dialog is hidden from the tree until then
    expect(delete).to_be_disabled(timeout=1000)  # busy at once
    notice = expect_no_answer_notice(page, "photo_delete")
    layout = measure(page)
    assert layout["scroll"] <= layout["inner"], layout["found"]
    notice.get_by_role("button", name=messages.TRY_AGAIN).click()
    assert len(clicks.held) == 2

    retry_after_the_first_answer(page, clicks, page.get_by_text(messages.PHOTO_DELETED))
    shown_once(page, messages.PHOTO_DELETED)
    expect(page.get_by_test_id("photo-card")).to_have_count(0)
    with with_app_database(app_server) as db:
        owner = member_id(db, address)
    assert count(app_server, Photo, Photo.user_id == owner) == 0


def test_an_unanswered_free_trial_and_save_of_a_feet_score_each_run_once(
    page, app_server, tmp_path
):
    address = new_member(page, app_server.base_url, "held-trial")
    clicks = held(page, "feature_gate_state.activate_trial")
    open_page(page, f"{app_server.base_url}/feet-upload")
    locked = page.get_by_test_id("gate-locked")
    trial = locked.get_by_role("button", name=messages.GATE_ACTIVATE_FREE_TRIAL)
    press_held(page, clicks, trial, "activate_trial")

    retry_after_the_first_answer(page, clicks, page.get_by_text(messages.TRIAL_ACTIVATED))
    shown_once(page, messages.TRIAL_ACTIVATED)
    expect(page.get_by_text(messages.FAILED_TO_ACTIVATE_TRIAL)).to_have_count(0)
    with with_app_database(app_server) as db:
        owner = member_id(db, address)
        where = (FeatureTrial.user_id == owner, FeatureTrial.feature_name == gates.FEET_SCORING)
        assert db.exec(select(FeatureTrial.trials_used).where(*where)).one() == 1

    clicks.event, clicks.holding = "body_score_state.save", True
    bare_feet = tmp_path / "feet.jpg"
    Image.fromarray(feet(Scene(skin="deep"))).save(bare_feet, format="JPEG", quality=92)
    choose_from_gallery(page, bare_feet)
    get_the_score(page, messages.GET_MY_SCORE, "/feet-results")
    save = page.get_by_role("button", name=messages.SAVE_TO_DASHBOARD)
    press_held(page, clicks, save, "body_save")
    retry_after_the_first_answer(page, clicks, page.get_by_text(messages.RESULTS_SAVED))
    shown_once(page, messages.RESULTS_SAVED)
    assert count(app_server, Photo, Photo.user_id == owner) == 1
