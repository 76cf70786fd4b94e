"""Product copy for the public site pages (Home, How It Works, Privacy Policy, Terms).

The documents only name these sections ("fairness, privacy and empowerment blurbs", "three
static testimonials", "a list of user rights"); the wording here is ours. Texts the
documents spell out verbatim live in ``prettyscore.core.messages`` and are imported from
there. Keeping the long copy in data, apart from the page functions, lets the pages stay
short and lets a copy edit happen without touching layout code.

Privacy statements are deliberately precise: document 000 §1 says the copy claims photos
are not stored and deleted right after analysis, while signed-in members can save photos.
Both readings stand, so the policy states both, each for the case where it is true.
"""

from typing import NamedTuple


class Blurb(NamedTuple):
    """A titled paragraph with an icon (lucide name), as shown on feature cards."""

    icon: str
    title: str
    body: str


class Testimonial(NamedTuple):
    """A static customer quote on the home page."""

    quote: str
    name: str
    detail: str


# ---------------------------------------------------------------------------
# Home
# ---------------------------------------------------------------------------
HOME_HERO_BADGE = "AI beauty analysis in seconds"
HOME_HERO_TITLE = "Discover your beauty score"
HOME_HERO_SUBTITLE = (
    "Upload a selfie and our AI looks at your skin, your eyes and your face's proportions "
    "to give you a fun score out of 10, with a breakdown you can share."
)
HOME_DROP_HINT = "Drag and drop a photo here, or choose one from your device"
HOME_EXAMPLES_TITLE = "Scores people are sharing"
HOME_STEPS_TITLE = "Three steps to your score"
HOME_STEPS = (
    Blurb("image-up", "Upload a photo", "Pick a clear, front-facing selfie with good light."),
    Blurb(
        "scan-face",
        "Let the AI look",
        "We measure how even your skin is, how open your eyes are and your face's shape.",
    ),
    Blurb(
        "sparkles",
        "Get your score",
        "See your score, your tier and a breakdown in a few seconds, then share it.",
    ),
)
HOME_VALUES_TITLE = "Made to feel good"
HOME_VALUES = (
    Blurb(
        "scale",
        "Fair for everyone",
        "The same analysis for every face, in shades of grey so the colour of your skin or "
        "of the light never enters it, never told your age, gender or background, and "
        "checked on faces of many backgrounds rated by 2,513 people: every group scores as "
        "people rated it, and your photos score close together.",
    ),
    Blurb(
        "shield-check",
        "Private by design",
        "Photos are analysed in real time and deleted right after analysis. Only photos you "
        "choose to save are kept, privately, in your dashboard.",
    ),
    Blurb(
        "heart",
        "Here to empower",
        "A score is a bit of fun, not a verdict. Beauty is bigger than any number, and every "
        "face tells its own story.",
    ),
)
HOME_TESTIMONIALS_TITLE = "What our users say"
HOME_TESTIMONIALS = (
    Testimonial(
        "I tried it with my friends on a Friday night and we could not stop laughing. The "
        "breakdown is surprisingly detailed!",
        "Jessica M.",
        "Scored 8.7",
    ),
    Testimonial(
        "Clean, quick and honestly kind of a confidence boost. I love that my photo is not "
        "kept unless I save it.",
        "Daniel R.",
        "Scored 9.1",
    ),
    Testimonial(
        "The AI edits are so much fun. I changed my background, rescored, and shared both "
        "results with my sister.",
        "Priya K.",
        "Scored 8.4",
    ),
)
HOME_CTA_TITLE = "Ready to see your score?"
HOME_CTA_BODY = "It is free, it takes seconds, and your photo is never shared."

# ---------------------------------------------------------------------------
# How It Works
# ---------------------------------------------------------------------------
HOW_TITLE = "How PrettyScore works"
HOW_SUBTITLE = (
    "Our AI measures what people's own ratings follow: we checked every measure against "
    "2,513 people's ratings of 102 faces, and kept the ones their ratings followed."
)
HOW_STEP_BODIES = (
    "Choose a clear, front-facing photo from your gallery or drop it onto the page.",
    "Our AI maps 478 points of your face and measures your skin, your eyes and your "
    "face's proportions.",
    "In seconds you get a score out of 10, a tier label and a detailed breakdown.",
)
HOW_ASPECTS_TITLE = "What we analyse"


