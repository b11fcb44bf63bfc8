from .reader import read_profile

__all__ = ["read_profile"]
