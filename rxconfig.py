"""Reflex configuration: everything variable comes from ``prettyscore.core.settings``."""

import os

import reflex as rx

from prettyscore.core.settings import get_settings
from prettyscore.ui.kept_assets import KeepPreviousAssets
from prettyscore.ui.paint_first import PaintFirstPlugin
from prettyscore.ui.theme import theme_plugin
from prettyscore.web.security_headers import allowed_origins
from prettyscore.web.serving import respawn_failed_workers

settings = get_settings()

# A web worker that crashes is replaced; the others go on serving (web/serving.py).
respawn_failed_workers()

# Reflex's own upload folder is served to anyone at /_upload; we never store user photos
# there (they go to MEDIA_DIR behind our own route), but keep the folder out of the tree.
os.environ.setdefault("REFLEX_UPLOADED_FILES_DIR", str(settings.data_dir / "reflex_uploads"))

config = rx.Config(
    app_name="prettyscore",
    telemetry_enabled=False,
    state_manager_mode="redis" if settings.redis_url else "memory",
    redis_url=settings.redis_url,
    api_url=settings.public_url,
    # Credentialed calls (CORS and the websocket) only from our own pages.
    cors_allowed_origins=allowed_origins(settings.public_url),
    deploy_url=settings.public_url,
    show_built_with_reflex=False,
    # Radix Themes with only the colour scales and components the pages use
    # (prettyscore/ui/theme.py).
    # Pages paint before their JavaScript is fetched (prettyscore/ui/paint_first.py).
    # A page open across a restart keeps its route files (prettyscore/ui/kept_assets.py).
    plugins=[theme_plugin(), PaintFirstPlugin(), KeepPreviousAssets()],
    disable_plugins=[rx.plugins.SitemapPlugin],
    # Browsers that accept Brotli get the smaller files; the others gzip.
    frontend_compression_formats=["brotli", "gzip"],
)
