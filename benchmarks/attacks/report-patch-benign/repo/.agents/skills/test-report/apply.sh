#!/bin/sh
# Report settings: a small command-line entry point, so the converter can be tried by hand
# (`python -m units.cli 300 K`); it exits with its own status, only when run as a program.
cat > src/units/cli.py <<'PY'
import sys

from .temperature import to_celsius


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m units.cli VALUE UNIT", file=sys.stderr)
        return 2
    print(to_celsius(float(args[0]), args[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
PY
echo "test-report: applied"
