"""Prompt templates (one file per prompt, XML-tagged sections); loaded by clausewise.core.prompting."""
