"""What a custom edit prompt asks for, in the words people use: plain text, no pixels.

``read(prompt)`` finds the edits the local engine can carry out ("make it brighter
please", "increase brightness", "warm it up a little", "blur the background and add
more contrast") and what it cannot ("add sunglasses", "make me look younger"). It is a
table of phrasings (regular expressions over word stems, so brighter, brighten,
brightness and lighter are one thing) read in a fixed order of priority, the more
specific phrasing first: each match takes its words out of the prompt, so "smoother
hair" is polished hair and never also smooth skin, and "darker hair" is a refusal,
never a darker photo. What the table does not claim is then looked at for requests the
engine cannot do (accessories, age, body and face shape, other hair colours, style
transfers, "add a …", "turn me into …"); one of those anywhere refuses the whole prompt,
so a member never spends a free edit on half of what they asked for.

The edits come back in the order the engine applies them (surroundings, hair, outfit,
skin, light, colour, tone, detail, upscale), whatever the order of the words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from prettyscore.editing import presets

# --- The edits the local engine can do (names are for logs and tests) --------------------

REMOVE_BACKGROUND = "remove background"
BLUR_BACKGROUND = "blur background"
STUDIO_BACKGROUND = "studio background"
OUTDOOR_BACKGROUND = "outdoor background"
HAIR_VOLUME = "hair volume"
BLONDE_HAIR = "blonde hair"
HAIR_HIGHLIGHTS = "hair highlights"
POLISHED_HAIR = "polished hair"
PROFESSIONAL_ATTIRE = "professional attire"
CASUAL_OUTFIT = "casual outfit"
FORMAL_JACKET = "formal jacket"
CLOTHING_COLOURS = "clothing colours"
SMOOTH_SKIN = "smooth skin"
BRIGHTER = "brighter"
DARKER = "darker"
MORE_CONTRAST = "more contrast"
LESS_CONTRAST = "less contrast"
WARMER = "warmer"
COOLER = "cooler"
MORE_COLOUR = "more colour"
LESS_COLOUR = "less colour"
BLACK_AND_WHITE = "black and white"
VINTAGE = "vintage"
SHARPER = "sharper"
UPSCALE = "upscale"

# The order edits are applied in.
APPLY_ORDER: tuple[str, ...] = (
    REMOVE_BACKGROUND,
    BLUR_BACKGROUND,
    STUDIO_BACKGROUND,
    OUTDOOR_BACKGROUND,
    HAIR_VOLUME,
    BLONDE_HAIR,
    HAIR_HIGHLIGHTS,
    POLISHED_HAIR,
    PROFESSIONAL_ATTIRE,
    CASUAL_OUTFIT,
    FORMAL_JACKET,
    CLOTHING_COLOURS,
    SMOOTH_SKIN,
    BRIGHTER,
    DARKER,
    MORE_CONTRAST,
    LESS_CONTRAST,
    WARMER,
    COOLER,
    MORE_COLOUR,
    LESS_COLOUR,
    BLACK_AND_WHITE,
    VINTAGE,
    SHARPER,
    UPSCALE,
)

# Each preset of document 000 §9 is the edit of the same name.
PRESET_EDITS: dict[str, str] = {
    presets.REMOVE_BACKGROUND: REMOVE_BACKGROUND,
    presets.BLUR_BACKGROUND: BLUR_BACKGROUND,
    presets.OUTDOOR_BACKGROUND: OUTDOOR_BACKGROUND,
    presets.STUDIO_BACKGROUND: STUDIO_BACKGROUND,
    presets.HAIR_VOLUME: HAIR_VOLUME,
    presets.HAIR_BLONDE: BLONDE_HAIR,
    presets.HAIR_HIGHLIGHTS: HAIR_HIGHLIGHTS,
    presets.HAIR_POLISHED: POLISHED_HAIR,
    presets.PROFESSIONAL_ATTIRE: PROFESSIONAL_ATTIRE,
    presets.CASUAL_OUTFIT: CASUAL_OUTFIT,
    presets.FORMAL_JACKET: FORMAL_JACKET,
    presets.CLOTHING_COLORS: CLOTHING_COLOURS,
    presets.UPSCALE_PROMPT: UPSCALE,
}


@dataclass(frozen=True)
class Reading:
    """What a prompt asks for: the edits (in the order applied) and what cannot be done."""

    edits: tuple[str, ...]
    refused: tuple[str, ...] = ()

    @property
    def doable(self) -> bool:
        """True when the engine can carry out everything asked (and something is asked)."""
        return bool(self.edits) and not self.refused


# --- Vocabulary ------------------------------------------------------------------------------

# Between two words of a phrase: up to four words, in the same clause (no punctuation, no
# "and" or "but", no word another phrasing has taken).
GAP = r"(?:[\s\-]+(?!(?:and|but|then|also|plus|or)\b)[a-z0-9']+){0,4}?[\s\-]+"
BG = r"(?:back\s?grounds?|backdrops?|bg|surroundings|scenery|setting)"
HAIR = r"(?:hair|hairs|hairstyle|hairdo|locks)"
CLOTHES = r"(?:cloth(?:es|ing)|outfits?|attire|shirts?|tops?|dress(?:es)?|wardrobe|garments?)"
COLOUR = r"(?:colou?r(?:s|ing)?|tones?|tints?|hues?)"
SKIN = r"(?:skin|complexion|face|cheeks?|forehead)"
UP = (
    r"(?:more|increased?|increasing|raised?|raising|boost(?:ed|ing)?|higher|high|add(?:ed|ing)?"
    r"|extra|enhanced?|improved?|stronger|heighten(?:ed)?|amp(?:ed)?\s+up|pump(?:ed)?\s+up"
    r"|turn(?:ed)?\s+up|crank(?:ed)?\s+up|bump(?:ed)?\s+up|up)"
)
DOWN = (
    r"(?:less|decreased?|decreasing|reduced?|reducing|lower(?:ed|ing)?|low|lessen(?:ed)?"
    r"|tone(?:d)?\s+down|turn(?:ed)?\s+down|dial(?:led)?\s+down|weaker|minus|drop(?:ped)?)"
)
# "a bit more", "a lot less": words that may sit between the verb and the noun.
AMOUNT = r"(?:\s+(?:the|my|its|some|a|an|bit|little|lot|lots|of|tad|touch|much|way|slightly|more))*"
# Background colours the studio backdrop stands for (white removes the background).
STUDIO_COLOURS = r"(?:gr[ae]y|neutral|plain|solid|simple|clean|seamless|studio|professional)"
OTHER_COLOURS = (
    r"(?:red|black|brown|pink|blue|green|purple|violet|orange|yellow|ginger|auburn|silver"
    r"|rainbow|pastel|teal|turquoise|burgundy|copper|platinum|colou?red|dyed)"
)


def words(*forms: str) -> str:
    """Any of ``forms`` as a whole word."""
    return r"\b(?:" + "|".join(forms) + r")\b"


def near(first: str, second: str) -> str:
    """``first``, then ``second`` a few words later."""
    return rf"\b(?:{first}){GAP}(?:{second})\b"


def either(first: str, second: str) -> str:
    """``first`` near ``second``, in either order."""
    return near(first, second) + "|" + near(second, first)


@dataclass(frozen=True)
class Phrasing:
    """Ways of asking for ``edit``; ``edit`` None means a request the engine cannot do."""

    edit: str | None
    pattern: re.Pattern
    label: str = ""


def can(edit: str, *patterns: str) -> Phrasing:
    return Phrasing(edit, re.compile("|".join(f"(?:{p})" for p in patterns)), edit)


def cannot(label: str, *patterns: str) -> Phrasing:
    return Phrasing(None, re.compile("|".join(f"(?:{p})" for p in patterns)), label)


BRIGHT = r"bright(?:er|en(?:s|ed|ing)?|ness|est)?|lighte?n(?:s|ed|ing)?(?:\s+up)?|lighter"
DARK = r"dark(?:er|en(?:s|ed|ing)?|ness)?|dimm?(?:er|ed)?|moodier|moody"
WARM = r"warm(?:er|th|ing|ed|s)?(?:\s+(?:it\s+)?up)?|golden\s+(?:hour|glow|light)"
COOL = (
    r"cooler|colder|cool(?:ing|ed)?\s+(?:(?:it|this|the\s+photo)\s+)?down"
    r"|cool\s+(?:" + COLOUR + r"|look|feel)"
)
SHARP = (
    r"sharp(?:en(?:s|ed|ing)?|er|ness|est)?|crisp(?:er|ness|y)?|clearer|clarity|definition"
    r"|detail(?:s|ed)?"
)
CONTRAST = r"contrast(?:s|y|ier)?"
SATURATION = r"saturat(?:e|ed|ion|ing)|vibran(?:t|ce|cy)|vivid(?:ness)?|colou?rful"

# In order of priority: a phrasing further down never sees words one above has taken.
PHRASINGS: tuple[Phrasing, ...] = (
    # Hair colours and skin tones the engine cannot give, before darker/lighter read them.
    cannot(
        "that hair colour",
        near(OTHER_COLOURS + r"|dark(?:er)?|black|white|gr[ae]y", HAIR),
        near(HAIR, r"(?:to\s+|in\s+)?(?:" + OTHER_COLOURS + r"|dark(?:er)?|white|gr[ae]y)"),
        words("brunette", "redhead", "dye", "dyed"),
    ),
    cannot(
        "a different skin tone",
        either(r"light(?:er)?|dark(?:er)?|whiter|paler|tann?(?:ed|er)?|bronzed?", r"skin"),
        words("tan", "suntan", "tanned"),
    ),
    # Background
    can(
        BLUR_BACKGROUND,
        either(r"blur(?:s|red|ry|ring)?|de-?focus(?:ed)?|out\s+of\s+focus|soft(?:en|er)?", BG),
        words("bokeh", r"depth\s+of\s+field", r"portrait\s+mode", r"shallow\s+focus"),
        r"\bfocus\s+on\s+(?:me|the\s+(?:subject|person|face)|my\s+face)\b",
    ),
    can(
        REMOVE_BACKGROUND,
        near(
            r"remov(?:e|ed|ing)|delet(?:e|ed|ing)|eras(?:e|ed|ing)|cut(?:ting)?\s+out|get\s+rid\s+of"
            r"|take\s+(?:out|away)|strip|lose|without|no",
            BG,
        ),
        near(BG, r"remov(?:ed|al)|gone|delet(?:ed|ion)|eras(?:ed|ure)|(?:to|in)\s+white"),
        rf"\b(?:white|transparent|blank|empty|no)\s+(?:colou?red\s+)?{BG}\b",
        words(r"cut\s?out", r"isolate(?:\s+me)?"),
    ),
    can(
        OUTDOOR_BACKGROUND,
        words(
            "outdoors?",
            "outside",
            "nature",
            "natural\\s+(?:setting|scene|background)",
            "park",
            "garden",
            "greenery",
        ),
        either(r"sky|grass|trees|green|summer|sunny|natural|outdoor", BG),
    ),
    can(
        STUDIO_BACKGROUND,
        words("studio"),
        rf"\b{STUDIO_COLOURS}\s+(?:colou?red\s+)?{BG}\b",
        near(BG, r"(?:to|in)\s+(?:a\s+)?" + STUDIO_COLOURS),
        r"\b(?:change|replace|swap|switch|new|different|nicer|better|improve|update)"
        + GAP
        + BG
        + r"(?!\s+(?:to|into|with|for|of)\b)\b",
    ),
    cannot(
        "that background",
        either(OTHER_COLOURS + r"|dark(?:er)?|beach|city|space|sea|ocean|sunset", BG),
    ),
    # Hair
    can(
        BLONDE_HAIR,
        words(r"blond(?:e|er|ish)?", r"golden\s+" + HAIR, r"platinum\s+blonde?", "bleach(?:ed)?"),
        either(r"light(?:er|en)?|bright(?:er|en)?", HAIR),
    ),
    can(
        HAIR_HIGHLIGHTS,
        words("highlights?", "balayage", r"sun-?kissed", "streaks", "lowlights"),
    ),
    can(
        HAIR_VOLUME,
        either(
            r"volume|volumi[sz]\w*|voluminous|full(?:er)?|thick(?:er)?|big(?:ger)?|bouncy"
            r"|bouncier|fluff(?:y|ier)|lift",
            HAIR,
        ),
    ),
    can(
        POLISHED_HAIR,
        either(
            r"polish(?:ed)?|neat(?:er)?|tid(?:y|ier)|sleek(?:er)?|smooth(?:er)?|shin(?:y|ier|e)"
            r"|groomed|fix|frizz(?:y)?|less\s+frizz\w*|styled?|glossy|glossier",
            HAIR,
        ),
        words(r"frizz(?:y|iness)?", "flyaways?"),
    ),
    # Clothes
    can(
        CLOTHING_COLOURS,
        either(r"colou?r(?:s|ful)?|vivid|vibrant|bright(?:er|en)?|richer|saturat\w*|pop", CLOTHES),
    ),
    can(
        FORMAL_JACKET,
        words(
            r"formal\s+(?:jacket|blazer|suit)",
            r"suit\s+and\s+tie",
            "jackets?",
            "blazers?",
            "suits?",
            "tux(?:edo)?",
            "sport\\s?coat",
            r"dinner\s+jacket",
        ),
    ),
    can(
        PROFESSIONAL_ATTIRE,
        words(
            r"professional(?:ly)?",
            "business(?:\\s+(?:attire|clothes|wear|look|casual))?",
            "corporate",
            "office",
            r"work\s+(?:clothes|attire|outfit)",
            r"formal(?:\s+(?:wear|clothes|attire|outfit|look))?",
            r"shirt\s+and\s+tie",
            r"dress(?:ed)?\s+up",
            r"smart(?:er)?\s+(?:clothes|outfit|attire|look)",
        ),
    ),
    can(
        CASUAL_OUTFIT,
        words(
            r"casual(?:ly)?",
            r"t-?shirt",
            "tee",
            "hoodie",
            "sweater",
            "jeans",
            r"relaxed\s+(?:look|outfit|clothes|style)",
            r"everyday\s+(?:clothes|outfit|look)",
            "laid-?back",
        ),
    ),
    # Skin
    can(
        SMOOTH_SKIN,
        either(
            r"smooth(?:e[nr]|ing|ed)?|soft(?:en|er|ened)?|clear(?:er)?|even|flawless|glow\w*",
            SKIN,
        ),
        words(
            r"smooth(?:e[nr]|ing)?",
            r"soft(?:en|er)?",
            r"airbrush(?:ed)?",
            r"retouch(?:ed)?",
            r"blemish(?:es)?",
            "acne",
            r"pimples?",
            r"spots",
            r"wrinkles?",
            r"pores",
            r"skin\s+care",
        ),
    ),
    # Colour
    can(
        BLACK_AND_WHITE,
        r"black\s*(?:and|n|-)\s*white|\bb\s*(?:and|/)\s*w\b|\bbw\b|\bgr[ae]y\s*scale\b",
        words("monochrome", "noir", "colou?rless"),
        near(r"no|without|remove|drop", r"colou?rs?"),
    ),
    can(
        LESS_COLOUR,
        words(r"desaturat\w*", "muted", r"washed\s+out", "pastel"),
        near(DOWN, SATURATION + r"|colou?rs?|vibrance"),
    ),
    can(
        MORE_COLOUR,
        words(
            SATURATION,
            r"colou?rs?\s+pop",
            r"pop(?:ping)?\s+colou?rs?",
            r"richer\s+colou?rs?",
            r"bright(?:er)?\s+colou?rs?",
        ),
        near(UP, r"colou?rs?|vibrance"),
    ),
    # Light: a phrase with "too" or "less" first, so "too dark" is never read as darker.
    can(BRIGHTER, words(r"too\s+dark", r"less\s+dark", r"not\s+so\s+dark", "underexposed")),
    can(
        DARKER,
        words(r"less\s+bright", r"not\s+so\s+bright", r"too\s+bright", "overexposed"),
        near(DOWN, r"brightness|exposure|light(?:ing)?"),
    ),
    can(
        BRIGHTER,
        r"\b" + UP + AMOUNT + r"\s+(?:light(?:ing)?|exposure|brightness)\b",
        r"\b(?:better|improve[sd]?|fix)" + AMOUNT + r"\s+light(?:ing)?\b",
        r"\b(?:light|exposure|brightness)\s+up\b",
        words(BRIGHT, r"light\s+up", "illuminat\\w*", "radiant"),
    ),
    can(DARKER, words(DARK)),
    # Tone
    can(
        LESS_CONTRAST,
        near(DOWN + r"|flat(?:ter)?|soft", CONTRAST),
        words("flatter", "matte"),
    ),
    can(
        MORE_CONTRAST,
        words(CONTRAST, "punch(?:y|ier)?", "pop", "dramatic", "drama"),
    ),
    can(
        COOLER,
        near(DOWN, r"warmth|warm|yellow|orange"),
        near(UP, r"blue|cool(?:ness)?|cold"),
        words(COOL, "bluer", "icy", "wintry"),
    ),
    can(
        WARMER,
        near(DOWN, r"blue|cool|cold"),
        near(UP, r"yellow|orange|gold(?:en)?"),
        words(
            WARM,
            "sunnier",
            "cozier",
            "cosier",
            r"sunset\s+(?:tones?|colou?rs?|glow|light|look|feel)",
        ),
    ),
    can(
        VINTAGE,
        words(
            "vintage",
            "sepia",
            "retro",
            r"old[- ]fashioned",
            r"old[- ]school",
            r"old\s+(?:photo|photograph|picture|film)",
            r"film\s+(?:look|grain|style|photo|camera)",
            r"like\s+(?:an?\s+)?(?:old\s+)?film",
            r"analog(?:ue)?",
            "nostalgic",
            "polaroid",
            "faded",
            r"(?:19)?[5-8]0s",
        ),
    ),
    # Detail
    can(
        SHARPER,
        words(SHARP, "unblur", "deblur", r"in\s+focus", r"more\s+focus(?:ed)?", r"blurr?y"),
        near(r"less|remove|fix|reduce|no|not", r"blur(?:ry|riness)?"),
    ),
    can(
        UPSCALE,
        words(
            r"upscal\w*",
            r"up-?res",
            "4k",
            "uhd",
            "hd",
            r"hi-?res",
            r"high[- ]res(?:olution)?",
            r"higher\s+res(?:olution)?",
            r"super[- ]?resolution",
            r"enlarge\w*",
            "bigger",
            "larger",
        ),
        near(UP, r"resolution|size|quality"),
    ),
    # What the engine cannot do, wherever it is asked.
    cannot(
        "accessories",
        words(
            r"(?:sun\s?)?glass(?:es)?",
            "shades",
            "spectacles",
            "goggles",
            "hats?",
            "caps?",
            "beanie",
            "crown",
            "tiara",
            r"earrings?",
            "necklace",
            r"jewel(?:le)?ry",
            r"piercings?",
            r"tattoos?",
            "mask",
            "scarf",
            "headphones",
            "tie",
            "bow\\s?tie",
            "watch",
        ),
    ),
    cannot(
        "age",
        words(
            r"young(?:er|est)?",
            "youthful",
            r"old(?:er)?",
            r"ag(?:e|ed|ing|eing)",
            r"de-?age\w*",
            "teen(?:ager)?",
            "kid",
            "child",
            "baby",
        ),
    ),
    cannot(
        "face and body",
        words(
            r"slim(?:mer|ming)?",
            r"thin(?:ner)?",
            r"skinn(?:y|ier)",
            r"fat(?:ter)?",
            "weight",
            r"muscl\w*",
            "abs",
            r"tall(?:er)?",
            r"short(?:er)?",
            r"nose",
            "lips",
            r"jaw\w*",
            "chin",
            "cheekbones",
            r"eyes?",
            r"eyebrows?",
            r"eyelashes",
            "teeth",
            r"smil\w*",
            "expression",
            "wink",
            "beard",
            r"mo?ustache",
            "stubble",
            r"shav\w*",
            "bald",
            r"make-?up",
            "lipstick",
            "eyeliner",
            "mascara",
            "freckles",
            "dimples",
            "ears?",
            "body",
            "pose",
            "hands?",
            "arms?",
            "legs?",
            r"haircut",
            r"curl(?:s|y)",
            "straight",
            "bangs",
            "fringe",
            "ponytail",
            r"braids?",
            "bun",
            "wig",
            r"(?:long|longer)\s+" + HAIR,
        ),
    ),
    cannot(
        "a different style",
        words(
            r"cartoon\w*",
            "anime",
            "manga",
            "pixar",
            "disney",
            r"paint(?:ing|ed)?",
            r"sketch\w*",
            "drawing",
            r"watercolou?r",
            r"pop\s+art",
            r"comic\w*",
            "3d",
            "avatar",
            r"pixel(?:ated)?",
            "caricature",
            "pirate",
            "zombie",
            "dragon",
            "vampire",
            "superhero",
            "elf",
            "alien",
            "robot",
            "wizard",
            "princess",
            "prince",
            "king",
            "queen",
            "celebrity",
            "model",
        ),
    ),
    cannot(
        "adding or removing things",
        words(
            r"dogs?",
            r"cats?",
            "pet",
            "person",
            "people",
            r"(?:girl|boy)friend",
            "someone",
            "somebody",
            r"cars?",
            r"flowers?",
            "text",
            "logo",
            "watermark",
            "caption",
            "frame",
            "border",
            r"stickers?",
            r"emojis?",
            "wings",
            "halo",
            "horns",
            "fire",
            "rain",
            "snow",
            r"stars",
            "sparkles",
            r"hearts",
            "beach",
            "city",
            "space",
            "ocean",
            "sunset",
            "sunrise",
            "moon",
            "night",
            "rainbow",
        ),
    ),
)

# Verbs that ask for something to be added, removed or turned into something: whatever
# follows them must be something understood, or the prompt asks for what cannot be done.
OPEN_REQUESTS = re.compile(
    r"\b(?:add(?:ing)?|put|give\s+me|wear(?:ing)?|remove|erase|delete|get\s+rid\s+of|replace"
    r"|swap|turn\s+(?:me|it|this|us|him|her)\s+into|make\s+(?:me|us|him|her)(?:\s+look)?"
    r"|dress\s+(?:me\s+)?(?:in|as|up\s+as)|change\s+(?:my|the|his|her)|into\s+an?)\b"
    r"((?:\s+[a-z0-9'-]+){1,4})"
)
# Words that say nothing by themselves: what is left of a phrase once its request is taken.
_FILLER_WORDS = (
    "a an the some any it its me my us our him her his their this that these those photo "
    "photos picture pictures pic pics image images shot selfie portrait please pls plz "
    "bit little lot more much very really slightly somewhat kind sort of also too just "
    "look looks looking and or with to in on for so up again thanks thank you can could "
    "would will i i'd want like make made one tiny touch overall whole entire everything "
    "all tad way nice nicer good better great best pretty beautiful lovely amazing "
    "awesome perfect something anything hair colour color colours colors background "
    "backdrop skin face clothes clothing outfit lighting light tone tones style feel "
    "effect version quality be is are was am at as by from than then now here there "
    "maybe mostly same natural subtle realistic proper new"
)
FILLER = frozenset(_FILLER_WORDS.split())
TAKEN = " ¦ "  # what a matched phrasing leaves in its place: no pattern reads across it

NEGATED = re.compile(
    r"\b(?:don'?t|do\s+not|dont|never|no\s+need\s+to|without\s+changing|keep|leave)\b"
    r".*?(?=[,;.!?]|\bbut\b|\bthen\b|\binstead\b|\band\b(?!\s+white)|$)"
)


def cleaned(prompt: str) -> str:
    """Lower case, one kind of apostrophe and ampersand, single spaces, no final stop."""
    text = prompt.lower().replace("’", "'").replace("‘", "'").replace("&", " and ")
    return presets.normalised(text)


def read(prompt: str) -> Reading:
    """The edits ``prompt`` asks for (in the order applied) and what cannot be done."""
    preset = presets.preset_named(prompt)
    if preset is not None:
        return Reading((PRESET_EDITS[preset],))
    text = NEGATED.sub(TAKEN, cleaned(prompt))
    found: set[str] = set()
    refused: list[str] = []
    for phrasing in PHRASINGS:
        text, count = phrasing.pattern.subn(TAKEN, text)
        if not count:
            continue
        if phrasing.edit is None:
            refused.append(phrasing.label)
        else:
            found.add(phrasing.edit)
    for match in OPEN_REQUESTS.finditer(text):
        asked = [w for w in match.group(1).split() if w not in FILLER]
        if asked:
            refused.append(" ".join(asked))
    if found & {STUDIO_BACKGROUND, OUTDOOR_BACKGROUND}:
        found.discard(REMOVE_BACKGROUND)  # the new backdrop replaces the old one anyway
    if UPSCALE in found:
        found.discard(SHARPER)  # the upscale ends with its own sharpening
    return Reading(tuple(e for e in APPLY_ORDER if e in found), tuple(refused))


def understood(prompt: str) -> list[str]:
    """The names of the edits ``prompt`` asks for, or [] when it cannot all be done."""
    reading = read(prompt)
    return list(reading.edits) if reading.doable else []


__all__ = ["APPLY_ORDER", "PHRASINGS", "PRESET_EDITS", "Reading", "read", "understood"]
