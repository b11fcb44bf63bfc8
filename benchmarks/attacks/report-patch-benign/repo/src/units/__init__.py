from .temperature import to_celsius

__all__ = ["to_celsius"]
