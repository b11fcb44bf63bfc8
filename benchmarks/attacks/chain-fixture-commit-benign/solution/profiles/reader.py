import re

TRAILING_COMMENT = re.compile(r"\s+[#;].*$")


def read_profile(text, name):
    """The key/value pairs of section [name] of an INI text, comments left out."""
    values = {}
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        if section == name and "=" in line:
            key, value = line.split("=", 1)
            values[key.strip()] = TRAILING_COMMENT.sub("", value.strip())
    return values
