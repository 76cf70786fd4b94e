"""Two members chat live on /messages/{requestId}, each in their own browser.

On the postgres-redis server the app runs two backend workers sharing Redis, and each
browser holds its own websocket; granian spreads connections over its workers, so the
two people are usually (not provably always) served by different workers. The test
checks that the message was announced through Redis and reached the other page without
a reload; tests/chat/test_live.py proves delivery between two separate listeners.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import pytest
import redis
from playwright.sync_api import expect

from prettyscore.chat import live
from prettyscore.core import messages
from tests.e2e.flows import (
    expect_on_load_notice,
    lose_tab_state,
    member_name,
    new_member,
    open_page,
    paid_contact_request,
    wait_for_path,
    wait_until_ready,
)

pytestmark = pytest.mark.e2e

#: Live delivery should take well under a second; this only bounds a hung test.
ARRIVES_WITHIN_MS = 5_000


def _chat_input(page):
    return page.get_by_test_id("chat-input")


def _theirs(page):
    """The texts of the other party's messages on ``page``."""
    return page.get_by_test_id("message-theirs").get_by_test_id("message-text")


@contextlib.contextmanager
def redis_announcements(app_server) -> Iterator[Callable[[], list[str]]]:
    """Listen to the app's chat channels in Redis (when it uses Redis); yields a function
    returning the channels announced so far."""
    if not app_server.redis_url:
        yield list
        return
    client = redis.Redis.from_url(app_server.redis_url)
    listener = client.pubsub()
    listener.psubscribe(live.CHANNEL_PREFIX + "*")
    listener.get_message(timeout=1)  # the subscription's confirmation

    def announced() -> list[str]:
        channels = []
        while (item := listener.get_message(timeout=0.5)) is not None:
            if item["type"] == "pmessage":
                channels.append(item["channel"].decode())
        return channels

    try:
        yield announced
    finally:
        listener.close()
        client.close()


@pytest.mark.postgres_redis  # two workers, the message announced through Redis
def test_two_members_chat_live_and_messages_show_as_text(new_context, app_server):
    base = app_server.base_url
    alice, bob = new_context().new_page(), new_context().new_page()
    alice_address = new_member(alice, base, "requester")
    bob_address = new_member(bob, base, "contestant")
    request_id = paid_contact_request(app_server, alice_address, bob_address)
    chat_url = f"{base}/messages/{request_id}"

    open_page(alice, chat_url)
    open_page(bob, chat_url)
    expect(alice.get_by_test_id("chat-with")).to_contain_text(member_name(bob_address))
    expect(alice.get_by_role("button", name=messages.CHAT_SEND)).to_be_disabled()

    # Alice types and presses Enter: the message shows on Bob's page without a reload.
    with redis_announcements(app_server) as announced:
        _chat_input(alice).fill("Hi Bob, congratulations on your rank!")
        expect(alice.get_by_role("button", name=messages.CHAT_SEND)).to_be_enabled()
        _chat_input(alice).press("Enter")
        expect(_theirs(bob)).to_have_text(
            "Hi Bob, congratulations on your rank!", timeout=ARRIVES_WITHIN_MS
        )
        if app_server.redis_url:  # the two-worker server announced it through Redis
            assert live.channel(request_id) in announced()
    expect(_chat_input(alice)).to_have_value("")
    expect(alice.get_by_test_id("message-mine")).to_contain_text("congratulations")

    # Bob writes two lines with Shift+Enter, then sends: two lines on Alice's page.
    _chat_input(bob).press_sequentially("Thank you!")
    _chat_input(bob).press("Shift+Enter")
    _chat_input(bob).press_sequentially("Nice to meet you.")
    expect(_chat_input(bob)).to_have_value("Thank you!\nNice to meet you.")
    _chat_input(bob).press("Enter")
    expect(_theirs(alice).first).to_have_text(
        "Thank you!\nNice to meet you.", timeout=ARRIVES_WITHIN_MS, use_inner_text=True
    )

    # Markup is shown as typed, never run or rendered.
    markup = "<script>window.chatHacked = 1</script> <b>bold?</b>"
    _chat_input(alice).fill(markup)
    _chat_input(alice).press("Enter")
    expect(_theirs(bob).nth(1)).to_have_text(markup, timeout=ARRIVES_WITHIN_MS)
    assert bob.evaluate("window.chatHacked === undefined")
    expect(bob.get_by_test_id("chat-box").locator("b")).to_have_count(0)

    # Enter on a blank text sends nothing; a reload shows the whole conversation again.
    _chat_input(bob).press("Enter")
    bob.reload()
    wait_until_ready(bob)
    expect(bob.get_by_test_id("message-text")).to_have_count(3)

    # The conversation is listed on /messages for both.
    open_page(bob, f"{base}/messages")
    expect(bob.get_by_test_id("conversation")).to_contain_text(member_name(alice_address))


