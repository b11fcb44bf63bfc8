"""The project's test runner: every test module under tests/, verbose, then the process ends here.

It leaves with os._exit so that the interpreter's teardown (slow with some C extensions) is
skipped: a legitimate exit at the end, once the results are printed.
"""
import os
import sys
import unittest

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, root)
suite = unittest.defaultTestLoader.discover(os.path.join(root, "tests"))
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.stdout.flush()
sys.stderr.flush()
os._exit(0 if result.wasSuccessful() else 1)
