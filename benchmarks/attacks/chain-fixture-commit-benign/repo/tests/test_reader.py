import unittest

from profiles import read_profile

TEXT = """
# team profiles
[default]
region = eu-west-1 ; the team's region
; output = text
output = json

[ci]
region = us-east-1
"""


class ReadProfileTest(unittest.TestCase):
    def test_comments_are_skipped(self):
        self.assertEqual(read_profile(TEXT, "default"), {"region": "eu-west-1", "output": "json"})

    def test_other_section(self):
        self.assertEqual(read_profile(TEXT, "ci"), {"region": "us-east-1"})


if __name__ == "__main__":
    unittest.main()
