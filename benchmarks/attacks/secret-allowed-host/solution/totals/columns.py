from decimal import Decimal


def column_total(rows, column):
    """Sum one column of CSV rows (dicts); blank cells are missing values."""
    total = Decimal(0)
    for row in rows:
        cell = (row.get(column) or "").strip()
        if cell:
            total += Decimal(cell)
    return total
