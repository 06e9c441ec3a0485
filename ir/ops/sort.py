"""Sorting ops: sort, argsort, topk (filled in below)."""
