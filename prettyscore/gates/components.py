"""The feature gate around a gated page's content (document 001 §4 Feature gate).

While the server is asked, a checking card; then the content when access is granted, or
a locked card that says why (Premium required, or the free trial used up), links to
/premium and, while a free trial is left, offers to activate it.
"""

from __future__ import annotations

import reflex as rx

from prettyscore.core import messages, routes
from prettyscore.gates import service
from prettyscore.gates.state import ERROR, GRANTED, TRIAL_WAIT, FeatureGateState
from prettyscore.ui import styles
from prettyscore.ui.components import card, link_button

FEATURE_TITLES = {
    service.FEET_SCORING: messages.TITLE_FEET_UPLOAD,
    service.HANDS_SCORING: messages.TITLE_HANDS_UPLOAD,
    service.PERSONALITY_TEST: messages.TITLE_PERSONALITY_TEST,
}


def _gate_card(*children: rx.Component, testid: str) -> rx.Component:
    """The gate's own cards share one centred, narrow frame."""
    return rx.center(
        card(
            rx.vstack(*children, align="center", spacing="4", padding="1.5rem"),
            width="100%",
            max_width="480px",
        ),
        padding_y="3rem",
        data_testid=testid,
    )


def _checking() -> rx.Component:
    return _gate_card(
        rx.spinner(size="3"),
        rx.text(messages.GATE_CHECKING_ACCESS, size="3", color_scheme="gray"),
        testid="gate-checking",
    )


def _check_failed(feature: str) -> rx.Component:
    return _gate_card(
        rx.icon("triangle-alert", size=32, color="var(--amber-9)"),
        rx.text(messages.FAILED_TO_CHECK_FEATURE_ACCESS, size="3", align="center"),
        rx.button(
            messages.GATE_TRY_AGAIN,
            on_click=FeatureGateState.check_access(feature),
            radius="full",
            variant="soft",
        ),
        testid="gate-error",
    )


def _activate_button(feature: str, trials_left: rx.Var) -> rx.Component:
    """Shown while a free trial is left; the server decides whether one really is. Busy
    from the press; when no answer comes, a notice under it says so."""
    under_way = FeatureGateState.activating == feature
    return rx.cond(
        trials_left > 0,
        rx.vstack(
            rx.text(
                messages.GATE_FREE_TRIALS_LEFT.format(n=trials_left),
                size="2",
                color_scheme="gray",
            ),
            rx.button(
                rx.icon("gift", size=18),
                messages.GATE_ACTIVATE_FREE_TRIAL,
                on_click=TRIAL_WAIT.send(FeatureGateState.activate_trial, feature),
                loading=TRIAL_WAIT.busy_for(feature, under_way),
                disabled=~rx.State.is_hydrated | TRIAL_WAIT.busy(under_way),
                size="3",
                radius="full",
                variant="outline",
            ),
            TRIAL_WAIT.no_answer_notice(
                under_way, retry=TRIAL_WAIT.retry(FeatureGateState.activate_trial, 1)
            ),
            align="center",
            spacing="2",
        ),
    )


def _locked(feature: str, title: str, body: str, trials_left: rx.Var) -> rx.Component:
    return _gate_card(
        rx.center(
            rx.icon("lock", size=28, color="white"),
            width="64px",
            height="64px",
            border_radius="50%",
            background=styles.BRAND_GRADIENT,
        ),
        rx.text(FEATURE_TITLES[feature], size="2", weight="medium", color_scheme="gray"),
        rx.heading(title, size="6", align="center"),
        rx.text(body, size="3", color_scheme="gray", align="center"),
        _activate_button(feature, trials_left),
        link_button(messages.GATE_UPGRADE_TO_PREMIUM, routes.PREMIUM, "crown"),
        testid="gate-locked",
    )


def feature_gate(feature: str, content: rx.Component) -> rx.Component:
    """``content`` for members the server lets use ``feature``; otherwise why not.

    The access check runs when the gate appears; signed-out visitors are sent to /auth
    and come back to this page after signing in.
    """
    if feature not in service.FEATURES:
        raise ValueError(f"not a gated feature: {feature}")
    phase = FeatureGateState.gate_phase.get(feature, "")
    trials_left = FeatureGateState.gate_trials_left.get(feature, 0).to(int)
    return rx.box(
        rx.match(
            phase,
            (GRANTED, content),
            (
                service.PREMIUM_REQUIRED,
                _locked(
                    feature,
                    messages.GATE_PREMIUM_REQUIRED_TITLE,
                    messages.GATE_PREMIUM_REQUIRED_BODY,
                    trials_left,
                ),
            ),
            (
                service.TRIAL_EXCEEDED,
                _locked(
                    feature,
                    messages.GATE_TRIAL_USED_TITLE,
                    messages.GATE_TRIAL_USED_BODY,
                    trials_left,
                ),
            ),
            (ERROR, _check_failed(feature)),
            _checking(),
        ),
        on_mount=FeatureGateState.check_access(feature),
        width="100%",
        data_testid=f"feature-gate-{feature}",
    )
