"""A pytest plugin that runs agenteval suites: each case is a pytest test.

Installed with the ``agenteval-pytest`` distribution (entry point ``pytest11``); pytest
loads it by itself. Files named ``agenteval_*.yaml`` (or ``.yml``; the ini option
``agenteval_suites`` changes the patterns) and files given with ``--agenteval-suite PATH``
are collected as suites. Each suite runs once per session (its selected cases, k trials
each) on ``--agenteval-server ADDR`` or else on an embedded stack started for the session;
a case passes when its pass@k and pass^k reach the thresholds (every trial passing, unless
``--agenteval-min-pass-at-k`` / ``--agenteval-min-pass-pow-k`` or the case's
``metadata`` say otherwise). Case tags are markers (``-m fast``), a failing case reports
its failing trial's transcript and each grader's verdict, the session ends with a summary
per suite, and ``--junitxml`` records every case with its figures as properties.

``plugin`` holds the hooks; it imports nothing heavy until a suite is collected.
"""
