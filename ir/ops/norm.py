"""Normalization, activation and attention ops of the frontends (filled in below)."""
