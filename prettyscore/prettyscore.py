"""The PrettyScore app: theme, pages and API, wired together.

Each product area registers its own pages (``<area>.pages.register``) and API routes;
this module only lists them, so it reads like the app's table of contents.
"""

import reflex as rx

from prettyscore.accounts import pages as accounts_pages
from prettyscore.admin import pages as admin_pages
from prettyscore.photos import pages as photos_pages
from prettyscore.site import pages as site_pages

# The theme (Radix, pink accent) is set on the Radix plugin in rxconfig.py.
app = rx.App(
    toaster=rx.toast.provider(duration=4500, close_button=True, position="top-center"),
)

site_pages.register(app)
accounts_pages.register(app)
photos_pages.register(app)
admin_pages.register(app)
