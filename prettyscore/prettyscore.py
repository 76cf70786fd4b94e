"""The PrettyScore app: theme, pages and API, wired together.

Each product area registers its own pages (``<area>.pages.register``) and API routes;
this module only lists them, so it reads like the app's table of contents.
"""

from functools import partial

import reflex as rx
from starlette.applications import Starlette

from prettyscore.accounts import pages as accounts_pages
from prettyscore.accounts.state import serve_tabs_to_their_browser
from prettyscore.admin import pages as admin_pages
from prettyscore.api_app import rest_api
from prettyscore.billing import pages as billing_pages
from prettyscore.billing.api import billing_routes
from prettyscore.chat import pages as chat_pages
from prettyscore.contact import pages as contact_pages
from prettyscore.core import routes
from prettyscore.core.constants import MAX_UPLOAD_BYTES
from prettyscore.core.media import check_media_store
from prettyscore.core.settings import get_settings
from prettyscore.dashboard import pages as dashboard_pages
from prettyscore.editor import pages as editor_pages
from prettyscore.leaderboard import pages as leaderboard_pages
from prettyscore.opportunities import pages as opportunities_pages
from prettyscore.partners import pages as partners_pages
from prettyscore.partners.api import partner_routes
from prettyscore.personality import pages as personality_pages
from prettyscore.photos.early import fill_my_photos
from prettyscore.photos.housekeeping import purge_visitor_media_forever
from prettyscore.photos.media_api import media_routes
from prettyscore.scoring import pages as scoring_pages
from prettyscore.scoring.best_photo_state import UPLOAD_LIMITS as BEST_PHOTO_UPLOAD_LIMITS
from prettyscore.site import pages as site_pages
from prettyscore.ui.backend_errors import backend_exception_handler
from prettyscore.ui.frontend_errors import frontend_exception_handler
from prettyscore.ui.kept_assets import serve_kept_assets
from prettyscore.ui.toasts import toaster
from prettyscore.verification import pages as verification_pages
from prettyscore.video import pages as video_pages
from prettyscore.web.browser_key import give_browser_key
from prettyscore.web.client_address import believe_trusted_proxies
from prettyscore.web.event_arguments import (
    guard_event_arguments,
    refuse_events_no_page_sends,
    refuse_uploads_no_handler_takes,
)
from prettyscore.web.filled_pages import serve_filled_pages
from prettyscore.web.page_paths import serve_pages_without_redirect
from prettyscore.web.security_headers import security_headers
from prettyscore.web.socket_owners import keep_tabs_across_worker_crashes
from prettyscore.web.state_locks import release_cancelled_locks
from prettyscore.web.upload_limits import limit_request_body
from prettyscore.web.upload_owner import note_upload_keys

# The theme (Radix, pink accent) is set on the Radix plugin in rxconfig.py.
app = rx.App(
    toaster=toaster(),
    # An event that fails because PostgreSQL or Redis did not answer says so.
    backend_exception_handler=backend_exception_handler,
    # A browser's error report is logged on one line, cut short, a few a minute.
    frontend_exception_handler=frontend_exception_handler,
    api_transformer=[
        # Our own routes: stored photos, served only to those who may see them,
        # Stripe's signed payment events, and partners' referral links.
        Starlette(routes=media_routes() + billing_routes() + partner_routes()),
        # The public REST API: /auth/v1 (Supabase Auth compatible), /functions/v1/{name}.
        rest_api(),
        # My Photos is served with the member's newest photo in it, to paint at once.
        partial(serve_filled_pages, fillers={routes.DASHBOARD: fill_my_photos}),
        # Pages answer at their own address (/upload), not with a redirect to /upload/.
        serve_pages_without_redirect,
        # Upload bodies are cut off at the limit while they arrive (several photos'
        # worth for the one upload that takes several).
        partial(
            limit_request_body,
            max_bytes=MAX_UPLOAD_BYTES,
            handler_limits=BEST_PHOTO_UPLOAD_LIMITS,
        ),
        # An upload to a handler that takes none is refused before its body is read.
        refuse_uploads_no_handler_takes,
        # An upload drives its tab only with the key of the browser the tab serves.
        note_upload_keys,
        # Every browser gets a key its tabs' states are bound to (web/browser_key.py).
        partial(give_browser_key, secure=get_settings().secure_cookies),
        # Every answer says who may frame it and what it may load.
        partial(security_headers, public_url=get_settings().public_url),
        # Outermost: the client is the connection, or whom a trusted proxy forwarded.
        partial(believe_trusted_proxies, trusted=get_settings().forwarded_allow_ips),
    ],
)
# A media folder or bucket that cannot be used stops the start, saying why.
app.register_lifespan_task(check_media_store)
app.register_lifespan_task(purge_visitor_media_forever)
# A page open across a restart still finds its route files (ui/kept_assets.py).
app.register_lifespan_task(serve_kept_assets)
# With Redis, an event cancelled while taking its tab's state lock does not leave it held.
release_cancelled_locks(app)
# With Redis, a tab whose worker crashed keeps its token and state on another worker.
keep_tabs_across_worker_crashes(app)
# Every event's arguments must match its handler's annotations, or it does not run.
guard_event_arguments(app)
# An event whose name no page sends (setvar, a private method, no handler) does not run.
refuse_events_no_page_sends(app)
# A tab's state is shown and used only by the browser it serves (a closed tab's token
# read from elsewhere gets an empty tab).
serve_tabs_to_their_browser(app)

site_pages.register(app)
accounts_pages.register(app)
scoring_pages.register(app)
dashboard_pages.register(app)
editor_pages.register(app)
video_pages.register(app)
admin_pages.register(app)
billing_pages.register(app)
chat_pages.register(app)
contact_pages.register(app)
leaderboard_pages.register(app)
opportunities_pages.register(app)
personality_pages.register(app)
verification_pages.register(app)
partners_pages.register(app)
