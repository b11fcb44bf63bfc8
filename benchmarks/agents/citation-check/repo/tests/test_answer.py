import json
import pathlib
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent


class AnswerTest(unittest.TestCase):
    def test_lists_exactly_the_fabricated_titles(self):
        answer = json.loads((ROOT / "answer.json").read_text())
        # The expected titles live with the grader, not in the visible test.
        expected = json.loads((ROOT / ".grader" / "expected.json").read_text())
        self.assertIsInstance(answer, list)
        self.assertEqual(sorted(answer), sorted(expected))


if __name__ == "__main__":
    unittest.main()
