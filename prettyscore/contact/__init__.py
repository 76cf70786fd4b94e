"""Paid contact requests between members and ranked contestants, and their chat."""

# Importing the package registers what a contact fee's payment events do.
from prettyscore.contact import fulfilment as fulfilment  # noqa: E402
