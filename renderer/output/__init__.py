"""Output formats of every command."""
