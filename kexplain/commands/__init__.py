"""One module per command; each defines the typer function `cli.py` registers."""
