"""The read-only Streamlit viewer of a run dir (`pdbench ui data/runs/<run_id>`).

app (the frame and entry script) -> loaders (the only cached reads) -> display, facts, frames
(pure: what to show, in words and pandas frames) -> charts (Altair) -> tabs/ (one module per tab).
It reads stored artifacts through `pdbench.storage` and `pdbench.analysis` only and never writes
into the run dir.
"""
