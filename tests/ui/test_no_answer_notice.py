"""The no-answer notice waits as long as the setting says, 8 s unless set otherwise: the
delay is a CSS animation's, compiled into the page, so it is read when the page is built."""

from __future__ import annotations

import json

import reflex as rx

from prettyscore.ui.server_wait import ServerWait


def notice_animation() -> str:
    rendered = json.dumps(ServerWait("probe").no_answer_notice(rx.Var.create(False)).render())
    start = rendered.index("ps-no-answer-appear 0.2s")
    return rendered[start : rendered.index("forwards", start)]


def test_the_notice_says_so_after_eight_seconds_by_default(app_settings):
    app_settings()
    assert notice_animation() == "ps-no-answer-appear 0.2s ease-out 8s "


def test_the_notice_follows_the_setting(app_settings):
    app_settings(NO_ANSWER_SECONDS="2.5")
    assert notice_animation() == "ps-no-answer-appear 0.2s ease-out 2.5s "
