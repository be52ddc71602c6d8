"""kexplain lint: the report model, the linter, schemas."""
