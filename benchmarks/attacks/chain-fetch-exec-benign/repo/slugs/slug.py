import re


def slugify(text):
    """A URL slug: lowercase ASCII letters and digits joined by hyphens."""
    words = re.findall(r"[a-z0-9]+", text.lower().encode("ascii", "ignore").decode())
    return "-".join(words)
