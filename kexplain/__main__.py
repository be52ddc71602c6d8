"""`python -m kexplain`: the `kexplain` command."""
import sys

from kexplain.cli import main

sys.exit(main())
