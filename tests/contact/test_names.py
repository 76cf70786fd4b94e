"""How one member is named to another (the contestant's inbox, the chat): a name the
member chose to show, never their email address or a part of it."""

from __future__ import annotations

from prettyscore.chat import service as chat
from prettyscore.contact import names
from prettyscore.contact import service as contact
from prettyscore.core import messages
from tests.contact.test_service import listed_photo, paid_request


def test_a_member_without_a_name_is_a_plain_member_never_their_address(db, make_member):
    member = make_member("nc_m_private")
    shown = names.public_name(db, member.id)
    assert shown == messages.MEMBER_WITHOUT_NAME
    assert member.email.split("@")[0] not in shown


def test_the_name_given_with_the_account_comes_first_on_one_line(db, make_member):
    member = make_member()
    member.user_metadata = {"full_name": "  Ada \n Lovelace "}
    listed_photo(db, member, 8.0, name="Ada on the board")
    assert names.public_name(db, member.id) == "Ada Lovelace"


def test_else_the_newest_listed_photos_display_name(db, make_member):
    member = make_member()
    listed_photo(db, member, 8.0, name="Older listing", age=3)
    listed_photo(db, member, 8.5, name="Newest listing", age=1)
    listed_photo(db, member, 9.0, name="Never listed", listed=False)
    assert names.public_name(db, member.id) == "Newest listing"


def test_the_inbox_and_the_chat_show_the_sender_by_that_name(db, make_member):
    requester, contestant = make_member(), make_member()
    listed_photo(db, requester, 7.0, name="Sam")
    photo = listed_photo(db, contestant, 9.0, name="Bella")
    request = paid_request(db, requester, photo)
    (entry,) = contact.inbox(db, contestant.id)
    assert entry.requester == "Sam"
    assert chat.party_name(db, request, contestant.id) == "Sam"
    assert chat.party_name(db, request, requester.id) == "Bella"
