"""Stock levels per SKU for a small warehouse."""

from .stock import InsufficientStock, Inventory

__all__ = ["InsufficientStock", "Inventory"]
