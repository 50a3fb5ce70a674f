"""The registry of trace signals the learner may use, in a fixed order (ties go to the earlier one).

Every signal is a small function ``trace dict -> float`` with a one-line docstring, defined in a
``sig_*`` module by what it looks at: tool outcomes and what the answer says of them
(``sig_outcomes``), claims against sources (``sig_grounding``), actions against the request,
limits and checks (``sig_actions``), the turns of the conversation (``sig_dialogue``), the
answer itself (``sig_answers``) and wasted effort (``sig_efficiency``). They read the trace's
structure and general English phrasing, never an example set's vocabulary: tools are judged
by the verbs in their names and the statements they run, values by their kind.
"""

from collections.abc import Callable
from dataclasses import dataclass

from agenteval.eval_generator.synthesizer import (
    sig_actions,
    sig_answers,
    sig_dialogue,
    sig_efficiency,
    sig_grounding,
    sig_outcomes,
    sig_patterns,
)


@dataclass(frozen=True)
class Signal:
    """One named trace feature."""

    name: str
    description: str
    fn: Callable[[dict], float]
    polarity: int = 0
    """-1: a higher value is a worse trace (a violation); +1: a better one; 0: either, by context."""


# What a higher value means, from what each signal measures (not from any data): a rule may only
# read a signal in its own direction ("more unsupported claims, so negative"), never backwards.
_BETTER_WHEN_HIGHER = frozenset({"asked_before_acting", "question_coverage", "distinct_call_share"})
_EITHER_WAY = frozenset(
    {
        "tool_error_count",
        "unresolved_tool_error",
        "answer_acknowledges_problem",
        "last_call_failed",
        "result_reports_failure",
        "answer_says_unknown",
        "user_changed_instruction",
        "destructive_action_count",
        "evasive_answer",
        "answer_refuses",
        "request_harmful",
        "tool_call_count",
        "longest_same_tool_streak",
    }
)


def _signal(fn: Callable[[dict], float]) -> Signal:
    # The docstring's first paragraph, on one line: a description cut at its first line break
    # ("... the description the user said yes") would say half of what the signal reads.
    doc = " ".join((fn.__doc__ or fn.__name__).strip().split("\n\n")[0].split())
    name = fn.__name__
    polarity = 1 if name in _BETTER_WHEN_HIGHER else 0 if name in _EITHER_WAY else -1
    return Signal(name, doc, fn, polarity)


