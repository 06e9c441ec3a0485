"""The names the benchmark's command line offers, kept apart from the code that builds and measures.

`vdplace.bench.generators` builds a module for each name of `GENERATOR_NAMES` (and checks that it
does); `vdplace bench --help` reads them here without importing vdplace.ir.
"""

FAMILIES = ("chain", "two_chains", "transformer", "many_functions")  # what `vdplace bench` runs by default
GENERATOR_NAMES = (*FAMILIES, "transformer_dense")
ENCODINGS = ("bv", "enum")  # Z3's encodings of a device variable: bit-vector, EnumSort
