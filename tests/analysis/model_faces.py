"""Faces made of numbers, for checking the score's model without a photo: a descriptor
whose learned term contributes what a test asks, beside the measured terms' values."""

from __future__ import annotations

import numpy as np

from prettyscore.analysis.engines import face_score


def descriptor_contributing(contribution: float, fitted: face_score.Parameters | None = None):
    """A descriptor whose learned term adds ``contribution`` rating points (0 is the
    rated faces' mean): the learned weights' direction, scaled."""
    fitted = fitted or face_score.parameters()
    weights = fitted.learned.weights
    return (contribution - fitted.learned.offset) * weights / float(weights @ weights)


def typical_descriptor(fitted: face_score.Parameters | None = None) -> np.ndarray:
    return descriptor_contributing(0.0, fitted)
