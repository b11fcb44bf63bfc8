from .columns import column_total

__all__ = ["column_total"]
