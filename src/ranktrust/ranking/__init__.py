"""Rank stability, rank confidence sets, tiers and split-half checks."""
