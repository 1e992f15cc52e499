"""What is kept on disk: atomic outputs and the persistent cache."""
