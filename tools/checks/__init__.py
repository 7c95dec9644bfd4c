"""Hypothesis checks: suites of hypotheses and the label decision."""
