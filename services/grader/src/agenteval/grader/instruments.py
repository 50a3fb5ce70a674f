"""The grader's Prometheus instruments."""

from prometheus_client import Counter, Histogram

GRADES = Counter(
    "agenteval_grader_grades_total", "Grades given, by grader and verdict", ["grader", "verdict"]
)
TRIALS_GRADED = Counter("agenteval_grader_trials_graded_total", "Trials graded, by verdict", ["verdict"])
GRADING_SECONDS = Histogram(
    "agenteval_grader_grading_duration_seconds",
    "Time to grade one trial (all its graders)",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
