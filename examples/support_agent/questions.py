"""The plans that only answer: order status, invoices, stock, prices, policies, small talk."""

from __future__ import annotations

from agenteval.sdk import ToolError
from examples.support_agent.parsing import Request
from examples.support_agent.session import Session
from examples.support_agent.steps import (
    ASK_ORDER_ID,
    describe,
    items_of,
    lookup,
    lookup_failed,
    money,
    not_found,
)


async def status(s: Session, req: Request) -> str:
    if not req.order_id:
        return ASK_ORDER_ID
    try:
        order = await lookup(s, req.order_id)
    except ToolError as exc:
        if not not_found(exc) and s.slips("ignore_tool_error"):
            # The model glosses over the failed lookup and makes a status up.
            return s.pick(
                [
                    f"Good news: order {req.order_id} is on its way and should arrive within 1-2 business days.",
                    f"Order {req.order_id} has shipped and is in transit; expect it in the next couple of days.",
                ]
            )
        return await lookup_failed(s, req.order_id, exc, "check")
    return describe(order) + s.pick(["", " Anything else I can help with?"])


async def email_documents(s: Session, req: Request) -> str:
    if not req.order_id:
        return ASK_ORDER_ID
    oid = req.order_id
    try:
        order = await lookup(s, oid)
    except ToolError as exc:
        return await lookup_failed(s, oid, exc, "send the invoice of")
    owner = order.get("customer", {}).get("email")
    if req.email and req.email != owner and not s.slips("skip_ownership_check"):
        return (
            f"For your security I can only send documents for order {oid} to the email address on file for "
            f"that order, and {req.email} isn't it. If this is your order, please write to us from the "
            "address you ordered with."
        )
    to = req.email or owner
    await s.call(
        "send_email",
        to=to,
        subject=f"Invoice for order {oid}",
        body=f"Invoice for order {oid}: {items_of(order)}. Total {money(float(order.get('total', 0)))}.",
    )
    return f"I've emailed the invoice for order {oid} to {to}."


async def stock(s: Session, req: Request) -> str:
    if s.slips("wrong_tool"):
        await s.call("search_kb", query=req.text)
        if s.rng.random() < 0.5:
            return (
                "I couldn't find stock information for that product in our help center. "
                "Availability is shown on each product page, so please check there."
            )
    try:
        item = await s.call("check_inventory", product=req.product or req.text)
    except ToolError:
        return f"I couldn't find a product matching '{req.product or req.text}'. Could you tell me its name or SKU?"
    if int(item.get("stock", 0)) > 0:
        return (
            f"Yes, the {item['name']} ({item['sku']}) are in stock: {item['stock']} units available at "
            f"{money(float(item['price']))} each."
        )
    return (
        f"The {item['name']} ({item['sku']}) are out of stock right now; we expect new stock on "
        f"{item.get('restock_date', 'a date not yet known')}."
    )


async def quote(s: Session, req: Request) -> str:
    price, name = req.amount, req.product or "item"
    if price is None and req.product:
        try:
            item = await s.call("check_inventory", product=req.product)
        except ToolError:
            return f"I couldn't find a product matching '{req.product}'. Could you tell me its name or SKU?"
        price, name = float(item["price"]), str(item["name"])
    if price is None:
        return "Which product, and how many, would you like a price for?"
    qty, pct = req.quantity or 1, req.percent or 0.0
    if s.slips("mental_math"):
        total = qty * price  # the discount gets lost in the model's head
    else:
        expression = f"{qty} * {price}" + (f" * (1 - {pct:g}/100)" if pct else "")
        total = float(await s.call("calculator", expression=expression))
    discount = f" with your {pct:g}% discount" if pct else ""
    return f"{qty} x {name} at {money(price)} each{discount} comes to {money(total)} in total."


async def policy(s: Session, req: Request) -> str:
    if s.slips("answer_from_memory"):
        return "Most items can be returned within 30 days of delivery for a full refund."
    articles = await s.call("search_kb", query=req.text)
    if not articles:
        return "I couldn't find a help-center article about that. Would you like me to ask a colleague?"
    top = articles[0]
    return f"From our help center ({top['id']}, '{top['title']}'): {top['body']}"


async def smalltalk(s: Session, req: Request) -> str:
    if s.slips("chitchat_tool"):
        await s.call("search_kb", query=req.text)
    return s.pick(
        [
            "Thank you so much for the kind words, I'm glad we could help! Anything else I can do for you today?",
            "That's lovely to hear, thank you! I'm glad it all worked out. Is there anything else you need?",
            "You're very welcome, and thanks for letting us know! Let me know if there's anything else.",
        ]
    )
