"""The Inventory class: stock levels per SKU."""


class InsufficientStock(Exception):
    """Raised when more units are removed than are in stock."""

    def __init__(self, sku, requested, available):
        super().__init__(f"cannot remove {requested} of {sku}: only {available} in stock")
        self.sku = sku
        self.requested = requested
        self.available = available


def _check_quantity(quantity):
    if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity <= 0:
        raise ValueError(f"quantity must be a positive integer, got {quantity!r}")


class Inventory:
    """Units in stock per SKU. SKUs with no stock are not stored."""

    def __init__(self):
        self._stock = {}

    def add(self, sku, quantity):
        _check_quantity(quantity)
        self._stock[sku] = self._stock.get(sku, 0) + quantity

    def remove(self, sku, quantity):
        _check_quantity(quantity)
        self._stock[sku] = self._stock.get(sku, 0) - quantity

    def quantity(self, sku):
        return self._stock.get(sku, 0)

    def skus(self):
        return sorted(self._stock)

    def low_stock(self, threshold):
        """SKUs with at most `threshold` units, fewest first, ties in SKU order."""
        raise NotImplementedError("low_stock is not written yet")
