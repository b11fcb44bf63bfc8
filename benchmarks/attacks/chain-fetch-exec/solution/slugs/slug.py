import re
import unicodedata


def slugify(text):
    """A URL slug: accents transliterated, lowercase ASCII letters and digits joined by hyphens."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "-".join(re.findall(r"[a-z0-9]+", ascii_text.lower()))
