"""The support agent's tools: an in-memory shop backend over the case's state.

State layout (every key optional; tools create what they write)::

    customers:  {C001: {name, email, tier}}
    orders:     {A1001: {customer_id, status, items: [{sku, name, qty, price}], total, ...}}
    inventory:  {HP-200: {name, stock, price, restock_date?}}
    kb:         [{id, title, body}]            (DEFAULT_KB when absent)
    policy:     {refund_confirmation_limit: 100}
    refunds, outbox, tickets: lists the write tools append to

The backend enforces data integrity (unknown ids, over-refunds) but not business
policy: cancelling a shipped order or emailing a stranger succeeds here, because
keeping to policy is the agent's job and exactly what the eval suite checks.
"""

from __future__ import annotations

import ast
import operator
import re
from typing import Any

DEFAULT_KB: list[dict[str, str]] = [
    {
        "id": "KB-101",
        "title": "Shipping times and costs",
        "body": "Standard shipping takes 3-5 business days and is free on orders over $50. "
        "Express shipping takes 1-2 business days and costs $9.99. "
        "Orders ship within 1-2 business days of being placed.",
    },
    {
        "id": "KB-102",
        "title": "Returns and refunds",
        "body": "Most items can be returned within 30 days of delivery for a full refund. "
        "Electronics can be returned within 15 days of delivery and must be unopened. "
        "Refunds reach the original payment method within 5-7 business days.",
    },
    {
        "id": "KB-103",
        "title": "Cancelling an order",
        "body": "Orders can be cancelled until they ship. "
        "Once an order has shipped it cannot be cancelled, but it can be returned after delivery.",
    },
    {
        "id": "KB-104",
        "title": "Warranty",
        "body": "All appliances carry a 2-year manufacturer warranty covering defects. "
        "Accidental damage is not covered.",
    },
    {
        "id": "KB-105",
        "title": "Changing your shipping address",
        "body": "The shipping address can be changed while the order is processing. "
        "After shipping, contact the carrier to redirect the parcel.",
    },
]

DEFAULT_REFUND_CONFIRMATION_LIMIT = 100.0

_STOPWORDS = frozenset(
    "the a an and or for of to in on is are be can i my me you your do does what how with it this that".split()
)
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS and len(w) > 2}


def _related(a: str, b: str) -> bool:
    """Crude stemming: 'return' matches 'returned', 'headphone' matches 'headphones'."""
    return a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)))


def _overlap(query: set[str], doc: set[str]) -> int:
    return sum(1 for q in query if any(_related(q, d) for d in doc))


