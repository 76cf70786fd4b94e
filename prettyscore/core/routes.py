"""Every page's address, named once.

Pages register at these paths, links and redirects point to them, and services that
build an address for a mail or a payment's return use them too, so a page never moves
without its links. The functions API's paths (``/functions/v1/...``) and the auth API's
(``/auth/v1/...``) belong to their routers, not here.
"""

HOME = "/"
HOW_IT_WORKS = "/how-it-works"
PRIVACY = "/privacy"

UPLOAD = "/upload"
RESULTS = "/results"
FEET_UPLOAD = "/feet-upload"
FEET_RESULTS = "/feet-results"
HANDS_UPLOAD = "/hands-upload"
HANDS_RESULTS = "/hands-results"
PET_UPLOAD = "/pet-upload"
PET_RESULTS = "/pet-results"
BEST_PHOTO = "/best-photo"

AUTH = "/auth"
AUTH_FORGOT = "/auth/forgot"
AUTH_RESET = "/auth/reset"
ACCOUNT_SECURITY = "/account/security"

DASHBOARD = "/dashboard"
USER_DASHBOARD = "/user-dashboard"
EDITOR = "/editor"
VIDEO_GENERATION = "/video-generation"
PERSONALITY_TEST = "/personality-test"

PREMIUM = "/premium"
TEST_CHECKOUT = "/checkout/test"

LEADERBOARD = "/leaderboard"
GLOBAL_RANKING = "/global-ranking"
CONTESTANT_REQUESTS = "/contestant-requests"
CONTACT_REQUESTS = "/contact-requests"
MESSAGES = "/messages"

CLAIM_OPPORTUNITIES = "/claim-opportunities"
REQUEST_VERIFICATION = "/request-verification"

PARTNERS = "/partners"
PARTNERS_APPLY = "/partners/apply"
PARTNERS_PORTAL = "/partners/portal"
PARTNERS_LEADERBOARD = "/partners/leaderboard"

ADMIN_LEADERBOARD = "/admin/leaderboard"
ADMIN_PARTNERS = "/admin/partners"
ADMIN_PAYOUTS = "/admin/payouts"
ADMIN_VERIFICATION = "/admin/verification"


def shared_score(token: object) -> str:
    """The page of a shared score (``scoring.share_links``)."""
    return f"/s/{token}"


def chat(request_id: object) -> str:
    """The chat page of one contact request."""
    return f"{MESSAGES}/{request_id}"
