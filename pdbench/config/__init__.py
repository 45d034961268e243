"""From config files to a validated `ExperimentSpec`, with errors that name the file and field.

The data flow inside: `files` (YAML, refs, overrides) -> a front door (`experiment_file` or
`hydra_compose`) -> `validation` (pydantic `schema` models, one-line errors) -> `load.load`.
"""
