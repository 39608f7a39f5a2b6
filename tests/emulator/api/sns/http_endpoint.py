"""A subscriber's HTTP endpoint on loopback, for the tests of SNS's HTTP subscriptions (tests/emulator/api/sns/ and
tests/durability/): it records every POST SNS sends it and answers 200 (or, first, the statuses it is given)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Endpoint:
    """A subscriber's HTTP endpoint on loopback: every POST it receives (headers, body), answered with the next of
    `statuses` while there are any, then 200; with `hold`, each answer waits until that event is set. close() it (or
    use it in a `with`)."""

    def __init__(self, statuses: tuple[int, ...] = (), hold: threading.Event | None = None) -> None:
        self.received: list[tuple[dict[str, str], bytes]] = []
        self.statuses = list(statuses)
        self.arrived = threading.Condition()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with endpoint.arrived:  # recorded before it is answered: SNS's wait_idle ends after the answer
                    status = endpoint.statuses.pop(0) if endpoint.statuses else 200
                    endpoint.received.append(({k.lower(): v for k, v in self.headers.items()}, body))
                    endpoint.arrived.notify_all()
                if hold is not None:
                    assert hold.wait(timeout=120)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/sns-endpoint"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, count: int) -> list[tuple[dict[str, str], bytes]]:
        """The first `count` POSTs, once they have arrived (SNS POSTs after its request has answered)."""
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.received) >= count, timeout=120)
            return list(self.received[:count])

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> Endpoint:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
