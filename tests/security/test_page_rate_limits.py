"""Rate limits on the pages: the /auth forms keep the API's budgets, and a member's contact
requests and chat messages are limited in the services, whoever calls them.

Handlers are called in process as a browser's event would call them, from a chosen client
address; the REST API runs beside them on the same database and the same limiter, so one
budget can be spent half on each. Limits are set small per test (env, as a deployment sets
them) and every test starts with no counted attempts. A refused attempt shows when to try
again and changes nothing: no session, no mail, no row.
"""

from __future__ import annotations

import re
import uuid

import pytest
from reflex.istate.data import RouterData, SessionData
from sqlmodel import func, select

from prettyscore.accounts import service as accounts
from prettyscore.accounts.form_state import AuthFormState, ForgotPasswordState
from prettyscore.accounts.models import AuthSession, User
from prettyscore.billing.models import CheckoutSession
from prettyscore.chat import service as chat
from prettyscore.chat.models import Message
from prettyscore.chat.state import ChatState
from prettyscore.contact.models import ContactRequest
from prettyscore.contact.state import ContactState
from prettyscore.core import messages
from prettyscore.core.member_limits import wait_phrase
from prettyscore.core.rate_limits import RateLimited, get_rate_limiter
from prettyscore.photos.models import Photo
from tests.fixtures.factories import add_request
from tests.fixtures.handlers import Reply, a_browser, call, hold_session
from tests.helpers.auth_api import PASSWORD, bearer, mails_to, sign_in, sign_up

API_ADDRESS = "127.0.0.1"  # where the test's HTTP client connects from
OTHER_ADDRESS = "198.51.100.7"
CONTACT_TEXT = "Hello! I would love to talk about your photo."


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------
def new_email() -> str:
    return f"member-{uuid.uuid4().hex[:12]}@example.com"


def in_browser(state_class, *, address: str = API_ADDRESS, tokens=None):
    """A fresh page state, connected from ``address``, holding ``tokens`` (None: visitor)."""
    state = state_class()
    state.router = RouterData(session=SessionData(client_ip=address), headers=a_browser())
    return hold_session(state, tokens) if tokens is not None else state


def page_sign_in(email: str, password: str = PASSWORD, address: str = API_ADDRESS):
    state = in_browser(AuthFormState, address=address)
    return state, call(state, "submit_sign_in", {"email": email, "password": password})


def page_recovery(email: str, address: str = API_ADDRESS) -> Reply:
    return call(in_browser(ForgotPasswordState, address=address), "submit", {"email": email})


def limited(template: str) -> re.Pattern:
    """The text of ``template`` (messages.py, with ``{wait}``) for any wait."""
    before, after = (re.escape(part) for part in template.split("{wait}"))
    return re.compile(f"{before}\\d+ (second|seconds|minutes){after}")


def assert_refused(reply: Reply, template: str = messages.TOO_MANY_ATTEMPTS) -> None:
    """One error toast saying when to try again, and nowhere to go."""
    [(kind, text)] = reply.toasts
    assert kind == "error" and limited(template).fullmatch(text), text
    assert reply.redirects == []


def count(db, model, *where) -> int:
    db.rollback()  # read what the handlers committed since
    return db.exec(select(func.count()).select_from(model).where(*where)).one()


def member_tokens(db, prefix: str = "member"):
    tokens = accounts.sign_up(db, f"{prefix}-{uuid.uuid4().hex[:8]}@example.com", PASSWORD)
    db.commit()
    return tokens


# ---------------------------------------------------------------------------
# Sign-in, sign-up, recovery: the API's rules and budgets
# ---------------------------------------------------------------------------
def test_wrong_passwords_on_the_page_and_the_api_spend_one_budget_per_email_and_address(
    api, db, auth_settings
):
    auth_settings(RATE_LIMIT_SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS="3 per 15 minutes")
    known, unknown = new_email(), new_email()
    user_id = sign_up(api, known)["user"]["id"]

    replies = {}
    for email in (known, unknown):
        api_failures = [sign_in(api, email, "wrong password") for _ in range(2)]
        _, page_failure = page_sign_in(email, "wrong password", API_ADDRESS)
        assert [answer.status_code for answer in api_failures] == [400, 400]
        assert page_failure.toasts == [("error", messages.INVALID_CREDENTIALS)]
        state, replies[email] = page_sign_in(email, PASSWORD, API_ADDRESS)  # right, too late
        assert state.access_token == ""

    assert_refused(replies[known])
    assert replies[known] == replies[unknown]  # nobody learns which email has an account
    assert sign_in(api, known).status_code == 429  # the API keeps counting the same budget
    assert count(db, AuthSession, AuthSession.user_id == uuid.UUID(user_id)) == 1  # sign-up's


