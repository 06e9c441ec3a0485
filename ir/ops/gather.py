"""Gather, scatter, one-hot, einsum and dynamic slicing ops (filled in below)."""
