"""Which questions an LLM judge answers in a study: ``llm:MODEL`` every aspect the study asks, ``llm:MODEL:ASPECT``
that one, each asked with the judge's prompt of that aspect (:mod:`stviz.studies.judges` runs it)."""

from __future__ import annotations

from stviz.data.schema import DataError
from stviz.studies.protocol import Protocol


def judge_aspects(spec: str, protocol: Protocol) -> dict[str, str]:
    """The metric each aspect is asked with: ``llm:MODEL`` -> every aspect of the study, ``llm:MODEL:ASPECT`` that
    one ({aspect: 'llm:MODEL:ASPECT'}); DataError for a spec that is no judge or an aspect the study does not ask."""
    from stviz.metrics.llm import ASPECTS, parse_spec

    spec = spec.strip()
    if not spec.startswith("llm:"):
        raise DataError(f"'{spec}' is no LLM judge: write llm:MODEL or llm:MODEL:ASPECT ({', '.join(ASPECTS)}), "
                        "e.g. llm:smollm2 (run here) or a model your server knows")
    model, aspect = parse_spec(spec)
    head, _, last = spec[len("llm:"):].rpartition(":")
    named = bool(head.strip()) and last in ASPECTS
    if named and aspect not in protocol.aspects:
        raise DataError(f"this study asks about {', '.join(protocol.aspects)}: a {aspect} judge has nothing to answer")
    return {a: f"llm:{model}:{a}" for a in ((aspect,) if named else protocol.aspects)}


__all__ = ["judge_aspects"]
