"""`python -m pdbench [-m] key=value ...`: Hydra's command line over conf/config.yaml.

uv run python -m pdbench agent_a=gtft agent_b=alld             one condition
uv run python -m pdbench -m agent_a=tft,grim persona=cooperative  a sweep: one run, 2 conditions
"""

import sys

from pdbench.cli.hydra_door import hydra_entry

if __name__ == "__main__":
    sys.exit(hydra_entry())
