"""``analyse_face`` uses the engine the settings choose (``SCORING_ENGINE``)."""

from __future__ import annotations

import pytest

from prettyscore.analysis.engines import engine_named, get_face_engine
from prettyscore.analysis.engines.face_mesh import FaceMeshEngine
from prettyscore.analysis.engines.simulated import SimulatedFaceEngine
from prettyscore.analysis.face import analyse_face
from prettyscore.core import messages
from prettyscore.core.errors import ValidationFailed
from prettyscore.core.settings import get_settings
from tests.fixtures import photos


@pytest.fixture
def scoring_engine(monkeypatch):
    """Set SCORING_ENGINE for one test; settings are re-read and restored after."""

    def choose(name: str | None) -> None:
        if name is None:
            monkeypatch.delenv("SCORING_ENGINE", raising=False)
        else:
            monkeypatch.setenv("SCORING_ENGINE", name)
        get_settings.cache_clear()

    yield choose
    get_settings.cache_clear()


def test_the_default_engine_really_analyses_the_photo(scoring_engine):
    scoring_engine(None)
    assert isinstance(get_face_engine(), FaceMeshEngine)
    with pytest.raises(ValidationFailed) as refused:
        analyse_face(photos.coffee())
    assert refused.value.message == messages.NO_FACE_FOUND
    assert analyse_face(photos.astronaut()).engine == "analysis"


def test_the_simulated_engine_scores_even_a_coffee_cup(scoring_engine):
    scoring_engine("simulated")
    assert isinstance(get_face_engine(), SimulatedFaceEngine)
    result = analyse_face(photos.coffee())
    assert result.engine == "simulated"
    assert result.score in (7.0, 8.0, 9.0)


def test_an_unknown_engine_name_is_a_configuration_error():
    with pytest.raises(ValueError, match="unknown scoring engine"):
        engine_named("crystal-ball")
