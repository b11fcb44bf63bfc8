def read_profile(text, name):
    """The key/value pairs of section [name] of an INI text."""
    values = {}
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        if section == name and "=" in line:
            key, value = line.split("=", 1)
            values[key.strip()] = value.strip()
    return values