def test_wrong_passwords_from_elsewhere_never_lock_the_owner_out(api, auth_settings):
    """Someone guessing a member's password from their own address makes only that
    address wait; the member signs in from theirs as usual."""
    auth_settings(RATE_LIMIT_SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS="3 per 15 minutes")
    member = new_email()
    sign_up(api, member)

    for _ in range(3):
        assert sign_in(api, member, "wrong password").status_code == 400
    assert sign_in(api, member).status_code == 429  # the guesser's address waits

    state, owner = page_sign_in(member, PASSWORD, OTHER_ADDRESS)
    assert owner.toasts == [("success", messages.WELCOME_BACK)]
    assert state.access_token != ""


def test_the_waits_grow_with_the_failures(api, auth_settings):
    auth_settings(
        RATE_LIMIT_SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS="2 per minute; 4 per 15 minutes"
    )
    member = new_email()
    sign_up(api, member)
    for _ in range(2):
        sign_in(api, member, "wrong password")
    first_wait = int(sign_in(api, member).headers["Retry-After"])
    get_rate_limiter().clear("2 per minute", "sign-in-failures-email-address", member, API_ADDRESS)
    for _ in range(2):
        sign_in(api, member, "wrong password")
    second_wait = int(sign_in(api, member).headers["Retry-After"])
    assert first_wait <= 60 < second_wait <= 15 * 60


def test_wrong_passwords_on_the_page_lock_the_address_for_the_api_too(api, auth_settings):
    auth_settings(RATE_LIMIT_SIGN_IN_FAILURES_PER_ADDRESS="2 per 15 minutes")
    member = new_email()
    sign_up(api, member)

    for _ in range(2):
        _, failure = page_sign_in(new_email(), "wrong password", API_ADDRESS)
        assert failure.toasts == [("error", messages.INVALID_CREDENTIALS)]
    _, refused = page_sign_in(member, PASSWORD, API_ADDRESS)
    state, elsewhere = page_sign_in(member, PASSWORD, OTHER_ADDRESS)

    assert sign_in(api, member).status_code == 429
    assert_refused(refused)
    assert elsewhere.toasts == [("success", messages.WELCOME_BACK)]
    assert state.access_token != ""


def test_sign_ups_on_the_page_share_the_address_budget_with_the_api(api, db, auth_settings):
    auth_settings(RATE_LIMIT_SIGN_UPS_PER_ADDRESS="2 per hour")
    first, second, third = new_email(), new_email(), new_email()

    sign_up(api, first)
    created = call(
        in_browser(AuthFormState), "submit_sign_up", {"email": second, "password": PASSWORD}
    )
    refused = call(
        in_browser(AuthFormState), "submit_sign_up", {"email": third, "password": PASSWORD}
    )
    elsewhere = call(
        in_browser(AuthFormState, address=OTHER_ADDRESS),
        "submit_sign_up",
        {"email": third, "password": PASSWORD},
    )

    assert created.toasts == [("success", messages.ACCOUNT_CREATED)]
    assert_refused(refused)
    assert elsewhere.toasts == [("success", messages.ACCOUNT_CREATED)]
    assert count(db, User, User.email == third) == 1  # made from the other address only


def test_the_recovery_page_mails_an_email_once_a_minute_and_answers_unknown_ones_alike(
    api, db, outbox, auth_settings
):
    auth_settings(RATE_LIMIT_MAILS_PER_EMAIL="1 per minute")
    known, unknown = new_email(), new_email()
    sign_up(api, known)

    first = {email: page_recovery(email) for email in (known, unknown)}
    again = {email: page_recovery(email, OTHER_ADDRESS) for email in (known, unknown)}
    api_again = api.post("/auth/v1/recover", json={"email": known})

    assert first[known] == first[unknown]
    assert first[known].toasts == [("success", messages.RECOVERY_EMAIL_SENT)]
    assert again[known] == again[unknown]
    assert_refused(again[known])
    assert api_again.status_code == 429
    assert len(mails_to(outbox, known)) == 1
    assert mails_to(outbox, unknown) == []


def test_the_recovery_page_shares_the_address_mail_budget_with_the_api(api, outbox, auth_settings):
    auth_settings(RATE_LIMIT_MAILS_PER_ADDRESS="2 per hour")
    by_api, by_page, refused_one = new_email(), new_email(), new_email()
    for email in (by_api, by_page, refused_one):
        sign_up(api, email)

    assert api.post("/auth/v1/recover", json={"email": by_api}).status_code == 200
    sent = page_recovery(by_page)
    refused = page_recovery(refused_one)

    assert sent.toasts == [("success", messages.RECOVERY_EMAIL_SENT)]
    assert_refused(refused)
    assert len(mails_to(outbox, by_page)) == 1
    assert mails_to(outbox, refused_one) == []


