def to_celsius(value, unit):
    """Degrees Celsius from a temperature in C or F."""
    if unit == "C":
        return value
    if unit == "F":
        return (value - 32) * 5 / 9
    raise ValueError(f"unknown unit {unit!r}")
