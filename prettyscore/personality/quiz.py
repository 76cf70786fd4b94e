"""The personality test's 20 questions, each with 3 choices (document 001 §3 Quiz).

One module for the page (what it shows) and the analysis (what each choice is worth), so
the two can never disagree. A choice's value ("a", "b" or "c") is what the answers map
stores for its question; its weights say how much it adds to each trait axis.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from types import MappingProxyType

#: The trait axes every choice contributes to, in the order reports list them.
CONFIDENCE = "confidence"
SOCIAL = "social"
ADVENTURE = "adventure"
STYLE = "style"
AXES: tuple[str, ...] = (CONFIDENCE, SOCIAL, ADVENTURE, STYLE)

CHOICE_VALUES: tuple[str, ...] = ("a", "b", "c")

#: The two kinds of analysis (personality-analysis ``quizType``): the free result of the
#: test, and the paid trait-by-trait report.
BASIC = "basic"
DETAILED = "detailed"
QUIZ_TYPES: tuple[str, ...] = (BASIC, DETAILED)


@dataclass(frozen=True)
class Choice:
    """One answer to a question: its stored value, its text, and its trait points."""

    value: str
    label: str
    weights: MappingProxyType


@dataclass(frozen=True)
class Question:
    text: str
    choices: tuple[Choice, ...]

    def choice(self, value: str) -> Choice | None:
        """The choice stored as ``value``, or None when there is no such choice."""
        return next((choice for choice in self.choices if choice.value == value), None)


def _question(text: str, *choices: tuple[str, dict[str, int]]) -> Question:
    built = tuple(
        Choice(value, label, MappingProxyType(dict(weights)))
        for value, (label, weights) in zip(CHOICE_VALUES, choices, strict=True)
    )
    return Question(text, built)


QUESTIONS: tuple[Question, ...] = (
    _question(
        "It's Friday night and your phone buzzes. What's the plan?",
        ("Rally everyone for a night out: I'm picking the spot", {SOCIAL: 2, CONFIDENCE: 1}),
        ("A last-minute trip somewhere I've never been", {ADVENTURE: 2}),
        ("Trying on outfits until one feels exactly right", {STYLE: 2}),
    ),
    _question(
        "You walk into a room full of strangers. You...",
        ("Stand tall and introduce myself first", {CONFIDENCE: 2}),
        ("Find the most interesting person and ask for their story", {SOCIAL: 2, ADVENTURE: 1}),
        ("Notice everyone's outfits before anything else", {STYLE: 2}),
    ),
    _question(
        "Pick the holiday photo you'd post:",
        ("Me, mid cliff jump", {ADVENTURE: 2, CONFIDENCE: 1}),
        ("A perfectly styled sunset outfit shot", {STYLE: 2}),
        ("A big group selfie with new friends", {SOCIAL: 2}),
    ),
    _question(
        "Your signature look is...",
        ("Bold colour, bold lipstick, no apologies", {STYLE: 2, CONFIDENCE: 1}),
        ("Whatever I grabbed on the way to my next adventure", {ADVENTURE: 2}),
        ("Matching with my best friend, on purpose", {SOCIAL: 2}),
    ),
    _question(
        "Someone compliments your smile. You...",
        ("Say thank you and smile even wider", {CONFIDENCE: 2}),
        ("Compliment them right back and start chatting", {SOCIAL: 2}),
        ("Tell them the secret is my new skincare routine", {STYLE: 2}),
    ),
    _question(
        "The perfect weekend getaway is...",
        ("Backpacking somewhere off the map", {ADVENTURE: 2}),
        ("A chic city break with great shopping", {STYLE: 2}),
        ("A cabin packed with all my favourite people", {SOCIAL: 2}),
    ),
    _question(
        "A friend dares you to sing karaoke. You...",
        ("Grab the mic before they finish asking", {CONFIDENCE: 2, SOCIAL: 1}),
        ("Pick the weirdest song on the list, just for fun", {ADVENTURE: 2}),
        ("Cheer the loudest for everyone else", {SOCIAL: 2}),
    ),
    _question(
        "Your camera roll is mostly...",
        ("Mirror selfies and outfit checks", {STYLE: 2, CONFIDENCE: 1}),
        ("Friends, friends and more friends", {SOCIAL: 2}),
        ("Views from places I've explored", {ADVENTURE: 2}),
    ),
    _question(
        "How do you pick a new hairstyle?",
        ("I show the stylist a picture and own it", {CONFIDENCE: 2, STYLE: 1}),
        ("I let the stylist surprise me", {ADVENTURE: 2}),
        ("I ask the group chat to vote", {SOCIAL: 2}),
    ),
    _question(
        "At a party, where are you?",
        ("In the middle of the dance floor", {CONFIDENCE: 2, SOCIAL: 1}),
        ("In the kitchen, deep in conversation", {SOCIAL: 2}),
        ("Outside, planning where we go next", {ADVENTURE: 2}),
    ),
    _question(
        "Your dream job would let you...",
        ("Travel the world and never sit still", {ADVENTURE: 2}),
        ("Design clothes, spaces or looks", {STYLE: 2}),
        ("Lead a team and be the face of it", {CONFIDENCE: 2}),
    ),
    _question(
        "A new trend drops. You...",
        ("Already wore it last month", {STYLE: 2, CONFIDENCE: 1}),
        ("Try it once, just to see", {ADVENTURE: 2}),
        ("Wear it only if I can make it my own", {CONFIDENCE: 2}),
    ),
    _question(
        "Which compliment means the most to you?",
        ("You light up every room", {SOCIAL: 2}),
        ("You're fearless", {CONFIDENCE: 2, ADVENTURE: 1}),
        ("You always look amazing", {STYLE: 2}),
    ),
    _question(
        "You're handed the microphone at a wedding. Your speech is...",
        ("Confident, funny and totally unrehearsed", {CONFIDENCE: 2}),
        ("Full of stories about everyone in the room", {SOCIAL: 2}),
        ("An excuse to announce the after-party road trip", {ADVENTURE: 2}),
    ),
    _question(
        "Your go-to accessory is...",
        ("Statement sunglasses", {STYLE: 2, CONFIDENCE: 1}),
        ("A well-travelled backpack", {ADVENTURE: 2}),
        ("A friendship bracelet", {SOCIAL: 2}),
    ),
    _question(
        "Sunday morning looks like...",
        ("Brunch with the whole crew", {SOCIAL: 2}),
        ("A sunrise hike", {ADVENTURE: 2}),
        ("Planning next week's outfits", {STYLE: 2}),
    ),
    _question(
        "A dish you've never heard of is on the menu. You...",
        ("Order it immediately", {ADVENTURE: 2}),
        ("Order it and act like I've had it a hundred times", {CONFIDENCE: 2}),
        ("Order it for the table so we can all try it", {SOCIAL: 2}),
    ),
    _question(
        "Your friends would call you...",
        ("The trendsetter", {STYLE: 2}),
        ("The one who says yes to everything", {ADVENTURE: 2, SOCIAL: 1}),
        ("The one who always speaks up", {CONFIDENCE: 2}),
    ),
    _question(
        "On your first day somewhere new, you...",
        ("Learn everyone's name by lunch", {SOCIAL: 2}),
        ("Dress to impress from head to toe", {STYLE: 2, CONFIDENCE: 1}),
        ("Explore every corner of the place", {ADVENTURE: 2}),
    ),
    _question(
        "What makes you feel most beautiful?",
        ("Knowing exactly who I am", {CONFIDENCE: 2}),
        ("Laughing with the people I love", {SOCIAL: 2}),
        ("An outfit that feels completely me", {STYLE: 2}),
    ),
)

QUESTION_COUNT = len(QUESTIONS)


@functools.cache
def max_points() -> MappingProxyType:
    """The most each axis can collect: the best choice for it in every question."""
    return MappingProxyType(
        {
            axis: sum(max(choice.weights.get(axis, 0) for choice in q.choices) for q in QUESTIONS)
            for axis in AXES
        }
    )
