"""An offline e-commerce support agent that behaves like a tool-using LLM agent.

A rule-based planner stands in for the model: it reads the conversation, calls shop tools
on the case's state through the AgentContext, records a simulated ``llm_call`` per model
turn, and makes realistic, seeded mistakes at rates set by its version's Profile.
"""

from examples.support_agent.agent import answer_with, make_agent, run, run_v2
from examples.support_agent.parsing import Request, parse_conversation
from examples.support_agent.profiles import PROFILES, V1, V2, Profile
from examples.support_agent.session import LATENCY_SCALE_ENV, Session, latency_scale
from examples.support_agent.tools import DEFAULT_KB, SupportTools

__all__ = [
    "DEFAULT_KB",
    "LATENCY_SCALE_ENV",
    "PROFILES",
    "V1",
    "V2",
    "Profile",
    "Request",
    "Session",
    "SupportTools",
    "answer_with",
    "latency_scale",
    "make_agent",
    "parse_conversation",
    "run",
    "run_v2",
]