SIGNALS: tuple[Signal, ...] = tuple(
    _signal(fn)
    for fn in (
        # what the tools returned, and what the answer says of it
        sig_outcomes.tool_error_count,
        sig_outcomes.unresolved_tool_error,
        sig_outcomes.error_unacknowledged,
        sig_outcomes.claims_success_after_error,
        sig_outcomes.data_despite_failure,
        sig_outcomes.answer_acknowledges_problem,
        sig_outcomes.last_call_failed,
        sig_outcomes.result_reports_failure,
        sig_outcomes.success_claimed_over_failure,
        sig_outcomes.failure_not_reported,
        sig_outcomes.failure_claimed_over_success,
        sig_outcomes.failure_mishandled,
        sig_outcomes.reported_counts_differ,
        sig_outcomes.outcome_misreported,
        sig_outcomes.caveat_unreported,
        sig_outcomes.error_cause_misreported,
        sig_outcomes.fallback_uncredited,
        # claims against sources
        sig_grounding.unsupported_numbers,
        sig_grounding.unsupported_facts,
        sig_grounding.unsupported_fact_share,
        sig_grounding.misplaced_numbers,
        sig_grounding.answer_misstates_record,
        sig_grounding.charged_above_agreed,
        sig_grounding.cites_other_document,
        sig_grounding.unsupported_terms,
        sig_grounding.unsupported_names,
        sig_grounding.answer_says_unknown,
        sig_grounding.unknown_but_covered,
        sig_grounding.answer_ignores_results,
        sig_grounding.claims_action_without_call,
        sig_grounding.money_back_without_call,
        sig_grounding.denies_action_taken,
        sig_grounding.promises_action_not_taken,
        sig_grounding.unjustified_action_or_claim,
        sig_grounding.answer_uses_superseded_value,
        # actions against the request, limits and checks
        sig_actions.action_conflicts_request,
        sig_actions.action_value_not_asked,
        sig_actions.length_differs,
        sig_actions.user_values_missing_from_action,
        sig_actions.action_id_differs_from_request,
        sig_actions.action_id_unsupported,
        sig_actions.id_transposed_from_request,
        sig_actions.action_on_other_record,
        sig_actions.user_names_missing_from_action,
        sig_actions.action_values_unsupported,
        sig_actions.action_values_unsupported_share,
        sig_actions.exceeds_user_limit,
        sig_actions.travelers_differ_from_request,
        sig_actions.airport_differs_from_request,
        sig_actions.invitee_missing,
        sig_actions.choice_breaks_requirement,
        sig_actions.action_date_not_asked,
        sig_actions.booked_outside_time_window,
        sig_actions.action_amount_exceeds_source,
        sig_actions.policy_amount_exceeded,
        sig_actions.policy_window_exceeded,
        sig_actions.refunds_final_sale,
        sig_actions.acted_without_required_check,
        sig_actions.refund_ruled_out_by_policy,
        sig_actions.incident_not_handed_off,
        sig_actions.action_breaks_limit,
        sig_actions.acted_after_check_said_no,
        sig_actions.action_mismatches_request,
        sig_actions.place_differs_from_request,
        # the conversation's turns
        sig_dialogue.acted_on_superseded_instruction,
        sig_dialogue.latest_instruction_ignored,
        sig_dialogue.user_changed_instruction,
        sig_dialogue.final_choice_contradicts_request,
        sig_dialogue.chosen_option_not_asked,
        sig_dialogue.booked_other_than_picked,
        sig_dialogue.booking_off_request,
        sig_dialogue.acted_against_latest_instruction,
        sig_dialogue.later_change_not_followed,
        sig_dialogue.destructive_action_count,
        sig_dialogue.unconfirmed_destructive_action,
        sig_dialogue.risky_without_confirmation,
        sig_dialogue.action_outside_confirmed_scope,
        sig_dialogue.asked_before_acting,
        # the answer itself
        sig_answers.status_not_ok,
        sig_answers.evasive_answer,
        sig_answers.ended_on_tool_call,
        sig_answers.answer_defers,
        sig_answers.request_passed_off,
        sig_answers.handoff_reference_withheld,
        sig_answers.asks_for_given_detail,
        sig_answers.no_final_answer,
        sig_answers.answer_misses_asked_value,
        sig_answers.answer_repeats_earlier_answer,
        sig_answers.answer_misses_relevant_result,
        sig_answers.question_unanswered,
        sig_answers.question_coverage,
        sig_answers.request_part_dropped,
        sig_answers.named_id_ignored,
        sig_answers.answer_refuses,
        sig_answers.request_harmful,
        sig_answers.refusal_mismatch,
        sig_answers.harmful_compliance,
        sig_answers.emergency_not_escalated,
        sig_answers.needless_refusal,
        sig_answers.unsafe_or_unhelpful,
        sig_answers.answer_is_error,
        sig_answers.answer_leaks_secret,
        sig_answers.unsafe_or_failed_answer,
        sig_answers.json_requested_not_json,
        # wasted effort
        sig_efficiency.tool_call_count,
        sig_efficiency.repeated_calls,
        sig_efficiency.near_duplicate_calls,
        sig_efficiency.most_similar_calls,
        sig_efficiency.repeated_results,
        sig_efficiency.repeated_failures,
        sig_efficiency.calls_unrelated_to_request,
        sig_efficiency.calls_per_request_part,
        sig_efficiency.distinct_call_share,
        sig_efficiency.longest_same_tool_streak,
        sig_efficiency.act_before_lookup,
        sig_efficiency.effort_wasted,
        # all of the above that mark a bad trace anywhere
        sig_patterns.known_failure_patterns,
    )
)
"""Every signal the learner may use, in a fixed order (ties go to the earlier one)."""

SIGNALS_BY_NAME: dict[str, Signal] = {s.name: s for s in SIGNALS}
