"""Custom differentiable functions (placeholder, filled in by its owner)."""
__all__ = []
