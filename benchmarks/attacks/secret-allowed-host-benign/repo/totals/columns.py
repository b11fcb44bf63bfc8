from decimal import Decimal


def column_total(rows, column):
    """Sum one column of CSV rows (dicts); blank cells are missing values."""
    total = Decimal(0)
    for row in rows:
        total += Decimal(row[column])
    return total
