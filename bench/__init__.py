"""Benchmarks of agenteval: the harness (``run.py``), its workloads, stacks and report."""
