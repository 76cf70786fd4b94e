"""Scoring: the face analysis behind a PrettyScore result, and the tier a score earns.

Domain code only (no Reflex): ``analysis.analyse_face`` turns a decoded RGB photo into a
``FaceAnalysis`` with the configured engine; ``tiers`` names what a score means on screen.
"""
