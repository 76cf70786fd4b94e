"""Short videos from a photo: the service, its engines (a local MP4, an HTTP provider)
and the page.

Importing the package tells the sweep of temporary files which files a generation owns
(``files``); ``core.all_models`` imports every area's tables, and so this, before any
database work.
"""

from prettyscore.video import files as files  # noqa: E402
