"""The personality test: 20 questions, a basic result and a paid detailed analysis."""

# Importing the package registers what a detailed analysis's payment events do.
from prettyscore.personality import fulfilment as fulfilment  # noqa: E402
