"""Playbook review: a firm's standard positions, the outcome of each against a contract's
decisions, and the smallest edits (redlines) that bring a deviating clause to the position."""
