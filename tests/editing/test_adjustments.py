"""The editor's sliders on the server mean what the CSS filter functions mean."""

from __future__ import annotations

import numpy as np
import pytest
from skimage import data

from prettyscore.editing.adjustments import Adjustments, apply_adjustments


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    return data.astronaut()[::2, ::2].copy()


def test_default_sliders_return_the_photo_unchanged(photo):
    assert np.array_equal(apply_adjustments(photo, Adjustments()), photo)
    assert Adjustments().is_identity


def test_brightness_multiplies_every_channel(photo):
    brighter = apply_adjustments(photo, Adjustments(brightness=150)).astype(int)
    expected = np.clip(np.rint(photo * 1.5), 0, 255)
    assert np.abs(brighter - expected).max() <= 1
    assert brighter.mean() > photo.mean() + 20


def test_brightness_zero_is_black(photo):
    assert apply_adjustments(photo, Adjustments(brightness=0)).max() == 0


def test_contrast_zero_gives_uniform_grey(photo):
    grey = apply_adjustments(photo, Adjustments(contrast=0))
    assert set(np.unique(grey)) == {128}


def test_contrast_stretches_around_mid_grey():
    pixels = np.array([[[64, 128, 192]]], dtype=np.uint8)
    stretched = apply_adjustments(pixels, Adjustments(contrast=200))
    expected = np.clip(np.rint(((pixels / 255 - 0.5) * 2 + 0.5) * 255), 0, 255)
    assert np.abs(stretched.astype(int) - expected).max() <= 1


def test_saturation_zero_leaves_grey_levels(photo):
    grey = apply_adjustments(photo, Adjustments(saturation=0)).astype(int)
    assert np.array_equal(grey[..., 0], grey[..., 1])
    assert np.array_equal(grey[..., 1], grey[..., 2])
    luminance = photo @ np.array([0.213, 0.715, 0.072])
    assert np.abs(grey[..., 0] - luminance).max() <= 1


def test_more_saturation_spreads_the_channels_apart(photo):
    spread = np.ptp(photo.astype(int), axis=2).mean()
    stronger = np.ptp(apply_adjustments(photo, Adjustments(saturation=200)).astype(int), axis=2)
    assert stronger.mean() > spread * 1.5


@pytest.mark.parametrize("sigma", [1.0, 2.5, 4.0])
def test_blur_is_a_gaussian_with_that_standard_deviation_in_pixels(sigma):
    # A sharp black-to-white edge: once blurred, its slope is the blur's kernel, so the
    # slope's spread is the Gaussian's standard deviation.
    edge = np.zeros((41, 201, 3), dtype=np.uint8)
    edge[:, 100:] = 255
    blurred = apply_adjustments(edge, Adjustments(blur=sigma))[20, :, 0].astype(float) / 255
    slope = np.diff(blurred)
    positions = np.arange(slope.size) + 0.5
    centre = (slope * positions).sum() / slope.sum()
    measured = np.sqrt((slope * (positions - centre) ** 2).sum() / slope.sum())
    assert measured == pytest.approx(sigma, rel=0.08)
    assert centre == pytest.approx(99.5, abs=0.1)  # between pixels 99 and 100


def test_blur_zero_changes_nothing(photo):
    assert np.array_equal(apply_adjustments(photo, Adjustments(blur=0)), photo)


def test_values_from_the_browser_are_clamped_to_the_slider_ranges():
    wild = Adjustments.clamped(
        {"brightness": 999, "contrast": -5, "saturation": "nan", "blur": 55.55}
    )
    assert wild == Adjustments(brightness=200, contrast=0, saturation=100, blur=10.0)
    assert Adjustments.clamped({"blur": "2.34", "brightness": "120.4"}) == Adjustments(
        brightness=120, blur=2.3
    )
    assert Adjustments.clamped(None).is_identity
    assert Adjustments.clamped({"brightness": [1, 2], "blur": -1}).is_identity


def test_describe_names_only_what_changed():
    change = Adjustments(brightness=120, blur=1.5)
    assert change.describe() == "Adjusted brightness 120%, blur 1.5px"
    assert Adjustments().describe() == "No adjustments"
