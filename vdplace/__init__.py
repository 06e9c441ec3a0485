"""vdplace: the command-line front end over the `ir`, `placement` and `runtime` packages."""

__version__ = "0.1.0"