# ---------------------------------------------------------------------------
# Contact requests and chat messages: per member, in the services
# ---------------------------------------------------------------------------
def listed_photo(db, owner_id) -> Photo:
    photo = Photo(
        user_id=owner_id,
        original_image_url="/media/member/x.jpg",
        score=9.5,
        rating_label="Elite Beauty",
        breakdown={},
        public_listing=True,
        display_name="Star",
    )
    db.add(photo)
    db.commit()
    return photo


def send_contact(tokens, photo: Photo) -> Reply:
    state = in_browser(ContactState, tokens=tokens)
    state.contact_photo_id, state.contact_message = str(photo.id), CONTACT_TEXT
    return call(state, "send_contact")


def test_a_member_may_make_only_so_many_contact_requests_from_any_caller(api, db, auth_settings):
    auth_settings(RATE_LIMIT_CONTACT_REQUESTS_PER_MEMBER="2 per hour")
    fan, other_fan, star = (member_tokens(db, name) for name in ("fan", "fan2", "star"))
    photo = listed_photo(db, star.user_id)
    by_rest = {
        "type": "contact_request",
        "metadata": {"photo_id": str(photo.id), "message": CONTACT_TEXT},
    }

    def rest_checkout():
        headers = bearer(fan.access_token)
        return api.post("/functions/v1/create-checkout", json=by_rest, headers=headers)

    too_short = call(in_browser(ContactState, tokens=fan), "send_contact")  # not counted
    first = send_contact(fan, photo)
    second = rest_checkout()
    third = send_contact(fan, photo)
    fourth = rest_checkout()
    someone_else = send_contact(other_fan, photo)

    assert too_short.toasts == [("error", messages.CONTACT_MESSAGE_TOO_SHORT)]
    assert len(first.redirects) == 1 and second.status_code == 200
    assert_refused(third, messages.CONTACT_REQUESTS_RATE_LIMITED)
    assert fourth.status_code == 429
    assert limited(messages.CONTACT_REQUESTS_RATE_LIMITED).fullmatch(fourth.json()["msg"])
    assert int(fourth.headers["Retry-After"]) > 0
    assert len(someone_else.redirects) == 1
    assert count(db, ContactRequest, ContactRequest.requester_id == fan.user_id) == 2
    assert count(db, CheckoutSession, CheckoutSession.user_id == fan.user_id) == 2


def chat_page(tokens, request_id) -> ChatState:
    state = in_browser(ChatState, tokens=tokens)
    state._request_id, state._user_id = str(request_id), str(tokens.user_id)
    return state


def test_a_member_may_send_only_so_many_chat_messages(api, db, auth_settings):
    auth_settings(RATE_LIMIT_CHAT_MESSAGES_PER_MEMBER="3 per minute")
    alice, bob = member_tokens(db, "alice"), member_tokens(db, "bob")
    request = add_request(db, db.get(User, alice.user_id), db.get(User, bob.user_id))
    page = chat_page(alice, request.id)

    empty = call(page, "send", {"content": "   "})  # refused by its own rule, not counted
    sent = [call(page, "send", {"content": f"message {number}"}) for number in range(3)]
    refused = call(page, "send", {"content": "one too many"})
    with pytest.raises(RateLimited) as from_service:
        chat.send_message(db, alice.user_id, request.id, "straight to the service")
    db.rollback()
    answer = call(chat_page(bob, request.id), "send", {"content": "Bob is not limited"})

    assert empty.toasts == [("error", messages.CHAT_MESSAGE_EMPTY)]
    assert all(reply.toasts == [] for reply in sent)
    assert_refused(refused, messages.CHAT_MESSAGES_RATE_LIMITED)
    assert from_service.value.status == 429
    assert answer.toasts == []
    assert count(db, Message, Message.sender_id == alice.user_id) == 3
    assert count(db, Message, Message.sender_id == bob.user_id) == 1
    assert [line.content for line in page.lines] == [f"message {n}" for n in range(3)]


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (1, "1 second"),
        (45, "45 seconds"),
        (89, "89 seconds"),
        (90, "2 minutes"),
        (900, "15 minutes"),
    ],
)
def test_a_wait_is_told_in_seconds_then_in_minutes(seconds, said):
    assert wait_phrase(seconds) == said


@pytest.mark.parametrize("content", [None, 7, ["hi"], {"text": "hi"}], ids=repr)
def test_a_forged_chat_message_that_is_not_text_stores_nothing(api, db, content):
    alice, bob = member_tokens(db, "alice"), member_tokens(db, "bob")
    request = add_request(db, db.get(User, alice.user_id), db.get(User, bob.user_id))

    reply = call(chat_page(alice, request.id), "send", {"content": content})

    assert reply.toasts and reply.toasts[0][0] == "error"
    assert count(db, Message, Message.contact_request_id == request.id) == 0
