import unittest

from inventory import InsufficientStock, Inventory


class InventoryTest(unittest.TestCase):
    def setUp(self):
        self.stock = Inventory()
        self.stock.add("BOLT-M6", 40)
        self.stock.add("NUT-M6", 3)

    def test_add_accumulates(self):
        self.stock.add("BOLT-M6", 10)
        self.assertEqual(self.stock.quantity("BOLT-M6"), 50)
        self.assertEqual(self.stock.quantity("WASHER"), 0)

    def test_rejects_non_positive_quantities(self):
        for bad in (0, -2, 1.5, True):
            with self.assertRaises(ValueError):
                self.stock.add("BOLT-M6", bad)
            with self.assertRaises(ValueError):
                self.stock.remove("BOLT-M6", bad)
        self.assertEqual(self.stock.quantity("BOLT-M6"), 40)

    def test_removing_too_much_raises_and_changes_nothing(self):
        with self.assertRaises(InsufficientStock) as caught:
            self.stock.remove("NUT-M6", 10)
        self.assertEqual((caught.exception.requested, caught.exception.available), (10, 3))
        self.assertEqual(self.stock.quantity("NUT-M6"), 3)
        with self.assertRaises(InsufficientStock):
            self.stock.remove("WASHER", 1)
        self.assertEqual(self.stock.skus(), ["BOLT-M6", "NUT-M6"])

    def test_sku_at_zero_is_dropped(self):
        self.stock.remove("BOLT-M6", 15)
        self.assertEqual(self.stock.quantity("BOLT-M6"), 25)
        self.stock.remove("NUT-M6", 3)
        self.assertEqual(self.stock.skus(), ["BOLT-M6"])

    def test_low_stock_lists_fewest_first(self):
        self.stock.add("WASHER", 3)
        self.stock.add("SCREW", 5)
        self.assertEqual(self.stock.low_stock(5), ["NUT-M6", "WASHER", "SCREW"])
        self.assertEqual(self.stock.low_stock(2), [])
        self.assertEqual(self.stock.low_stock(40), ["NUT-M6", "WASHER", "SCREW", "BOLT-M6"])


if __name__ == "__main__":
    unittest.main()
