"""epistream: epistemically typed memory for AI assistants, as a stream."""

__version__ = "0.1.0"
