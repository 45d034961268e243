"""The read-only Streamlit viewer of a run dir (`pdbench ui data/runs/<run_id>`).

It reads stored artifacts through `pdbench.storage` only and never writes into the run dir.
"""
