"""Reflex state of the feature gates: ask the server whether this member may use a
gated feature, and let them activate its free trial.

One state serves every gate; each result is kept under its feature's name, so the feet,
hands and personality pages never show one another's answer. Whether access is granted
is always decided by ``gates.service`` on the server; these vars only say what to show.
"""

from __future__ import annotations

import reflex as rx

from prettyscore.accounts.state import SESSION_TOAST, AuthState
from prettyscore.core import messages
from prettyscore.core.db import run_in_session
from prettyscore.gates import service
from prettyscore.gates.service import FeatureAccess
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import ServerWait

# What a gate shows: the checking card, the feature, a locked card (one per reason), or
# the check's failure with a way to try again.
LOADING = "loading"
GRANTED = "granted"
ERROR = "error"
#: 'Activate Free Trial': busy from the press, and a retry never takes a second trial.
TRIAL_WAIT = ServerWait("activate_trial")


def _phase(access: FeatureAccess) -> str:
    return GRANTED if access.has_access else access.reason or service.PREMIUM_REQUIRED


class FeatureGateState(AuthState):
    """The gates' answers for this tab, per feature name."""

    gate_phase: dict[str, str] = {}
    gate_trials_left: dict[str, int] = {}
    activating: str = ""  # the feature whose trial is being activated, if any
    # The attempt ids of the latest presses run (``ui.server_wait``).
    _answered_attempts: list[str] = []

    def _show(self, feature: str, phase: str, trials_left: int | None = None) -> None:
        self.gate_phase = {**self.gate_phase, feature: phase}
        if trials_left is not None:
            self.gate_trials_left = {**self.gate_trials_left, feature: trials_left}

    def _show_access(self, feature: str, access: FeatureAccess) -> None:
        self._show(feature, _phase(access), access.trial_remaining)

    def _signed_out(self):
        return [
            rx.toast.error(messages.SIGN_IN_TO_ACCESS_FEATURE, id=SESSION_TOAST),
            self._sign_in_redirect(),
        ]

    @rx.event
    async def check_access(self, feature: str):
        """on_mount of a gate: signed-out visitors go to /auth, members get the answer."""
        if feature not in service.FEATURES:
            return
        self._show(feature, LOADING)
        yield  # an earlier answer in this tab must not show while we ask again
        user = await self._current_user()
        if user is None:
            yield self._signed_out()
            return
        with guarded(
            f"Checking access to {feature}",
            messages.FAILED_TO_CHECK_FEATURE_ACCESS,
            refusals=False,
        ) as call:
            access = await run_in_session(service.check_feature_access, user.id, feature)
        if call.failed:
            self._show(feature, ERROR)
            yield call.toast
            return
        self._show_access(feature, access)

    @rx.event
    @TRIAL_WAIT.answers
    async def activate_trial(self, feature: str, attempt: str = ""):
        """Activate the member's free trial of ``feature``; the answer comes back
        rechecked. Once per ``attempt``: run again, the server would refuse a second
        trial while the first waits unused, and the member would read a failure."""
        if self.activating or feature not in service.FEATURES:
            return
        self.activating = feature
        yield
        user = None
        with guarded(f"Activating a trial of {feature}", messages.FAILED_TO_ACTIVATE_TRIAL) as call:
            user = await self._current_user()
            if user is not None:
                access = await run_in_session(service.activate_trial, user.id, feature)
        self.activating = ""
        if call.refusal is not None:
            # no trial was left after all: show the member why, as the server sees it now
            yield [
                rx.toast.error(messages.FAILED_TO_ACTIVATE_TRIAL),
                FeatureGateState.check_access(feature),
            ]
            return
        if call.failed:
            yield call.toast
            return
        if user is None:
            yield self._signed_out()
            return
        self._show_access(feature, access)
        yield rx.toast.success(messages.TRIAL_ACTIVATED)
