"""The lab fixture and the skip rule for lab tests live in tests/conftest.py (shared)."""
