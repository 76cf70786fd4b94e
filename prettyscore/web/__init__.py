"""The app's web edge: the ASGI middlewares in front of every request (security headers,
browser keys, upload limits, pages served at their own address and filled for the
requester) and the Reflex middleware that checks every event's arguments."""
