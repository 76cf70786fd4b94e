"""Imports every area's tables so that SQLModel's metadata (and alembic) sees them all."""

from sqlmodel import SQLModel

from prettyscore.accounts import models as accounts_models
from prettyscore.billing import models as billing_models
from prettyscore.contact import models as contact_models
from prettyscore.editing import models as editing_models
from prettyscore.opportunities import models as opportunities_models
from prettyscore.partners import models as partners_models
from prettyscore.personality import models as personality_models
from prettyscore.photos import models as photos_models
from prettyscore.verification import models as verification_models
from prettyscore.video import models as video_models

metadata = SQLModel.metadata

__all__ = [
    "accounts_models",
    "billing_models",
    "contact_models",
    "editing_models",
    "metadata",
    "opportunities_models",
    "partners_models",
    "personality_models",
    "photos_models",
    "verification_models",
    "video_models",
]
