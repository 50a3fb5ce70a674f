"""Regression detection between a baseline run and a candidate run of the same suite.

Three checks decide whether the candidate passes; each is one entry of `reasons`:
- cases: a case regressed when its pass rate fell by more than `threshold` AND its
  one-sided Fisher exact p-value (candidate < baseline), adjusted across cases, is below
  the per-case level. The default adjustment is the discrete Holm step-down
  (Tarone 1990; Westfall & Wolfinger 1997): a case whose pass counts cannot produce a
  small p-value (5/5 in both runs, say) takes no alpha from the others, so a case that
  goes from 5/5 to 0/5 can be flagged among 20 at k = 5, which Holm cannot do.
  "Improved" mirrors it, with its own family of "greater" tests.
- suite: the mean per-case delta fell by more than `threshold` AND the one-sided paired
  sign-flip permutation test over the shared cases is below the suite level; the
  bootstrap CI of the mean delta is reported, it does not decide.
- errors: a case whose trials newly error or time out (counts given) is a regression of
  its own, independent of pass rates (`fail_on_new_errors`, on by default).
The per-case family and the suite test share alpha (Bonferroni): with `split_alpha` the
cases get `case_share` of it and the suite test the rest, so pure noise fails the
comparison with probability below alpha. Adjusted p-values are on alpha's scale (divided
by the share), so every verdict reads "adjusted p < alpha".
Cases in only one run are listed as added/removed and left out of every test.
"""

from __future__ import annotations

from agenteval.stats.compare._model import (
    CaseComparison,
    Comparison,
    Correction,
    ErrorChange,
    GraderDelta,
    Reason,
    SuiteComparison,
    Verdict,
)
from agenteval.stats.compare._reasons import error_changes, errors_reason, gate
from agenteval.stats.compare._run import (
    DEFAULT_CASE_SHARE,
    compare_grader_scores,
    compare_runs,
    trials_to_flag,
)

__all__ = [
    "DEFAULT_CASE_SHARE",
    "CaseComparison",
    "Comparison",
    "Correction",
    "ErrorChange",
    "GraderDelta",
    "Reason",
    "SuiteComparison",
    "Verdict",
    "compare_grader_scores",
    "compare_runs",
    "error_changes",
    "errors_reason",
    "gate",
    "trials_to_flag",
]
