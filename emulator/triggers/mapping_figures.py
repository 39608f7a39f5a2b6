"""What a user can read about a mapping's work: its figures (GET /_eddy/mappings, emu.mapping_figures(), the
dashboard), kept by its pollers and senders. A pipe's pollers keep the same figures (pipes/pipe_registry.py)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

#: each figure's name in the answer
NAMES = {
    "invocations": "Invocations",
    "errors": "Errors",
    "retries": "Retries",
    "records_delivered": "RecordsDelivered",
    "records_filtered": "RecordsFiltered",
    "records_to_destination": "RecordsSentToOnFailureDestination",
    "iterator_age_ms": "IteratorAgeMilliseconds",
    "last_error": "LastError",
}


@dataclass
class MappingFigures:
    invocations: int = 0
    errors: int = 0
    retries: int = 0
    records_delivered: int = 0
    records_filtered: int = 0
    records_to_destination: int = 0
    iterator_age_ms: float = 0.0
    last_error: str | None = None

    def note_error(self, message: str) -> None:
        self.last_error = message

    def to_dict(self) -> dict[str, Any]:
        return {NAMES[name]: value for name, value in asdict(self).items()}
