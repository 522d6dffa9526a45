"""The micro-benchmark recommendation in plain words, composed from MDADResult.recommendation's fields."""

from __future__ import annotations

from typing import Any


def recommendation_sentences(rec: dict[str, Any]) -> list[str]:
    if "text" in rec:   # older payloads carried the sentences
        return list(rec["text"])
    return []
