"""The analytics' statistics: plain inputs, dataclass outputs, no Django (one module each)."""
