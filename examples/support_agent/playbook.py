"""The support agent's policy: which plan to follow for a request.

Reads the request's intents and runs the matching plan (actions.py changes things,
questions.py only answers). Before that, the slips that concern the whole conversation
are drawn: acting on a request the customer took back, and asking for an order number
instead of searching for it.
"""

from __future__ import annotations

from dataclasses import replace

from agenteval.sdk import ToolError
from examples.support_agent.actions import ACTIONS, confirmed, escalate
from examples.support_agent.parsing import ACTION_INTENTS, Request
from examples.support_agent.questions import email_documents, policy, quote, smalltalk, status, stock
from examples.support_agent.session import Session
from examples.support_agent.steps import find_order

_ORDER_INTENTS = {"cancel", "address", "refund", "email", "status"}


async def respond(s: Session, req: Request) -> str:
    """Plan and act on the request; returns the final answer."""
    if req.multi_turn and req.negated & set(req.first_intents) and s.slips("stale_intent"):
        # The customer changed their mind; the model latches onto the first request,
        # sometimes doing both the old and the new one.
        both = s.rng.random() < 0.4
        stale = req.first_intents + (req.intents if both else ())
        req = replace(req, intents=stale, negated=frozenset(), confirms=False)
    return await s.answer(await _plan_and_act(s, req))


async def _plan_and_act(s: Session, req: Request) -> str:
    """Run the handler(s) of the request; returns the answer text."""
    if req.order_id is None and req.email and _ORDER_INTENTS & set(req.intents):
        if not s.slips("ask_for_order_id"):
            try:
                req = replace(req, order_id=await find_order(s, req.email))
            except ToolError:
                return f"I couldn't find an account with the email {req.email}. Could you give me your order number?"
    if req.confirms and req.pending:
        return await confirmed(s, req)

    actions = [i for i in ACTION_INTENTS if i in req.intents]
    if "escalate" in actions:
        return await escalate(s, req)
    if actions:
        return " ".join([await ACTIONS[intent](s, req) for intent in actions])
    if "email" in req.intents:
        return await email_documents(s, req)
    if "calculate" in req.intents and (req.quantity or req.percent):
        return await quote(s, req)
    if "inventory" in req.intents:
        return await stock(s, req)
    if "status" in req.intents:
        return await status(s, req)
    if "policy" in req.intents:
        return await policy(s, req)
    if req.smalltalk:
        return await smalltalk(s, req)
    return (
        "I'm not sure I understood. I can help with orders (status, cancellations, address changes, "
        "refunds), stock questions and our shop policies. What can I do for you?"
    )
