"""Extraction: one walk over an IRModule (`extract.py`) producing its constraints and site trees (`extraction.py`)."""