def how_aspect_bodies(shares: dict[str, float]) -> tuple[str, str, str, str]:
    """The four aspects the documents name, each saying what it measures now and how
    much it counts (``shares``: the fitted model's share of each measure, by key)."""

    def percent(*keys: str) -> str:
        return f"{round(100 * sum(shares[key] for key in keys))}%"

    return (
        "How closely the left and right sides of your face mirror each other. Shown in "
        "your breakdown; it counts 0% of your score, because people's ratings did not "
        "follow it.",
        "We measured the classic 1.618 proportions too, but faces closer to them were "
        "not rated higher, so the golden ratio counts 0% of your score.",
        "An overall impression learned from 2,513 people's ratings of 102 faces, read from "
        "128 measurements of your face's features that stay the same from one photo to the "
        f"next ({percent('impression')}), and how long your face is for its width "
        f"({percent('face_shape')}).",
        f"How even your skin is against the light on your face counts {percent('skin_evenness')}."
        " The score is your face's: the photo (its light, sharpness, grain, your expression "
        "and the framing) moves it only a little. It is then placed among ordinary people: "
        "a typical face scores 7.5, and 9.5 takes the top 1%.",
    )


HOW_PRIVACY_TITLE = "Your privacy comes first"
HOW_PRIVACY_CARDS = (
    Blurb(
        "eye-off",
        "Analysed in real time",
        "Your photo is analysed the moment you upload it and is never shown to anyone else.",
    ),
    Blurb(
        "trash-2",
        "Deleted after analysis",
        "Without an account, your photo is deleted right after analysis. Nothing is kept.",
    ),
    Blurb(
        "lock",
        "You stay in control",
        "Signed in? Only photos you choose to save are kept, privately, until you delete them.",
    ),
)

# ---------------------------------------------------------------------------
# Privacy Policy and Terms of Use
# ---------------------------------------------------------------------------
PRIVACY_INTRO = (
    "PrettyScore is an entertainment app. This policy explains, in plain words, what happens "
    "to your photos and data when you use it."
)
PRIVACY_SECTIONS = (
    (
        "Your photos",
        (
            "Photos you analyse without an account are processed in real time and deleted "
            "right after analysis. We do not store them.",
            "If you are signed in and choose to save a photo, it is kept privately in your "
            "dashboard, together with its score, until you delete it. Location data (EXIF, "
            "GPS) is removed before a photo is stored, and saved photos are never shown to "
            "other users unless you choose to enter the leaderboard.",
        ),
    ),
    (
        "Usage statistics",
        (
            "We collect anonymous usage statistics only, such as which pages are visited and "
            "how long an analysis takes. They never contain your photos and are not linked "
            "to your identity.",
        ),
    ),
    (
        "Third-party analytics",
        (
            "We may use third-party analytics services to understand how the app is used and "
            "to keep it fast. They receive the same anonymous statistics, never your photos "
            "or your email address.",
        ),
    ),
    (
        "Your account",
        (
            "If you create an account we keep your email address and a securely hashed "
            "password so you can sign in. Payments for premium features are handled by our "
            "payment provider; we never see your full card number.",
        ),
    ),
)
PRIVACY_RIGHTS_TITLE = "Your rights"
PRIVACY_RIGHTS = (
    "Access: ask for a copy of the personal data we hold about you.",
    "Correction: ask us to correct anything that is inaccurate.",
    "Deletion of photos: delete any saved photo from your dashboard at any time.",
    "Deletion of your account: ask us to delete your account and everything stored with it.",
    "Portability: receive your data in a common, machine-readable format.",
    "Objection: withdraw from the leaderboard or object to any processing at any time.",
    "Complaint: lodge a complaint with your local data protection authority.",
)
PRIVACY_CONTACT_TITLE = "Contact us"
PRIVACY_CONTACT_BODY = "Questions about your privacy or a request about your data? Write to"

TERMS_INTRO = "By using PrettyScore you agree to these simple rules."
TERMS_ITEMS = (
    "PrettyScore is for entertainment only; scores are not professional, medical or "
    "personal advice.",
    "Only upload photos you have the right to use, and never photos of another person "
    "without their consent.",
    "Do not upload photos of minors, or content that is offensive, explicit or unlawful.",
    "Premium features and contests are subject to the terms shown when you purchase or enter.",
    "We may update the service and these terms; the date above shows the latest version.",
)
