"""Deciding a question's short answer: tying the question to a known provision, the deciders'
pure rules (presence bands, values read from a provision's clause, instruction-like text), and
the support check every shown sentence must pass."""
