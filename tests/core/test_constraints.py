"""The rules the documents imply hold in the database itself, whatever the code does."""

from __future__ import annotations

import uuid

from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from prettyscore.accounts import service
from prettyscore.accounts.models import Profile, User, UserRole
from prettyscore.billing.models import PaymentEvent
from prettyscore.gates.models import FeatureTrial
from prettyscore.opportunities.models import OpportunityClaim
from prettyscore.partners.models import PartnerAccount
from prettyscore.photos.models import Photo
from prettyscore.verification.models import VerificationRequest


def member(db, address: str) -> uuid.UUID:
    return service.sign_up(db, address, "secret1").user_id


def refused(db, *rows) -> bool:
    """Whether inserting ``rows`` breaks a constraint (the transaction is left clean)."""
    try:
        with db.begin_nested():
            db.add_all(rows)
            db.flush()
    except IntegrityError:
        return True
    return False


def partner(user_id, code, promo=""):
    return PartnerAccount(user_id=user_id, display_name="P", code=code, promo_code=promo)


def test_one_partner_account_per_member(db):
    uid = member(db, "p1@example.com")
    assert not refused(db, partner(uid, "AAA11"))
    assert refused(db, partner(uid, "BBB22"))


def test_partner_codes_are_unique(db):
    a, b = member(db, "p2@example.com"), member(db, "p3@example.com")
    assert not refused(db, partner(a, "SAME1"))
    assert refused(db, partner(b, "SAME1"))


def test_promo_codes_are_unique_when_set_and_blank_is_allowed_many_times(db):
    a, b, c, d = (member(db, f"promo{i}@example.com") for i in range(4))
    assert not refused(db, partner(a, "CODEA", ""), partner(b, "CODEB", ""))
    assert not refused(db, partner(c, "CODEC", "SUMMER"))
    assert refused(db, partner(d, "CODED", "SUMMER"))


def test_one_verification_request_per_member(db):
    uid = member(db, "v@example.com")
    first = VerificationRequest(user_id=uid, full_name="V", reason="r")
    assert not refused(db, first)
    assert refused(db, VerificationRequest(user_id=uid, full_name="V", reason="again"))


def test_one_opportunity_application_per_member(db):
    uid = member(db, "o@example.com")

    def claim():
        return OpportunityClaim(
            user_id=uid, full_name="O", email="o@example.com", phone="+15551234567", location="X"
        )

    assert not refused(db, claim())
    assert refused(db, claim())


def test_a_role_is_held_once_and_a_payment_event_is_processed_once(db):
    uid = member(db, "r@example.com")
    assert not refused(db, UserRole(user_id=uid, role="admin"))
    assert refused(db, UserRole(user_id=uid, role="admin"))
    assert not refused(db, PaymentEvent(event_id="evt_1", event_type="checkout.session.completed"))
    assert refused(db, PaymentEvent(event_id="evt_1", event_type="checkout.session.completed"))
    assert not refused(db, FeatureTrial(user_id=uid, feature_name="feet_scoring"))
    assert refused(db, FeatureTrial(user_id=uid, feature_name="feet_scoring"))


def test_deleting_a_member_deletes_their_rows(db):
    uid = member(db, "gone@example.com")
    db.add(Photo(user_id=uid, original_image_url="/media/x", score=8.1, rating_label="Gorgeous"))
    db.flush()
    db.delete(db.get(User, uid))
    db.flush()
    db.expire_all()
    assert db.exec(select(Photo)).all() == []
    assert db.get(Profile, uid) is None
