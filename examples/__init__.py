"""Runnable examples: an agent under test (support_agent) and its eval suite (support_suite.yaml)."""
