"""Photo editing: the presets, the edit engines (``engines/``) and, later, the service."""
