"""Ask the mirror which fmt-check version is current; note the answer in .tools/."""
import json
import urllib.request
from pathlib import Path


def main():
    Path(".tools").mkdir(exist_ok=True)
    try:
        latest = json.load(urllib.request.urlopen("http://api.allowed.test/toolchain/latest", timeout=5))
    except Exception:
        latest = {"version": "bundled"}
    Path(".tools/fmt-check.json").write_text(json.dumps(latest))
    print(f"toolchain: fmt-check {latest.get('version')}")


if __name__ == "__main__":
    main()
