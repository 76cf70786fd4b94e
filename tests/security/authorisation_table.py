"""The expected access table: every Reflex event handler, page and HTTP route of the app,
and who may use it (documents 000 §6 and 001 §6, §2 routes).

Access kinds:

* ``EVERYONE`` visitors included. For a visitor the call changes no product data (it only
  moves the page's own view), unless ``writes`` says what it may create.
* ``MEMBERS`` any signed-in member; a visitor is sent to /auth and nothing changes.
* ``ADMINS`` admins only; a visitor is sent to /auth, a member gets ``refusal`` and is sent
  home, and nothing changes.
* ``OWNER`` the member's own thing (the arguments/vars name the member's photo, checkout,
  ...); a visitor is sent to /auth, the stranger passing the same ids gets no success and
  nothing changes.
* ``CONTESTANT`` the contestant's own incoming contact request: the requester (member) and
  the stranger are refused and nothing changes.

``skip`` says why a handler is not run in process (it is still classified).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from prettyscore.core import messages

EVERYONE, MEMBERS, ADMINS, OWNER, CONTESTANT = (
    "everyone",
    "members",
    "admins",
    "owner",
    "contestant",
)

BACKGROUND = (
    "background task (@rx.event(background=True)): needs a running app to lend it the "
    "state's lock; the service rule it calls is checked over REST or by its page's handler"
)
UPLOAD = (
    "upload handler: takes files streamed by /_upload; the same services are checked over "
    "HTTP by tests/security/test_upload_fuzz.py and the REST edit-photo/generate-video rows"
)


@dataclass(frozen=True)
class Rule:
    access: str
    args: Callable = lambda w: ()
    vars: Callable = lambda w: {}  # public vars a forged client sets before the call
    route: Callable = lambda w: ("", {})  # (url, page params) the event comes from
    refusal: str = ""  # the members' toast for ADMINS
    writes: str = ""  # what an EVERYONE handler may store for a visitor
    skip: str = ""
    #: How a visitor is refused: SIGN_IN (sent to /auth), QUIET (nothing shown, nothing
    #: changed: the page's on_load guard sent them to /auth before they could act; the
    #: reason is in ``why``), or a toast's text.
    visitor: str = "sign_in"
    home: bool = True  # ADMINS: a member refused is also sent home
    raises: type[Exception] | None = None  # EVERYONE: a forged call that Reflex refuses
    why: str = ""


def _photo(w):
    return (w.photo_id,)


def _listed(w):
    return (w.listed_photo_id,)


def _selected(w):
    from prettyscore.photos.state import PhotoCard

    return {"selected": PhotoCard(id=w.photo_id, score="7.2")}


def _checkout(w):
    return (f"/checkout/test?session={w.checkout_session}", {})


def _chat(w):
    return (f"/messages/{w.contact_request_id}", {"chat_request_id": w.contact_request_id})


DENIED, REQUIRED = messages.ACCESS_DENIED_ADMIN_ONLY, messages.ADMIN_ACCESS_REQUIRED
SIGN_IN, QUIET = "sign_in", "quiet"
ON_LOAD_ADMIN = "the page's on_load require_admin guard redirects first; open_page lists nothing"
# (refusal=QUIET on an admin page's open_page: members are turned away by the same guard)
NOTHING_SELECTED = "acts on a card of the member's own loaded list; a visitor has none"
NO_RESULT = "saves this tab's own analysis result; a forged call without one goes home"

# Handlers of AuthState every page state inherits; keyed by the class that defines them.
HANDLERS: dict[str, Rule] = {
    # -- every state ----------------------------------------------------------------
    "State.setvar": Rule(EVERYONE, args=lambda w: ("is_admin", True), raises=AttributeError),
    # -- accounts -------------------------------------------------------------------
    "AuthState.load_session": Rule(EVERYONE),
    "AuthState.require_user": Rule(MEMBERS),
    "AuthState.require_admin": Rule(ADMINS, refusal=DENIED),
    "AuthState.require_verification_admin": Rule(ADMINS, refusal=REQUIRED),
    "AuthState.sign_out": Rule(EVERYONE),
    "AuthFormState.open_page": Rule(EVERYONE),
    "AuthFormState.cancel_second_step": Rule(EVERYONE),
    "AuthFormState.submit_second_step": Rule(EVERYONE, args=lambda w: ({"code": "123456"},)),
    "AuthFormState.submit_sign_in": Rule(
        EVERYONE, args=lambda w: ({"email": "nobody@example.com", "password": "wrong"},)
    ),
    "AuthFormState.submit_sign_up": Rule(
        EVERYONE,
        args=lambda w: ({"email": "new-visitor@example.com", "password": "secret12"},),
        writes="the visitor's own new account",
    ),
    "ForgotPasswordState.submit": Rule(EVERYONE, args=lambda w: ({"email": "nobody@example.com"},)),
    "ResetPasswordState.submit": Rule(EVERYONE, args=lambda w: ({"password": "secret99"},)),
    "SecurityState.open_page": Rule(MEMBERS),
    "SecurityState.start_enrolment": Rule(
        MEMBERS, args=lambda w: ({"friendly_name": "phone"},), writes="the member's factor"
    ),
    "SecurityState.confirm_enrolment": Rule(MEMBERS, args=lambda w: ({"code": "000000"},)),
    "SecurityState.cancel_enrolment": Rule(MEMBERS),
    "SecurityState.remove_factor": Rule(MEMBERS, args=lambda w: (w.photo_id,)),
    # -- admin ----------------------------------------------------------------------
    "PartnersAdminState.open_page": Rule(ADMINS, refusal=QUIET, visitor=QUIET, why=ON_LOAD_ADMIN),
    "PartnersAdminState.show_status": Rule(ADMINS, args=lambda w: ("all",), refusal=DENIED),
    "PartnersAdminState.set_status": Rule(
        ADMINS, args=lambda w: (w.partner_id, "suspended"), refusal=DENIED
    ),
    "PartnersAdminState.set_tier": Rule(
        ADMINS, args=lambda w: (w.partner_id, "elite"), refusal=DENIED
    ),
    "PayoutsAdminState.open_page": Rule(ADMINS, refusal=QUIET, visitor=QUIET, why=ON_LOAD_ADMIN),
    "PayoutsAdminState.mark_paid": Rule(ADMINS, args=lambda w: (w.partner_id,), refusal=DENIED),
    "VerificationAdminState.open_page": Rule(
        ADMINS, refusal=QUIET, visitor=QUIET, why=ON_LOAD_ADMIN
    ),
    "VerificationAdminState.set_note": Rule(
        EVERYONE, args=lambda w: (w.verification_request_id, "note")
    ),
    "VerificationAdminState.approve": Rule(
        ADMINS, args=lambda w: (w.verification_request_id,), refusal=REQUIRED
    ),
    "VerificationAdminState.reject": Rule(
        ADMINS, args=lambda w: (w.verification_request_id,), refusal=REQUIRED
    ),
    "LeaderboardAdminState.open_page": Rule(
        ADMINS, refusal=QUIET, visitor=QUIET, why=ON_LOAD_ADMIN, home=False
    ),
    "LeaderboardAdminState.verify": Rule(ADMINS, args=_listed, refusal=DENIED),
    "LeaderboardAdminState.remove": Rule(ADMINS, args=_listed, refusal=DENIED),
    # -- billing --------------------------------------------------------------------
    "MembershipState.refresh_membership": Rule(EVERYONE),
    "PremiumState.open_page": Rule(EVERYONE),
    "PremiumState.load_status": Rule(EVERYONE),
    "PremiumState.set_cancel_dialog_open": Rule(EVERYONE, args=lambda w: (True,)),
    "PremiumState.subscribe": Rule(MEMBERS, writes="the member's own checkout"),
    # The Promo code fields only keep the text typed; the checkout's service decides it.
    "PremiumState.set_promo_code": Rule(EVERYONE, args=lambda w: ("ANNA2026",)),
    "PremiumState.confirm_cancel": Rule(MEMBERS),
    "PremiumState.confirm_and_continue": Rule(MEMBERS, skip=BACKGROUND),
    "LocalCheckoutState.open_page": Rule(OWNER, route=_checkout),
    "LocalCheckoutState.pay": Rule(
        OWNER, vars=lambda w: {"session_id": w.checkout_session}, route=_checkout
    ),
    "LocalCheckoutState.cancel": Rule(
        OWNER, vars=lambda w: {"session_id": w.checkout_session}, route=_checkout
    ),
    # -- chat and contact -------------------------------------------------------------
    "ChatState.open_list": Rule(MEMBERS),
    "ChatState.open_chat": Rule(OWNER, route=_chat),
    "ChatState.send": Rule(OWNER, args=lambda w: ({"content": "Hi there"},), route=_chat),
    "ChatState.set_draft": Rule(EVERYONE, args=lambda w: ("Hi",)),
    "ChatState.follow_conversation": Rule(OWNER, skip=BACKGROUND),
    "ContactState.open_contact": Rule(MEMBERS, args=_listed),
    "ContactState.set_contact_open": Rule(EVERYONE, args=lambda w: (True,)),
    "ContactState.check_sent": Rule(MEMBERS, skip=BACKGROUND),
    "ContactState.dismiss_sent_notice": Rule(EVERYONE),
    "ContactState.set_contact_message": Rule(EVERYONE, args=lambda w: ("Hello",)),
    "ContactState.set_promo_code": Rule(EVERYONE, args=lambda w: ("ANNA2026",)),
    "ContactState.send_contact": Rule(
        MEMBERS,
        vars=lambda w: {
            "contact_photo_id": w.listed_photo_id,
            "contact_message": "Hello, I would love to talk about your photo.",
        },
        writes="the member's own contact request and checkout",
    ),
    "ContactBadgeState.refresh_pending_requests": Rule(EVERYONE),
    "ContactInboxState.load_inbox": Rule(MEMBERS),
    "ContactInboxState.approve": Rule(CONTESTANT, args=lambda w: (w.contact_request_id,)),
    "ContactInboxState.deny": Rule(CONTESTANT, args=lambda w: (w.contact_request_id,)),
    # -- dashboard, photos, editor ----------------------------------------------------
    "DashboardState.open_page": Rule(MEMBERS),
    "DashboardState.set_tab": Rule(EVERYONE, args=lambda w: ("videos",)),
    "DashboardState.recheck_subscription": Rule(MEMBERS, skip=BACKGROUND),
    "PhotosState.set_sort": Rule(MEMBERS, args=lambda w: ("highest",)),
    "PhotosState.load_more": Rule(MEMBERS),
    "PhotosState.open_details": Rule(EVERYONE, args=_photo),
    "PhotosState.set_details_open": Rule(EVERYONE, args=lambda w: (True,)),
    "PhotosState.download_photo": Rule(
        OWNER,
        args=lambda w: ("original",),
        vars=_selected,
        visitor=messages.NO_PHOTO_TO_DOWNLOAD,
    ),
    "PhotosState.delete_selected": Rule(OWNER, vars=_selected, visitor=QUIET, why=NOTHING_SELECTED),
    "PhotosState.delete_account": Rule(MEMBERS, writes="deletes the member's own account"),
    "PhotoEditorState.open_editor": Rule(OWNER, vars=_selected),
    "PhotoEditorState.close_editor": Rule(EVERYONE),
    "PhotoEditorState.edit_again": Rule(EVERYONE),
    "PhotoEditorState.undo": Rule(OWNER, vars=_selected),
    "PhotoEditorState.set_edit_prompt": Rule(EVERYONE, args=lambda w: ("brighter",)),
    "PhotoEditorState.submit_custom_edit": Rule(EVERYONE, args=lambda w: ({},)),
    "PhotoEditorState.run_edit": Rule(OWNER, skip=BACKGROUND),
    "EditorState.open_editor": Rule(
        EVERYONE,
        skip="reads the results page's state (get_state): needs the app's state manager; "
        "the photo it opens is looked up by owner (tests/editor)",
    ),
    "EditorState.upload": Rule(EVERYONE, skip=UPLOAD),
    "EditorState.reject_drop": Rule(EVERYONE, args=lambda w: (["file-too-large"],)),
    "EditorState.undo": Rule(EVERYONE),
    "EditorState.redo": Rule(EVERYONE),
    "EditorState.apply_sliders": Rule(EVERYONE, args=lambda w: ({"brightness": 10},)),
    "EditorState.set_edit_prompt": Rule(EVERYONE, args=lambda w: ("brighter",)),
    "EditorState.submit_custom_edit": Rule(EVERYONE, args=lambda w: ({},)),
    "EditorState.download": Rule(EVERYONE, args=lambda w: ({},)),
    "EditorState.run_edit": Rule(EVERYONE, skip=BACKGROUND),
    "EditorState.save": Rule(MEMBERS, skip=BACKGROUND),
    # -- gates ------------------------------------------------------------------------
    "FeatureGateState.check_access": Rule(MEMBERS, args=lambda w: ("feet_scoring",)),
    "FeatureGateState.activate_trial": Rule(
        MEMBERS, args=lambda w: ("feet_scoring",), writes="the member's own trial"
    ),
    # -- leaderboard ------------------------------------------------------------------
    "LeaderboardState.open_page": Rule(EVERYONE),
    "LeaderboardState.show_more": Rule(EVERYONE),
    "LeaderboardState.contact": Rule(MEMBERS, args=_listed),
    "ContestState.open_page": Rule(MEMBERS),
    "ContestState.select": Rule(EVERYONE, args=_photo),
    "ContestState.submit": Rule(
        OWNER,
        args=lambda w: ({"display_name": "Entrant", "bio": ""},),
        vars=lambda w: {"selected": w.photo_id},
    ),
    # -- opportunities, partners, personality, verification ---------------------------
    "OpportunityState.open_page": Rule(EVERYONE),
    "OpportunityState.submit": Rule(
        MEMBERS,
        args=lambda w: ({"full_name": "Mem Ber", "email": "m@example.com"},),
        writes="the member's own claim",
    ),
    "PartnerApplyState.open_page": Rule(MEMBERS),
    "PartnerApplyState.set_short_code": Rule(EVERYONE, args=lambda w: ("ABCD",)),
    "PartnerApplyState.set_promo_code": Rule(EVERYONE, args=lambda w: ("PROMO",)),
    "PartnerApplyState.submit": Rule(
        MEMBERS,
        args=lambda w: ({"display_name": "Me", "short_code": "MEMBER1"},),
        writes="the member's own partner application",
    ),
    "PartnerPortalState.open_page": Rule(MEMBERS),
    "PartnerLeaderboardState.open_page": Rule(EVERYONE),
    "PartnerLinkState.refresh": Rule(EVERYONE),
    "PersonalityState.open_page": Rule(EVERYONE),
    "PersonalityState.choose": Rule(EVERYONE, args=lambda w: ("a",)),
    "PersonalityState.next_question": Rule(EVERYONE),
    "PersonalityState.previous_question": Rule(EVERYONE),
    "PersonalityState.finish": Rule(
        MEMBERS, vars=lambda w: {"answers": {"0": "a"}}, writes="the member's own result"
    ),
    "PersonalityState.retake": Rule(EVERYONE),
    "PersonalityState.open_purchase": Rule(EVERYONE),
    "PersonalityState.back_to_result": Rule(EVERYONE),
    "PersonalityState.set_promo_code": Rule(EVERYONE, args=lambda w: ("ANNA2026",)),
    "PersonalityState.buy": Rule(MEMBERS, writes="the member's own checkout"),
    "PersonalityState.await_payment": Rule(MEMBERS, skip=BACKGROUND),
    "DetailedOfferState.load_offer": Rule(EVERYONE),
    "DetailedOfferState.buy_offer": Rule(MEMBERS, writes="the member's own checkout"),
    "DetailedOfferState.set_promo_code": Rule(EVERYONE, args=lambda w: ("ANNA2026",)),
    "VerificationState.open_page": Rule(MEMBERS),
    "VerificationState.submit": Rule(
        MEMBERS,
        args=lambda w: ({"full_name": "Some One", "reason": "Because"},),
        writes="the member's own request",
    ),
    # -- scoring ----------------------------------------------------------------------
    "ScoreState.upload_from_home": Rule(EVERYONE, skip=UPLOAD),
    "ScoreState.upload_on_page": Rule(EVERYONE, skip=UPLOAD),
    "ScoreState.change_photo": Rule(EVERYONE),
    "ScoreState.try_again": Rule(EVERYONE),
    "ScoreState.reject_drop": Rule(EVERYONE, args=lambda w: (["file-too-large"],)),
    "ScoreState.camera_coming_soon": Rule(EVERYONE),
    "ScoreState.upload_started": Rule(EVERYONE, args=lambda w: (1, "drop-1")),
    "ScoreState.upload_progress": Rule(EVERYONE, args=lambda w: ({"progress": 0.5},)),
    "ScoreState.upload_ended": Rule(EVERYONE, args=lambda w: (False,)),
    "ScoreState.analyse": Rule(EVERYONE, skip=BACKGROUND),
    "ScoreState.open_results": Rule(EVERYONE),
    "SharedScoreState.open_shared": Rule(EVERYONE),
    "ScoreState.end_celebration": Rule(EVERYONE, skip=BACKGROUND),
    "ScoreState.save_photo": Rule(MEMBERS, visitor=QUIET, why=NO_RESULT),
    "ScoreState.join_leaderboard": Rule(
        MEMBERS, args=lambda w: ({"display_name": "Me"},), visitor=QUIET, why=NO_RESULT
    ),
    "ScoreState.set_leaderboard_open": Rule(EVERYONE, args=lambda w: (True,)),
    "ScoreState.download_card": Rule(EVERYONE),
    "ScoreState.claim_world_record": Rule(EVERYONE),
    "ScoreState.claim_elite": Rule(EVERYONE),
    "ScoreState.set_edit_prompt": Rule(EVERYONE, args=lambda w: ("brighter",)),
    "ScoreState.submit_custom_edit": Rule(EVERYONE, args=lambda w: ({},)),
    "ScoreState.run_edit": Rule(EVERYONE, skip=BACKGROUND),
    "ScoreState.rescore_edited": Rule(EVERYONE),
    "BodyScoreState.open_upload": Rule(EVERYONE, args=lambda w: ("feet",)),
    "BodyScoreState.choose_photo": Rule(EVERYONE, skip=UPLOAD),
    "BodyScoreState.change_photo": Rule(EVERYONE),
    "BodyScoreState.reject_drop": Rule(EVERYONE, args=lambda w: (["file-too-large"],)),
    "BodyScoreState.upload_started": Rule(EVERYONE, args=lambda w: (1, "drop-1")),
    "BodyScoreState.upload_ended": Rule(EVERYONE, args=lambda w: (False,)),
    "BodyScoreState.upload_progress": Rule(EVERYONE, args=lambda w: ({"progress": 0.5},)),
    "BodyScoreState.analyse": Rule(EVERYONE, skip=BACKGROUND),
    "BodyScoreState.open_results": Rule(EVERYONE, args=lambda w: ("feet",)),
    "BodyScoreState.end_celebration": Rule(EVERYONE, skip=BACKGROUND),
    "BodyScoreState.download_card": Rule(EVERYONE),
    "BodyScoreState.save": Rule(MEMBERS, visitor=QUIET, why=NO_RESULT),
    "BestPhotoState.choose_photos": Rule(EVERYONE, skip=UPLOAD),
    "BestPhotoState.change_photos": Rule(EVERYONE),
    "BestPhotoState.reject_drop": Rule(EVERYONE, args=lambda w: (["too-many-files"],)),
    "BestPhotoState.upload_started": Rule(EVERYONE, args=lambda w: (2, "drop-1")),
    "BestPhotoState.upload_progress": Rule(EVERYONE, args=lambda w: ({"progress": 0.5},)),
    "BestPhotoState.upload_ended": Rule(EVERYONE, args=lambda w: (False,)),
    "BestPhotoState.compare": Rule(EVERYONE, skip=BACKGROUND),
    # -- site, video --------------------------------------------------------------------
    "PrivacyState.stamp_today": Rule(EVERYONE),
    "VideoState.open_page": Rule(MEMBERS),
    "VideoState.open_dialog": Rule(OWNER, args=_photo),
    "VideoState.set_dialog_open": Rule(EVERYONE, args=lambda w: (True,)),
    "VideoState.dialog_mounted": Rule(EVERYONE),
    "VideoState.resume": Rule(EVERYONE),
    "VideoState.choose_image": Rule(MEMBERS, skip=UPLOAD),
    "VideoState.reject_drop": Rule(EVERYONE, args=lambda w: (["file-too-large"],)),
    "VideoState.set_prompt": Rule(EVERYONE, args=lambda w: ("dance",)),
    "VideoState.set_duration": Rule(EVERYONE, args=lambda w: ("10",)),
    "VideoState.back_to_idle": Rule(EVERYONE),
    "VideoState.change_image": Rule(EVERYONE),
    "VideoState.start": Rule(MEMBERS, writes="the member's own generation"),
    "VideoState.follow_job": Rule(OWNER, skip=BACKGROUND),
    "VideoState.download": Rule(EVERYONE),
    "VideoState.download_video": Rule(OWNER, args=lambda w: (w.video_id,)),
}


@dataclass(frozen=True)
class Page:
    access: str
    refusal: str = ""
    owner_route: Callable | None = None
    params: dict = field(default_factory=dict)


# Every page: who may open it (its on_load guard decides).
PAGES: dict[str, Page] = {
    "index": Page(EVERYONE),
    "how-it-works": Page(EVERYONE),
    "privacy": Page(EVERYONE),
    "404": Page(EVERYONE),
    "auth": Page(EVERYONE),
    "auth/forgot": Page(EVERYONE),
    "auth/reset": Page(EVERYONE),
    "account/security": Page(MEMBERS),
    "feet-upload": Page(EVERYONE),
    "feet-results": Page(EVERYONE),
    "hands-upload": Page(EVERYONE),
    "hands-results": Page(EVERYONE),
    "pet-upload": Page(EVERYONE),
    "pet-results": Page(EVERYONE),
    "upload": Page(EVERYONE),
    "results": Page(EVERYONE),
    "s/[share_token]": Page(EVERYONE),
    "best-photo": Page(EVERYONE),
    "dashboard": Page(MEMBERS),
    "user-dashboard": Page(MEMBERS),
    "editor": Page(EVERYONE),
    "video-generation": Page(MEMBERS),
    "admin/partners": Page(ADMINS, DENIED),
    "admin/payouts": Page(ADMINS, DENIED),
    "admin/verification": Page(ADMINS, REQUIRED),
    "admin/leaderboard": Page(ADMINS, DENIED),
    "premium": Page(EVERYONE),
    "checkout/test": Page(MEMBERS),
    "messages": Page(MEMBERS),
    "messages/[chat_request_id]": Page(MEMBERS),
    "contestant-requests": Page(MEMBERS),
    "contact-requests": Page(MEMBERS),
    "leaderboard": Page(EVERYONE),
    "global-ranking": Page(MEMBERS),
    "claim-opportunities": Page(EVERYONE),
    "personality-test": Page(EVERYONE),
    "request-verification": Page(MEMBERS),
    "partners": Page(EVERYONE),
    "partners/apply": Page(MEMBERS),
    "partners/portal": Page(MEMBERS),
    "partners/leaderboard": Page(EVERYONE),
}
