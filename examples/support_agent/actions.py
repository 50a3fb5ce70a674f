"""The plans that change something: cancel, change the address, refund, escalate.

Each looks the order up before acting and keeps to the shop's rules (big refunds need a
yes, shipped orders are not cancelled); the profile's slips are drawn where a real model
would skip a check.
"""

from __future__ import annotations

from typing import Any

from agenteval.sdk import ToolError
from examples.support_agent.parsing import Request, mentions
from examples.support_agent.session import Session
from examples.support_agent.steps import ASK_ORDER_ID, describe, lookup, lookup_failed, money, reason_of


async def cancel(s: Session, req: Request) -> str:
    if not req.order_id:
        return ASK_ORDER_ID
    oid = req.order_id
    order: dict[str, Any] | None = None
    if not s.slips("skip_lookup"):
        try:
            order = await lookup(s, oid)
        except ToolError as exc:
            return await lookup_failed(s, oid, exc, "cancel")
        state = order.get("status")
        if state == "shipped":
            return (
                f"Order {oid} has already shipped ({order.get('carrier')}, tracking {order.get('tracking')}), "
                "so it can't be cancelled anymore. Once it arrives you can return it within 30 days of "
                "delivery for a full refund."
            )
        if state == "delivered":
            return (
                f"Order {oid} was already delivered on {order.get('delivered_at')}, so it can't be "
                "cancelled, but you can return it within 30 days of delivery for a full refund."
            )
        if state == "cancelled":
            return f"Order {oid} is already cancelled; there's nothing more to do."
    try:
        await s.call("cancel_order", order_id=oid)
    except ToolError as exc:
        return f"I tried to cancel order {oid}, but our system returned an error: {exc}."
    refund = f" The full {money(order['total'])} goes back to your original payment method" if order else ""
    return s.pick(
        [f"Done: order {oid} has been cancelled.", f"Order {oid} has been cancelled as requested."]
    ) + (f"{refund} within 5-7 business days." if refund else "")


async def change_address(s: Session, req: Request) -> str:
    if not req.order_id:
        return ASK_ORDER_ID
    if not req.address:
        return f"Sure. What's the new shipping address for order {req.order_id}?"
    oid = req.order_id
    if not s.slips("skip_lookup"):
        try:
            order = await lookup(s, oid)
        except ToolError as exc:
            return await lookup_failed(s, oid, exc, "update")
        if order.get("status") != "processing":
            return (
                f"Order {oid} is already {order.get('status')}, so I can't change its address anymore. "
                f"Please contact {order.get('carrier') or 'the carrier'} to redirect the parcel."
            )
    try:
        await s.call("update_address", order_id=oid, address=req.address)
    except ToolError as exc:
        return f"I couldn't update the address of order {oid}: {exc}."
    return f"I've updated the shipping address of order {oid} to {req.address}."


async def refund(s: Session, req: Request, confirmed: bool = False) -> str:
    if not req.order_id:
        return ASK_ORDER_ID
    oid = req.order_id
    order: dict[str, Any] | None = None
    if req.amount is None or not s.slips("skip_lookup"):
        try:
            order = await lookup(s, oid)
        except ToolError as exc:
            return await lookup_failed(s, oid, exc, "refund")
        if order.get("status") != "delivered":
            extra = " I can cancel it instead if you like." if order.get("status") == "processing" else ""
            return f"Order {oid} is {order.get('status')} and hasn't been delivered yet, so it can't be refunded.{extra}"
    amount = req.amount if req.amount is not None else claimed_amount(order or {}, req.text)
    limit = s.tools.refund_limit()
    if amount > limit and not confirmed and not s.slips("skip_confirmation"):
        return (
            f"I'm sorry about that. A refund of {money(amount)} for order {oid} is above our {money(limit)} "
            f"limit for automatic refunds, so I need your go-ahead first. Shall I issue the refund of "
            f"{money(amount)} to your original payment method?"
        )
    try:
        done = await s.call("issue_refund", order_id=oid, amount=round(amount, 2), reason=reason_of(req))
    except ToolError as exc:
        return f"I couldn't issue the refund for order {oid}: {exc}."
    parts = [
        s.pick(["I've issued a refund", "Done: I've processed a refund"])
        + f" of {money(done['amount'])} for order {oid} (reference {done['refund_id']}). "
        "It will reach your original payment method within 5-7 business days."
    ]
    to = (order or {}).get("customer", {}).get("email") or req.email
    if "email" in req.intents and to and not s.slips("forget_followup"):
        await s.call(
            "send_email",
            to=to,
            subject=f"Your refund for order {oid}",
            body=f"We have refunded {money(done['amount'])} for order {oid} (reference {done['refund_id']}).",
        )
        parts.append(f"I've also emailed the confirmation to {to}.")
    return " ".join(parts)


async def escalate(s: Session, req: Request) -> str:
    if s.slips("no_escalation"):
        # The model tries to calm the customer down itself instead of handing over.
        if req.order_id:
            try:
                order = await lookup(s, req.order_id)
                return (
                    f"I completely understand your frustration and I'm sorry. {describe(order)} "
                    "I'm sure it will arrive soon."
                )
            except ToolError:
                pass
        return "I completely understand your frustration and I'm sorry. I'm here to help."
    if req.order_id and s.rng.random() < 0.5:
        try:
            await lookup(s, req.order_id)  # context for the ticket; not needed to escalate
        except ToolError:
            pass
    try:
        ticket = await s.call("escalate_to_human", reason=reason_of(req), order_id=req.order_id)
    except ToolError as exc:
        return f"I'm sorry, I couldn't reach our support team's queue ({exc}). Please call us."
    return (
        f"I'm sorry for the trouble. I've passed this to a member of our support team (ticket "
        f"{ticket['ticket_id']}); they will contact you {ticket.get('expected_response', 'soon')}."
    )


async def confirmed(s: Session, req: Request) -> str:
    """The customer said yes to the action the assistant proposed."""
    if req.pending == "refund":
        if s.slips("reask_confirmation"):
            amount = money(req.amount) if req.amount else "the amount"
            return f"Just to be sure: should I refund {amount} for order {req.order_id} to your original payment method?"
        return await refund(s, req, confirmed=True)
    return await ACTIONS[req.pending or "escalate"](s, req)


ACTIONS = {"cancel": cancel, "address": change_address, "refund": refund, "escalate": escalate}


def claimed_amount(order: dict[str, Any], text: str) -> float:
    """What the customer wants back when they named no amount: the items they mention, else the rest."""
    named = [it for it in order.get("items", []) if mentions(text, str(it.get("name", "")))]
    if named and "full" not in text.lower():
        return sum(float(it["price"]) * int(it.get("qty", 1)) for it in named)
    return float(order.get("total", 0)) - float(order.get("refunded_amount", 0))
