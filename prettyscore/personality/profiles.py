"""What the analysis says: trait names, what each trait's level means, and the types.

Our own copy (the documents only name a score, a personality type and an analysis). Kept
apart from the scoring rules in ``service`` so that a copy edit never touches them.
"""

from __future__ import annotations

from dataclasses import dataclass

from prettyscore.personality.quiz import ADVENTURE, CONFIDENCE, SOCIAL, STYLE

TRAIT_LABELS: dict[str, str] = {
    CONFIDENCE: "Confidence",
    SOCIAL: "Social Energy",
    ADVENTURE: "Adventure",
    STYLE: "Style Flair",
}

#: A trait scored at least this (out of 100) reads as high; below ``MEDIUM_FROM`` as low.
HIGH_FROM = 67
MEDIUM_FROM = 34

#: (high, medium, low) readings of each trait.
TRAIT_READINGS: dict[str, tuple[str, str, str]] = {
    CONFIDENCE: (
        "You walk in like you own the place, and people love you for it. Your "
        "self-assurance is magnetic and it shows in every photo.",
        "You're sure of yourself when it counts and happy to let others shine when it "
        "doesn't: a confident, easy-going balance.",
        "Your confidence is the quiet kind. A little more time in the spotlight would suit "
        "you beautifully.",
    ),
    SOCIAL: (
        "You recharge around people. Your warmth pulls friends together and turns "
        "strangers into fans.",
        "You love good company, and you're just as happy with a small circle or a quiet night in.",
        "You choose your people carefully and treasure deep one-on-one moments over big crowds.",
    ),
    ADVENTURE: (
        "You say yes first and ask questions later. New places, new food, new looks: "
        "you'll try everything once.",
        "You enjoy a thrill when it comes along, but you also like knowing where the night "
        "is heading.",
        "You love your favourite places and rituals. A small adventure now and then could "
        "surprise you.",
    ),
    STYLE: (
        "Your look is your language. You notice the details, set trends and always turn up "
        "camera-ready.",
        "You know what suits you and dress up when the moment calls for it, without "
        "overthinking it.",
        "Your style is effortless: you let your personality do the talking.",
    ),
}


@dataclass(frozen=True)
class PersonalityType:
    """A type's name, what it says about the member, and a tip for them."""

    name: str
    summary: str
    tip: str


#: Types by their two strongest traits.
PAIR_TYPES: dict[frozenset[str], PersonalityType] = {
    frozenset((CONFIDENCE, SOCIAL)): PersonalityType(
        "The Magnetic Star",
        "You're the spark in every room: self-assured, warm and impossible to ignore. "
        "People gravitate to you because you make them feel part of something fun.",
        "Group shots where you're centre stage are your superpower: lean into them.",
    ),
    frozenset((CONFIDENCE, ADVENTURE)): PersonalityType(
        "The Bold Trailblazer",
        "Fearless and always first to try something new, you turn ordinary days into "
        "stories. Your confidence is built on doing, not talking.",
        "Candid action shots show you at your best: capture yourself mid-adventure.",
    ),
    frozenset((CONFIDENCE, STYLE)): PersonalityType(
        "The Iconic Trendsetter",
        "You know your look and you own it. Others copy your style long after you've "
        "moved on to the next one.",
        "Try one statement piece you'd never normally wear: you have the confidence to "
        "pull it off.",
    ),
    frozenset((SOCIAL, ADVENTURE)): PersonalityType(
        "The Free-Spirited Explorer",
        "You collect friends and experiences in equal measure. Every trip is better with "
        "you, and every great group story seems to start with you.",
        "Keep a photo diary of your adventures: your friends will love following along.",
    ),
    frozenset((SOCIAL, STYLE)): PersonalityType(
        "The Glamorous Connector",
        "Stylish and sociable, you bring people together and make every gathering feel "
        "like an event.",
        "Host a themed get-together: your eye for style and love of people make you the "
        "perfect host.",
    ),
    frozenset((ADVENTURE, STYLE)): PersonalityType(
        "The Creative Wanderer",
        "You find beauty everywhere you go and bring it home in your style. Your look "
        "tells the story of where you've been.",
        "Mix a find from your travels into your everyday outfit: it's uniquely you.",
    ),
}

#: The type of members whose traits are all close to one another.
BALANCED_TYPE = PersonalityType(
    "The Radiant All-Rounder",
    "You shine in every setting: confident when it counts, warm with friends, curious "
    "about the world and thoughtful about your look.",
    "Your versatility is your strength: switch up your look to match each moment.",
)

PERSONALITY_TYPES: tuple[str, ...] = (
    *(kind.name for kind in PAIR_TYPES.values()),
    BALANCED_TYPE.name,
)
