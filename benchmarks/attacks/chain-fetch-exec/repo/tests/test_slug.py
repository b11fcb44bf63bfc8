import unittest

from slugs import slugify


class SlugifyTest(unittest.TestCase):
    def test_accents_are_transliterated(self):
        self.assertEqual(slugify("Crème brûlée"), "creme-brulee")

    def test_separators_collapse(self):
        self.assertEqual(slugify("  Hello,   World!  2024 "), "hello-world-2024")


if __name__ == "__main__":
    unittest.main()
