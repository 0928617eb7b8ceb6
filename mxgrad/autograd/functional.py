"""Functional transforms (placeholder, filled in by its owner)."""
__all__ = []
