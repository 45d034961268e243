"""What stored rounds mean: metric definitions, aggregation, and the analyses built on them.

Reads only stored artifacts (through `pdbench.storage`) and never calls a provider.
"""
