"""Who may read and write a conversation, and what a message may be (both databases)."""

from __future__ import annotations

import pytest

from prettyscore.chat import service
from prettyscore.core import messages
from prettyscore.core.errors import DomainError


def refusal(action, *args) -> str:
    """The text ``action(*args)`` refuses with."""
    with pytest.raises(DomainError) as raised:
        action(*args)
    return raised.value.message


def test_both_parties_of_an_approved_request_read_and_send(db, make_member, make_request):
    alice, bob = make_member("alice"), make_member("bob")
    request = make_request(alice, bob)

    service.send_message(db, alice.id, request.id, "Hi Bob")
    service.send_message(db, bob.id, str(request.id), "Hi Alice")
    db.commit()

    for reader in (alice, bob):
        shown = service.messages_since(db, reader.id, request.id)
        assert [m.content for m in shown] == ["Hi Bob", "Hi Alice"]


def test_the_receiver_is_the_other_party(db, make_member, make_request):
    alice, bob = make_member("alice"), make_member("bob")
    request = make_request(alice, bob)

    to_bob = service.send_message(db, alice.id, request.id, "to bob")
    to_alice = service.send_message(db, bob.id, request.id, "to alice")

    assert (to_bob.sender_id, to_bob.receiver_id) == (alice.id, bob.id)
    assert (to_alice.sender_id, to_alice.receiver_id) == (bob.id, alice.id)


def test_strangers_and_other_requesters_are_told_it_is_not_found(db, make_member, make_request):
    alice, bob, carol, dave = (make_member(n) for n in ("alice", "bob", "carol", "dave"))
    request = make_request(alice, bob)
    make_request(dave, bob)  # dave has a request of his own, with the same contestant

    for outsider in (carol, dave):
        assert refusal(service.open_conversation, db, outsider.id, request.id) == (
            messages.CONTACT_REQUEST_NOT_FOUND
        )
        assert refusal(service.send_message, db, outsider.id, request.id, "hi") == (
            messages.CONTACT_REQUEST_NOT_FOUND
        )
        assert refusal(service.messages_since, db, outsider.id, request.id) == (
            messages.CONTACT_REQUEST_NOT_FOUND
        )


@pytest.mark.parametrize("status", ["pending", "denied"])
def test_parties_of_a_request_not_approved_are_told_so(db, make_member, make_request, status):
    alice, bob = make_member("alice"), make_member("bob")
    request = make_request(alice, bob, status)

    for party in (alice, bob):
        assert refusal(service.send_message, db, party.id, request.id, "hi") == (
            messages.CONTACT_REQUEST_NOT_APPROVED
        )
        assert refusal(service.messages_since, db, party.id, request.id) == (
            messages.CONTACT_REQUEST_NOT_APPROVED
        )


@pytest.mark.parametrize("bad_id", ["not-a-uuid", "", "00000000-0000-0000-0000-000000000000"])
def test_malformed_or_unknown_ids_are_not_found(db, make_member, bad_id):
    alice = make_member("alice")
    assert refusal(service.open_conversation, db, alice.id, bad_id) == (
        messages.CONTACT_REQUEST_NOT_FOUND
    )


@pytest.mark.parametrize(
    ("text", "refused_with"),
    [
        ("", messages.CHAT_MESSAGE_EMPTY),
        ("   \n\t  ", messages.CHAT_MESSAGE_EMPTY),
        ("  x  ", None),
        ("  " + "y" * 5000 + "\n", None),
        ("z" * 5001, messages.CHAT_MESSAGE_TOO_LONG),
    ],
    ids=["0", "0-after-trimming", "1", "5000", "5001"],
)
def test_messages_are_1_to_5000_characters_after_trimming(
    db, make_member, make_request, text, refused_with
):
    alice, bob = make_member("alice"), make_member("bob")
    request = make_request(alice, bob)

    if refused_with:
        assert refusal(service.send_message, db, alice.id, request.id, text) == (refused_with)
        assert service.messages_since(db, bob.id, request.id) == []
    else:
        service.send_message(db, alice.id, request.id, text)
        db.commit()
        [stored] = service.messages_since(db, bob.id, request.id)
        assert stored.content == text.strip()


def test_html_is_stored_as_typed(db, make_member, make_request):
    alice, bob = make_member("alice"), make_member("bob")
    request = make_request(alice, bob)
    typed = "<script>alert(1)</script> <b>bold</b>"
    service.send_message(db, alice.id, request.id, typed)
    assert service.messages_since(db, bob.id, request.id)[0].content == typed


def test_messages_since_returns_only_newer_messages_in_order(db, make_member, make_request):
    alice, bob = make_member("alice"), make_member("bob")
    request = make_request(alice, bob)
    first = service.send_message(db, alice.id, request.id, "one")
    service.send_message(db, bob.id, request.id, "two")
    service.send_message(db, alice.id, request.id, "three")
    db.commit()

    newer = service.messages_since(db, bob.id, request.id, after=first.created_at)
    assert [m.content for m in newer] == ["two", "three"]
    latest_two = service.messages_since(db, bob.id, request.id, limit=2)
    assert [m.content for m in latest_two] == ["two", "three"]


def test_conversations_list_approved_requests_newest_first(db, make_member, make_request):
    alice, bob, carol, dave = (make_member(n) for n in ("alice", "bob", "carol", "dave"))
    with_bob = make_request(alice, bob)
    with_carol = make_request(carol, alice)  # alice is the contestant here
    make_request(alice, dave, "pending")
    service.send_message(db, alice.id, with_bob.id, "older")
    service.send_message(db, carol.id, with_carol.id, "newer\nmessage")
    db.commit()

    listed = service.conversations(db, alice.id)

    assert [c.request_id for c in listed] == [with_carol.id, with_bob.id]
    nameless = messages.MEMBER_WITHOUT_NAME
    assert [c.other_name for c in listed] == [nameless, nameless]  # never an email
    assert listed[0].last_message == "newer message"
    assert service.conversations(db, dave.id) == []
