"""What a user can read about a mapping's work: its figures (GET /_eddy/mappings, emu.mapping_figures(), the
dashboard), kept by its pollers and senders. A pipe's pollers keep the same figures (pipes/pipe_registry.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass
class Figures:
    """What a user reads of work done for them: invocations, errors, retries and the last error, with the figures of
    its own kind (a mapping's below; a function's asynchronous invocations', functions/async_invocation/events.AsyncFigures).
    NAMES: each figure's name in the answer, in the answer's order."""

    NAMES: ClassVar[dict[str, str]] = {}
    invocations: int = 0
    errors: int = 0
    retries: int = 0
    last_error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {answer: getattr(self, name) for name, answer in self.NAMES.items()}


@dataclass
class MappingFigures(Figures):
    NAMES: ClassVar[dict[str, str]] = {
        "invocations": "Invocations",
        "errors": "Errors",
        "retries": "Retries",
        "records_delivered": "RecordsDelivered",
        "records_filtered": "RecordsFiltered",
        "records_to_destination": "RecordsSentToOnFailureDestination",
        "iterator_age_ms": "IteratorAgeMilliseconds",
        "last_error": "LastError",
    }
    records_delivered: int = 0
    records_filtered: int = 0
    records_to_destination: int = 0
    iterator_age_ms: float = 0.0

    def note_error(self, message: str) -> None:
        self.last_error = message
