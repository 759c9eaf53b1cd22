"""In-process fakes of external services that talk the real wire protocol."""
