"""The documents' business constants and limits (document 000 §9, document 001 §9).

Every limit the server enforces is named here once; pages and tests import them.
"""

# Uploads
MAX_UPLOAD_BYTES = 10 * 1024 * 1024  # "Upload limit: 10 MB"
MAX_IMAGE_PIXELS = 40_000_000  # larger images are refused as decompression bombs
ACCEPTED_IMAGE_FORMATS = ("JPEG", "PNG", "WEBP", "GIF")
# "Which photo shows you best": how many photos of one person are compared at once.
BEST_PHOTO_MIN_PHOTOS = 2
BEST_PHOTO_MAX_PHOTOS = 6

# Analysis and celebration
ANALYSIS_WAIT_SECONDS = 3.0  # the documents' perceived analysis time (a setting may lower it)
BODY_ANALYSIS_WAIT_SECONDS = 2.0  # feet, hands and pets (document 001 §9; a setting too)
CELEBRATION_MIN_SCORE = 8.5
LEADERBOARD_DIALOG_MIN_SCORE = 9.5
CONFETTI_PIECES = 50
CONFETTI_SECONDS = 3

# The dashboard checks a member's subscription again this often while it is open
# (document 001 §9; a setting may change it).
SUBSCRIPTION_RECHECK_SECONDS = 30.0

# How long a click may go without an answer before its page says so (ui.server_wait).
NO_ANSWER_SECONDS = 8.0

# Visitors' results live only for their session, and at most this long.
VISITOR_RESULT_TTL_SECONDS = 3600

# Edits and videos
FREE_EDITS = 5
FREE_VIDEO_GENERATIONS = 2

# Result card (document 000: 600 by 1000 canvas)
RESULT_CARD_SIZE = (600, 1000)
BODY_RESULT_CARD_SIZE = (600, 800)  # feet and hands cards (document 001 §9)
COMPARISON_SLIDER_DEFAULT = 50

# Money, in integer cents
PREMIUM_MONTHLY_CENTS = 999
DETAILED_PERSONALITY_CENTS = 499
