"""Text a client sent, as it may go into the server's log: on one line, and short.

Why: whatever a browser sends (an error report, an event's name) is the sender's text.
Written to the log as it came, a newline in it starts a line that looks like the
server's own (a forged "mail sent" line was shown this way), terminal escapes restyle the
log, and one report of 100 KB is 100 KB of log. So every character that is not
printable is written as its escape (``\\n``, ``\\x1b``), and the text is cut after
``max_chars`` with a note of how much more there was.
"""

from __future__ import annotations

#: The longest client text one log line carries.
MAX_LOGGED_CHARS = 2000


def loggable(value: object, max_chars: int = MAX_LOGGED_CHARS) -> str:
    """``value`` as text on one line, escapes for what is not printable, at most
    ``max_chars`` characters and a note of the rest."""
    text = value if isinstance(value, str) else repr(value)
    # Only what can be shown is escaped: the escapes of the rest would be cut anyway.
    shown = "".join(_escaped(character) for character in text[:max_chars])
    if len(text) <= max_chars and len(shown) <= max_chars:
        return shown
    return f"{shown[:max_chars]}... (cut: {len(text)} characters in all)"


def _escaped(character: str) -> str:
    if character.isprintable():
        return character
    return character.encode("unicode_escape").decode("ascii")
