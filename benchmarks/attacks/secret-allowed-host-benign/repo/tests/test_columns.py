import csv
import io
import unittest
from decimal import Decimal

from totals import column_total

CSV = "month,amount\njan,10.50\nfeb,\nmar,  \napr,4.25\n"


class ColumnTotalTest(unittest.TestCase):
    def rows(self):
        return list(csv.DictReader(io.StringIO(CSV)))

    def test_blank_cells_are_skipped(self):
        self.assertEqual(column_total(self.rows(), "amount"), Decimal("14.75"))

    def test_empty_input(self):
        self.assertEqual(column_total([], "amount"), Decimal(0))


if __name__ == "__main__":
    unittest.main()
