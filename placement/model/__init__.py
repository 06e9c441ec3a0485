"""The constraint model: sites, the constraints over them, the rules that produce them, equality classes."""
