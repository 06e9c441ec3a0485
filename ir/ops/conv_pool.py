"""Convolution, pooling and resize ops (filled in below)."""