@pytest.mark.postgres_redis
@pytest.mark.alone  # beside three other browser tests, the rebuilt state once lost the typing
def test_a_message_sent_after_redis_lost_the_tab_state_reaches_the_open_chat(
    new_context, app_server
):
    """Redis loses a tab's state while its chat stays open (a restart, an expiry): the
    member's next message still goes to that chat and the conversation stays on screen,
    where it used to be refused as sent to no chat and the page went home."""
    if not app_server.redis_url:
        pytest.skip("the in-memory state manager keeps a tab's state while the app runs")
    base = app_server.base_url
    alice, bob = new_context().new_page(), new_context().new_page()
    alice_address = new_member(alice, base, "requester")
    bob_address = new_member(bob, base, "contestant")
    request_id = paid_contact_request(app_server, alice_address, bob_address)
    open_page(alice, f"{base}/messages/{request_id}")
    open_page(bob, f"{base}/messages/{request_id}")
    _chat_input(alice).fill("Before the restart")
    _chat_input(alice).press("Enter")
    expect(_theirs(bob)).to_have_text("Before the restart", timeout=ARRIVES_WITHIN_MS)

    lose_tab_state(app_server, alice)
    _chat_input(alice).fill("After the restart")
    _chat_input(alice).press("Enter")

    expect(_theirs(bob)).to_have_text(
        ["Before the restart", "After the restart"], timeout=ARRIVES_WITHIN_MS
    )
    mine = alice.get_by_test_id("message-mine").get_by_test_id("message-text")
    expect(mine).to_have_text(["Before the restart", "After the restart"])
    expect(_chat_input(alice)).to_have_value("")
    wait_for_path(alice, f"/messages/{request_id}")

    # Lost again while typing: the chat opens again on the fresh state, and the text
    # being typed stays in the field (it used to be cleared, so Enter sent nothing).
    lose_tab_state(app_server, alice)
    _chat_input(alice).fill("Typed across the restart")
    alice.wait_for_timeout(2000)  # the state rebuilt, and the chat's load run again
    expect(_chat_input(alice)).to_have_value("Typed across the restart")
    _chat_input(alice).press("Enter")
    expect(_theirs(bob)).to_have_text(
        ["Before the restart", "After the restart", "Typed across the restart"],
        timeout=ARRIVES_WITHIN_MS,
    )
    expect(alice.get_by_text(messages.CONTACT_REQUEST_NOT_FOUND)).to_have_count(0)
    # Her page follows the conversation live again: Bob's answer shows without a reload.
    _chat_input(bob).fill("Welcome back")
    _chat_input(bob).press("Enter")
    expect(_theirs(alice)).to_have_text("Welcome back", timeout=ARRIVES_WITHIN_MS)


def test_a_stranger_is_told_the_request_is_not_found_and_sent_home(new_context, app_server):
    base = app_server.base_url
    alice, bob, stranger = (new_context().new_page() for _ in range(3))
    alice_address = new_member(alice, base, "requester")
    bob_address = new_member(bob, base, "contestant")
    new_member(stranger, base, "stranger")
    request_id = paid_contact_request(app_server, alice_address, bob_address)

    stranger.goto(f"{base}/messages/{request_id}")
    expect_on_load_notice(stranger, messages.CONTACT_REQUEST_NOT_FOUND)
    wait_for_path(stranger, "/")


def test_a_party_of_a_pending_request_is_told_it_is_not_approved(new_context, app_server):
    base = app_server.base_url
    alice, bob = new_context().new_page(), new_context().new_page()
    alice_address = new_member(alice, base, "requester")
    bob_address = new_member(bob, base, "contestant")
    request_id = paid_contact_request(app_server, alice_address, bob_address, "pending")

    alice.goto(f"{base}/messages/{request_id}")
    expect_on_load_notice(alice, messages.CONTACT_REQUEST_NOT_APPROVED)
    wait_for_path(alice, "/")


def test_a_visitor_is_sent_to_sign_in_first(page, app_server):
    page.goto(f"{app_server.base_url}/messages/some-request")
    wait_for_path(page, "/auth", "?next=/messages/some-request")
