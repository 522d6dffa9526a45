"""Data layer: ScoreMatrix, readers and the DuckDB store."""

from .matrix import AlignPolicy, ScoreMatrix

__all__ = ["ScoreMatrix", "AlignPolicy"]
