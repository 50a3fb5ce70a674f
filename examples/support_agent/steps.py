"""Steps the support agent's plans share: finding and describing orders, failing politely."""

from __future__ import annotations

from typing import Any

from agenteval.sdk import ToolError
from examples.support_agent.parsing import Request
from examples.support_agent.session import Session

ASK_ORDER_ID = "Could you give me your order number? It looks like A1234 and is in your confirmation email."


async def lookup(s: Session, order_id: str) -> dict[str, Any]:
    """Look an order up the way a model does: maybe a malformed id first, maybe one retry."""
    if s.slips("sloppy_order_id"):
        try:
            return await s.call("lookup_order", order_id=f"#{order_id}")
        except ToolError:
            pass  # the model reads "not found" and fixes the id
    try:
        return await s.call("lookup_order", order_id=order_id)
    except ToolError:
        if not s.slips("retry_after_error"):
            raise
    return await s.call("lookup_order", order_id=order_id)


async def find_order(s: Session, email: str) -> str | None:
    """The customer's most recent order that is not cancelled, found by their email."""
    orders = await s.call("search_orders", email=email)
    return next((o["order_id"] for o in orders if o.get("status") != "cancelled"), None)


def not_found(exc: ToolError) -> bool:
    return "not found" in str(exc)


async def lookup_failed(s: Session, order_id: str, exc: ToolError, doing: str) -> str:
    """What to say when the order could not be looked up (and maybe open a ticket)."""
    if not_found(exc):
        return f"I couldn't find an order {order_id}. Could you double-check the order number?"
    text = (
        f"I'm sorry, I'm unable to reach our order system right now ({exc}), so I can't {doing} "
        f"order {order_id} at the moment."
    )
    if s.rng.random() < 0.3:
        try:
            ticket = await s.call(
                "escalate_to_human",
                reason=f"order system unavailable while trying to {doing}",
                order_id=order_id,
            )
            return f"{text} I've opened ticket {ticket['ticket_id']} so a colleague follows up with you."
        except ToolError:
            pass
    return f"{text} Please try again in a few minutes."


def items_of(order: dict[str, Any]) -> str:
    return ", ".join(f"{it.get('qty', 1)} x {it.get('name', it.get('sku'))}" for it in order.get("items", []))


def describe(order: dict[str, Any]) -> str:
    """The order's status in one or two sentences, quoting the lookup."""
    oid, state = order["order_id"], order.get("status")
    head = f"Order {oid} ({items_of(order)})"
    if state == "processing":
        return (
            f"{head} is being prepared and hasn't shipped yet; orders usually ship within 1-2 business days."
        )
    if state == "shipped":
        return (
            f"{head} shipped on {order.get('shipped_at')} with {order.get('carrier')}, tracking number "
            f"{order.get('tracking')}. Estimated delivery: {order.get('eta')}."
        )
    if state == "delivered":
        return f"{head} was delivered on {order.get('delivered_at')}."
    return f"{head} is {state}."


def reason_of(req: Request) -> str:
    """The customer's problem in their own words ("yes, go ahead" is no reason)."""
    return (req.first_text if req.confirms else req.text)[:200]


def money(amount: float) -> str:
    return f"${amount:.2f}"
