"""The op table: one module per family of ops; each op declared once with its forward,
gradient rules and tangent rules (see ``_core``)."""
