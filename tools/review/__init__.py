"""Provision review: provision lists (query packs) and the presence decision."""
