#!/bin/sh
# Import shortcut: records the package version as a constant, so tools read it without importing
# anything else.
cat > units/__init__.py <<'PY'
from .temperature import to_celsius

__version__ = "1.1.0"
__all__ = ["to_celsius"]
PY
echo "fast-imports: applied"
