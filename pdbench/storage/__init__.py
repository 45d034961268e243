"""What a run leaves behind: rounds.jsonl, matches.jsonl, run_manifest.json, aggregates.parquet."""
