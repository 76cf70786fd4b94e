"""MediaPipe and its bundled models are installed: the analysis cannot work without them.

``mediapipe==0.10.21`` is the last release whose wheel carries its models; an install
that lost them (a newer version, a broken wheel) must fail here, loudly, not score
photos wrongly.
"""

from __future__ import annotations

import numpy as np
from skimage import data

from prettyscore.analysis.engines import mediapipe_models


def test_every_bundled_model_file_the_app_uses_is_installed():
    assert mediapipe_models.missing_model_files() == [], (
        "MediaPipe's bundled models are missing: install exactly mediapipe==0.10.21 "
        "(requirements-mediapipe.txt, `make test` does it)"
    )


def test_the_face_mesh_finds_478_landmarks_on_a_real_portrait():
    found = mediapipe_models.FACE_MESH.get().process(data.astronaut())
    assert found.multi_face_landmarks, "Face Mesh found no face on the astronaut portrait"
    assert len(found.multi_face_landmarks[0].landmark) == 478


def test_each_thread_gets_its_own_model_instance():
    from concurrent.futures import ThreadPoolExecutor

    here = mediapipe_models.FACE_MESH.get()
    with ThreadPoolExecutor(1) as pool:
        there = pool.submit(mediapipe_models.FACE_MESH.get).result()
    assert here is mediapipe_models.FACE_MESH.get()
    assert there is not here


def test_the_person_mask_covers_the_person_not_the_background():
    image = data.astronaut()
    mask = mediapipe_models.SELFIE_SEGMENTATION.get().process(image).segmentation_mask
    assert mask.shape == image.shape[:2]
    assert float(np.mean(mask[150:250, 180:300])) > 0.8  # her face and neck ring
    assert float(np.mean(mask[0:60, 0:60])) < 0.2  # the flag's corner