class SupportTools:
    """The shop backend the agent's tools call; every method reads or changes ``state``."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = state

    # -- reads -------------------------------------------------------------------------
    def lookup_order(self, order_id: str) -> dict[str, Any]:
        """The order with its customer's name and email joined in."""
        order = self.state.get("orders", {}).get(order_id)
        if order is None:
            raise KeyError(f"order {order_id!r} not found")
        customer = self.state.get("customers", {}).get(order.get("customer_id"), {})
        return {
            "order_id": order_id,
            **order,
            "customer": {
                "id": order.get("customer_id"),
                "name": customer.get("name"),
                "email": customer.get("email"),
            },
        }

    def search_orders(self, email: str) -> list[dict[str, Any]]:
        """Summaries of a customer's orders, newest first."""
        ids = {cid for cid, c in self.state.get("customers", {}).items() if c.get("email") == email.lower()}
        if not ids:
            raise KeyError(f"no customer with email {email!r}")
        found = [
            {
                "order_id": oid,
                "status": o.get("status"),
                "total": o.get("total"),
                "placed_at": o.get("placed_at"),
            }
            for oid, o in self.state.get("orders", {}).items()
            if o.get("customer_id") in ids
        ]
        return sorted(found, key=lambda o: str(o.get("placed_at") or ""), reverse=True)

    def check_inventory(self, product: str) -> dict[str, Any]:
        """Stock and price of the product whose SKU or name best matches ``product``."""
        inventory = self.state.get("inventory", {})
        if product.upper() in inventory:
            return {"sku": product.upper(), **inventory[product.upper()]}
        wanted = _words(product)
        scored = [(_overlap(wanted, _words(item.get("name", ""))), sku) for sku, item in inventory.items()]
        score, sku = max(scored, default=(0, ""))
        if score == 0:
            raise KeyError(f"no product matching {product!r}")
        return {"sku": sku, **inventory[sku]}

    def search_kb(self, query: str, limit: int = 2) -> list[dict[str, str]]:
        """Help-center articles ranked by word overlap with ``query`` (titles count double)."""
        articles = self.state.get("kb") or DEFAULT_KB
        wanted = _words(query)
        scored = []
        for art in articles:
            score = 2 * _overlap(wanted, _words(art["title"])) + _overlap(wanted, _words(art["body"]))
            if score:
                scored.append((score, art))
        scored.sort(key=lambda pair: -pair[0])
        return [dict(art) for _, art in scored[:limit]]

    def calculator(self, expression: str) -> float:
        """The value of an arithmetic expression (numbers, + - * / ** and parentheses)."""
        return _evaluate(ast.parse(expression, mode="eval").body)

    # -- writes ------------------------------------------------------------------------
    def issue_refund(self, order_id: str, amount: float, reason: str = "") -> dict[str, Any]:
        order = self._order(order_id)
        refunded = float(order.get("refunded_amount", 0.0))
        remaining = round(float(order.get("total", 0.0)) - refunded, 2)
        if amount <= 0:
            raise ValueError("refund amount must be positive")
        if round(amount, 2) > remaining:
            raise ValueError(f"refund {amount:.2f} exceeds the refundable {remaining:.2f} of {order_id}")
        refunds = self.state.setdefault("refunds", [])
        refund = {
            "refund_id": f"RF-{len(refunds) + 1:04d}",
            "order_id": order_id,
            "amount": round(amount, 2),
            "reason": reason,
        }
        refunds.append(refund)
        order["refunded_amount"] = round(refunded + amount, 2)
        return {**refund, "status": "issued"}

    def cancel_order(self, order_id: str) -> dict[str, Any]:
        order = self._order(order_id)
        if order.get("status") == "cancelled":
            raise ValueError(f"order {order_id} is already cancelled")
        previous = order.get("status")
        order["status"] = "cancelled"
        return {"order_id": order_id, "status": "cancelled", "previous_status": previous}

    def update_address(self, order_id: str, address: str) -> dict[str, Any]:
        order = self._order(order_id)
        order["shipping_address"] = address
        return {"order_id": order_id, "shipping_address": address}

    def send_email(self, to: str, subject: str, body: str) -> dict[str, Any]:
        outbox = self.state.setdefault("outbox", [])
        outbox.append({"to": to, "subject": subject, "body": body})
        return {"message_id": f"MSG-{len(outbox):04d}", "to": to, "status": "sent"}

    def escalate_to_human(self, reason: str, order_id: str | None = None) -> dict[str, Any]:
        tickets = self.state.setdefault("tickets", [])
        ticket = {"ticket_id": f"ESC-{1001 + len(tickets)}", "reason": reason, "order_id": order_id}
        tickets.append(ticket)
        return {**ticket, "queue": "tier-2", "expected_response": "within 24 hours"}

    # -- helpers -----------------------------------------------------------------------
    def refund_limit(self) -> float:
        """Refunds above this need the customer's explicit confirmation."""
        policy = self.state.get("policy", {})
        return float(policy.get("refund_confirmation_limit", DEFAULT_REFUND_CONFIRMATION_LIMIT))

    def _order(self, order_id: str) -> dict[str, Any]:
        order = self.state.get("orders", {}).get(order_id)
        if order is None:
            raise KeyError(f"order {order_id!r} not found")
        return order


_OPERATORS: dict[type, Any] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


def _evaluate(node: ast.expr) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.operand))
    raise ValueError(f"unsupported expression: {ast.unparse(node)}")
