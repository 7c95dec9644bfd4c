"""The `clausewise` command line: one module per command group, registered on the app in `app.py`."""
