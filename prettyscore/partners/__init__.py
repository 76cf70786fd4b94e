"""The partner (affiliate) programme: accounts, referral links, commission and payouts."""

# Importing the package makes referred members' payments earn their partner commission.
from prettyscore.partners import commissions as commissions  # noqa: E402

# ... and makes partners' promo codes count at checkout.
from prettyscore.partners import promo as promo  # noqa: E402

# ... and credits a member who signs up through a partner's link to that partner.
from prettyscore.partners import referrals as referrals  # noqa: E402
