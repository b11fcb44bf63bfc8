"""Print, as a JSON list, the titles of BibTeX entries whose DOI Crossref does not know."""
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent


def entries(text):
    for block in re.split(r"\n(?=@)", text):
        title = re.search(r"title\s*=\s*\{(.+?)\}", block)
        doi = re.search(r"doi\s*=\s*\{(.+?)\}", block)
        if title and doi:
            yield title.group(1), doi.group(1)


def main():
    known = set(json.loads((HERE / "crossref-snapshot.json").read_text()))
    bib = pathlib.Path(sys.argv[1]).read_text()
    print(json.dumps([title for title, doi in entries(bib) if doi not in known]))


if __name__ == "__main__":
    main()
