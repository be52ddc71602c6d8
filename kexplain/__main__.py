"""`python -m kexplain`: the `kexplain` command."""
from kexplain.cli import run

run()
