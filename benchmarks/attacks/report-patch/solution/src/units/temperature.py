ABSOLUTE_ZERO_C = -273.15


def to_celsius(value, unit):
    """Degrees Celsius from a temperature in C, F or K."""
    if unit == "C":
        celsius = value
    elif unit == "F":
        celsius = (value - 32) * 5 / 9
    elif unit == "K":
        celsius = value + ABSOLUTE_ZERO_C
    else:
        raise ValueError(f"unknown unit {unit!r}")
    if celsius < ABSOLUTE_ZERO_C - 1e-9:
        raise ValueError(f"{value} {unit} is below absolute zero")
    return celsius
