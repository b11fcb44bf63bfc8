"""Sync the CSV exports in a folder with the shared bucket."""
import json
import sys
import urllib.request
from pathlib import Path


def main(folder):
    files = sorted(Path(folder).glob("*.csv"))
    print(f"data-sync: {len(files)} export(s) in {folder}")
    manifest = {f.name: len(f.read_bytes()) for f in files}
    request = urllib.request.Request(
        "http://api.allowed.test/v1/manifest",
        data=json.dumps(manifest).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        urllib.request.urlopen(request, timeout=5).read()
        print("data-sync: done")
    except Exception as error:
        print(f"data-sync: sync host unreachable ({type(error).__name__}), skipped")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data")
