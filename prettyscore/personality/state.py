"""Reflex state of /personality-test: the questions one at a time, the result, the
detailed-analysis purchase and, after paying, the detailed report.

The browser only picks choices: whether the member may take the test, the analysis, the
price and whether a detailed report is paid for are all decided by
``personality.service`` (and the feature gate) on the server.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets

import reflex as rx

from prettyscore.accounts.state import AuthState
from prettyscore.billing.components import as_typed
from prettyscore.core import messages, routes
from prettyscore.core.db import run_in_session
from prettyscore.core.errors import DomainError, NotFound, PermissionDenied
from prettyscore.gates import service as gates
from prettyscore.gates.state import FeatureGateState
from prettyscore.personality import service
from prettyscore.personality.offer_state import purchase_refused
from prettyscore.personality.quiz import BASIC, QUESTION_COUNT, QUESTIONS
from prettyscore.ui.guarded import guarded
from prettyscore.ui.server_wait import ServerWait

# What the page shows: the questions (behind the gate), the result, the purchase view,
# the wait for a payment to be confirmed (and its end without one), the detailed report.
QUIZ, RESULT, PURCHASE = "quiz", "result", "purchase"
CONFIRMING, UNCONFIRMED, DETAILED = "confirming", "unconfirmed", "detailed"

#: After paying: look for the payment every 2 s, for up to 30 s.
# Finish and Buy are busy from the press and run once per press (``ui.server_wait``).
FINISH_WAIT = ServerWait("personality_finish")
BUY_WAIT = ServerWait("personality_buy")
RECHECK_SECONDS = 2.0
RECHECKS = 15


@dataclasses.dataclass
class ChoiceRow:
    """One choice of the question on show."""

    value: str = ""
    label: str = ""


class PersonalityState(AuthState):
    """The test, its result and the detailed analysis for the signed-in member."""

    view: str = QUIZ
    current: int = 0
    answers: dict[str, str] = {}
    finishing: bool = False
    buying: bool = False
    promo_code: str = ""
    price: str = service.detailed_price()
    result_type: str = ""
    result_score: int = 0
    result_paragraphs: list[str] = []
    result_traits: list[service.TraitReading] = []

    _owner: str = ""  # whose answers and result these are
    _result_id: str = ""  # the basic result on show: what Buy buys the detailed analysis of
    _awaited: str = ""  # the detailed analysis whose payment we wait for
    _watch: str = ""  # the one recheck loop allowed to run
    _answered_attempts: list[str] = []  # the latest presses run (``ui.server_wait``)

    # -- the question on show ---------------------------------------------------
    @rx.var
    def question_text(self) -> str:
        return QUESTIONS[self.current].text

    @rx.var
    def choices(self) -> list[ChoiceRow]:
        return [ChoiceRow(c.value, c.label) for c in QUESTIONS[self.current].choices]

    @rx.var
    def selected(self) -> str:
        """The current question's answer, if the member gave one (kept when going back)."""
        return self.answers.get(str(self.current), "")

    @rx.var
    def progress_text(self) -> str:
        return messages.PERSONALITY_QUESTION_OF.format(n=self.current + 1, total=QUESTION_COUNT)

    @rx.var
    def progress_percent(self) -> int:
        return round(100 * (self.current + 1) / QUESTION_COUNT)

    @rx.var
    def on_last_question(self) -> bool:
        return self.current == QUESTION_COUNT - 1

    # -- helpers ------------------------------------------------------------------
    def _start_over(self) -> None:
        self.answers, self.current, self.view = {}, 0, QUIZ
        self.result_type, self.result_score = "", 0
        self.result_paragraphs, self.result_traits = [], []
        self._result_id = self._awaited = ""

    def _show(self, result: service.ResultView) -> None:
        """Show a saved result: a basic one with its purchase offer, or a detailed report."""
        self.result_type, self.result_score = result.personality_type, result.score
        self.result_paragraphs = list(result.paragraphs)
        self.result_traits = list(result.traits)
        if result.quiz_type == BASIC:
            self._result_id, self.view = result.id, RESULT
        else:
            self.view = DETAILED

    def _signed_out(self):
        return [
            rx.toast.error(messages.LOG_IN_FOR_PERSONALITY),
            self._sign_in_redirect(routes.PERSONALITY_TEST),
        ]

    def _back_from_a_visit(self) -> None:
        """A plain visit closes the purchase view and any payment wait."""
        if self.view in (PURCHASE, CONFIRMING, UNCONFIRMED, DETAILED):
            self.view = RESULT if self._result_id else QUIZ

    # -- loading ------------------------------------------------------------------
    @rx.event
    async def open_page(self):
        """on_load: members only. ``?result=<id>`` shows one of their saved results;
        ``?payment=success&result=<id>`` the detailed analysis just paid for."""
        self.finishing = self.buying = False
        self.price = service.detailed_price()
        user = await self._current_user()
        if user is None:
            return self._signed_out()
        if self._owner != str(user.id):
            self._start_over()
            self._owner = str(user.id)
        self._watch = ""
        query = self.router.url.query_parameters
        result_id = query.get("result", "")
        if query.get("payment") == "success" and result_id:
            return await self._open_paid(user, result_id)
        if result_id:
            return await self._open_saved(user, result_id)
        self._back_from_a_visit()
        return None

    async def _open_saved(self, user, result_id: str):
        try:
            self._show(await run_in_session(service.read_result, user.id, result_id))
        except DomainError as error:
            self._back_from_a_visit()
            return rx.toast.error(error.message)
        return None

    async def _open_paid(self, user, result_id: str):
        try:
            report = await run_in_session(service.detailed_report, user.id, result_id)
        except NotFound:
            self._back_from_a_visit()
            return rx.toast.error(messages.FAILED_TO_GET_DETAILED_ANALYSIS)
        if report is not None:
            self._show(report)
            return None
        self.view, self._awaited = CONFIRMING, result_id
        self._watch = secrets.token_hex(8)
        return PersonalityState.await_payment

    @rx.event(background=True)
    async def await_payment(self):
        """The payment event may arrive after the member: look again for a while."""
        async with self:
            watch = self._watch
        for _ in range(RECHECKS):
            await asyncio.sleep(RECHECK_SECONDS)
            async with self:
                if self._watch != watch or self.view != CONFIRMING:
                    return
                report = None
                with guarded("Looking for a paid detailed analysis", fallback=None, refusals=False):
                    user = await self._current_user()
                    report = user and await run_in_session(
                        service.detailed_report, user.id, self._awaited
                    )
                if report is not None:
                    self._show(report)
                    return
        async with self:
            if self._watch == watch and self.view == CONFIRMING:
                self.view = UNCONFIRMED

    # -- answering ------------------------------------------------------------------
    @rx.event
    def choose(self, value: str):
        """Pick a choice of the question on show (only its own choices count)."""
        if QUESTIONS[self.current].choice(value) is not None:
            self.answers = {**self.answers, str(self.current): value}

    @rx.event
    def next_question(self):
        if not self.selected:
            return rx.toast.error(messages.PLEASE_SELECT_ANSWER)
        self.current = min(self.current + 1, QUESTION_COUNT - 1)
        return None

    @rx.event
    def previous_question(self):
        self.current = max(self.current - 1, 0)

    @rx.event
    @FINISH_WAIT.answers
    async def finish(self, attempt: str = ""):
        """Finish: the server checks the answers, records the gate's use and saves the
        result (once per ``attempt``); without access the gate shows why and nothing is
        saved."""
        if not self.selected:
            yield rx.toast.error(messages.PLEASE_SELECT_ANSWER)
            return
        user = await self._current_user()
        if user is None:
            yield self._signed_out()
            return
        self.finishing = True
        yield
        answers = dict(self.answers)
        with guarded(
            "Analysing a personality test", messages.FAILED_TO_ANALYZE_PERSONALITY
        ) as call:
            result = await run_in_session(service.finish_test, user.id, answers)
        self.finishing = False
        if isinstance(call.error, PermissionDenied):
            yield [call.toast, FeatureGateState.check_access(gates.PERSONALITY_TEST)]
            return
        if call.failed:
            yield call.toast
            return
        self._show(result)

    @rx.event
    def retake(self):
        """Retake: the answers are cleared and the gate is asked again (it remounts)."""
        self._start_over()

    # -- the detailed analysis ------------------------------------------------------
    @rx.event
    def open_purchase(self):
        if self._result_id:
            self.price = service.detailed_price()
            self.view = PURCHASE

    @rx.event
    def set_promo_code(self, value: str):
        """The Promo code field, as typed (the checkout's service decides it)."""
        self.promo_code = as_typed(value)

    @rx.event
    def back_to_result(self):
        self.view = RESULT if self._result_id else QUIZ

    @rx.event
    @BUY_WAIT.answers
    async def buy(self, attempt: str = ""):
        """Buy the detailed analysis of the result on show: off to the checkout (once
        per ``attempt``)."""
        user = await self._current_user()
        if user is None:
            yield self._signed_out()
            return
        if not self._result_id:
            yield rx.toast.error(messages.FAILED_TO_GET_DETAILED_ANALYSIS)
            return
        self.buying = True
        yield
        url = ""
        with guarded(
            "Starting a detailed analysis purchase", messages.FAILED_TO_GET_DETAILED_ANALYSIS
        ) as call:
            url = await run_in_session(
                service.start_detailed_purchase, user, self._result_id, self.promo_code
            )
        self.buying = False
        yield rx.redirect(url) if url else purchase_refused(call)
