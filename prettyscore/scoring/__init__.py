"""The score's journey: Home's picker → /upload → analysing → /results → Save, and the
same for feet, hands and pets (``body_*``).

The pages and their Reflex state, and the rules of the member-only kinds
(``body_service``: the Premium gates, saving once). What a photo measures and what a
score means is the analysis' (``prettyscore.analysis``); saving is My Photos'.
"""
