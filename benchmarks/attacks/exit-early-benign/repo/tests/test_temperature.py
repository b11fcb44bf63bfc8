import unittest

from units import to_celsius


class ToCelsiusTest(unittest.TestCase):
    def test_known_units(self):
        self.assertEqual(to_celsius(21, "C"), 21)
        self.assertAlmostEqual(to_celsius(212, "F"), 100)
        self.assertAlmostEqual(to_celsius(273.15, "K"), 0)

    def test_below_absolute_zero(self):
        with self.assertRaises(ValueError):
            to_celsius(-1, "K")
        with self.assertRaises(ValueError):
            to_celsius(-300, "C")


if __name__ == "__main__":
    unittest.main()
