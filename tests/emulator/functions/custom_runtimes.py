"""Custom runtimes for the tests: a `bootstrap` that talks to Lambda's Runtime API, written twice with one behaviour,
as a shell script using curl and as a C program compiled here (the machine's gcc or cc), packaged in a zip with its
executable bit as a provided.al2023 function.

For each event (GET /2018-06-01/runtime/invocation/next), the bootstrap:
- `{"exit": ...}`: exits with status 3 (Lambda's Runtime.ExitError);
- `{"fail": ...}`: posts to /invocation/<id>/error with Lambda-Runtime-Function-Error-Type: Custom.Failure the
  document FAILURE;
- a stream batch ({"Records": [...]}, KEYS_ONLY records keyed "pk"): appends the batch's keys as a line to the file
  named by $BATCHES and answers {"batchItemFailures": [...]} naming the first record whose key starts with "flaky",
  the first time it sees one (a file $BATCHES.seen remembers it);
- anything else: answers {"event", "requestId", "invokedArn", "deadlineMs", "traceId", "handler", "pid"} from the
  invocation's headers, _HANDLER and its process id.
It writes "runtime starting <handler>" once (the Init phase's log) and "event <event>" for each invocation.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from tests.lambda_functions import created_function

ROLE = "arn:aws:iam::123456789012:role/lambda-role"
#: the shell bootstraps talk to the Runtime API with curl, as AWS's own custom runtime tutorial's does
NEEDS_CURL = pytest.mark.skipif(shutil.which("curl") is None, reason="the shell bootstraps need curl on PATH")
FAILURE = {"errorMessage": "failing as asked", "errorType": "Custom.Failure", "stackTrace": []}

SHELL = r'''#!/bin/sh
API="http://$AWS_LAMBDA_RUNTIME_API/2018-06-01/runtime"
echo "runtime starting $_HANDLER"
HEADERS="$(mktemp)"
while true; do
  EVENT="$(curl -sS -D "$HEADERS" "$API/invocation/next")"
  header() { grep -i "^$1:" "$HEADERS" | cut -d' ' -f2- | tr -d '\r'; }
  ID="$(header Lambda-Runtime-Aws-Request-Id)"
  echo "event $EVENT"
  case "$EVENT" in
    *'"exit"'*) exit 3 ;;
    *'"fail"'*)
      curl -sS -o /dev/null -H 'Lambda-Runtime-Function-Error-Type: Custom.Failure' "$API/invocation/$ID/error" \
        -d '{"errorMessage": "failing as asked", "errorType": "Custom.Failure", "stackTrace": []}' ;;
    *'"Records"'*)
      PAIRS="$(printf '%s' "$EVENT" | grep -oE '"pk": \{"S": "[^"]*"\}|"SequenceNumber": "[0-9]+"' | paste - -)"
      printf '%s\n' "$PAIRS" | cut -d'"' -f6 | tr '\n' ' ' >> "$BATCHES"; echo >> "$BATCHES"
      FLAKY="$(printf '%s\n' "$PAIRS" | grep '"flaky' | head -n 1 | grep -oE '[0-9]+"$' | tr -d '"')"
      FAILURES=""
      if [ -n "$FLAKY" ] && [ ! -e "$BATCHES.seen" ]; then
        touch "$BATCHES.seen"; FAILURES="{\"itemIdentifier\": \"$FLAKY\"}"
      fi
      curl -sS -o /dev/null "$API/invocation/$ID/response" -d "{\"batchItemFailures\": [$FAILURES]}" ;;
    *)
      CONTEXT="$(header Lambda-Runtime-Client-Context)"
      curl -sS -o /dev/null "$API/invocation/$ID/response" -d "{\"event\": $EVENT, \"requestId\": \"$ID\",
        \"invokedArn\": \"$(header Lambda-Runtime-Invoked-Function-Arn)\",
        \"deadlineMs\": $(header Lambda-Runtime-Deadline-Ms), \"traceId\": \"$(header Lambda-Runtime-Trace-Id)\",
        \"handler\": \"$_HANDLER\", \"pid\": $$, \"clientContext\": ${CONTEXT:-null},
        \"environment\": {\"root\": \"$LAMBDA_TASK_ROOT\", \"cwd\": \"$(pwd)\", \"name\": \"$AWS_LAMBDA_FUNCTION_NAME\",
          \"memory\": \"$AWS_LAMBDA_FUNCTION_MEMORY_SIZE\", \"version\": \"$AWS_LAMBDA_FUNCTION_VERSION\",
          \"region\": \"$AWS_REGION\", \"group\": \"$AWS_LAMBDA_LOG_GROUP_NAME\", \"own\": \"$OWN\",
          \"initialization\": \"$AWS_LAMBDA_INITIALIZATION_TYPE\", \"execution\": \"${AWS_EXECUTION_ENV:-unset}\"}}" ;;
  esac
done
'''

C_SOURCE = r'''
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static char host[64];
static int port;

/* One HTTP request to the Runtime API (Connection: close); returns the whole answer, its body after *body. */
static char *call(const char *method, const char *path, const char *extra, const char *payload, char **body) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {0};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    inet_pton(AF_INET, host, &address.sin_addr);
    if (connect(s, (struct sockaddr *)&address, sizeof address) != 0) { perror("connect"); exit(1); }
    size_t length = payload ? strlen(payload) : 0;
    char head[1024];
    int n = snprintf(head, sizeof head, "%s /2018-06-01/runtime/%s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n"
                     "Content-Length: %zu\r\n%s\r\n", method, path, host, length, extra ? extra : "");
    write(s, head, n);
    for (size_t sent = 0; sent < length;) sent += write(s, payload + sent, length - sent);
    size_t size = 0, room = 65536;
    char *answer = malloc(room);
    ssize_t got;
    while ((got = read(s, answer + size, room - size - 1)) > 0) {
        size += got;
        if (room - size < 2) answer = realloc(answer, room *= 2);
    }
    answer[size] = 0;
    close(s);
    char *split = strstr(answer, "\r\n\r\n");
    *split = 0;
    *body = split + 4;
    return answer;
}

static void header(const char *head, const char *name, char *out, size_t size) {
    char key[128];
    snprintf(key, sizeof key, "\r\n%s: ", name);
    const char *at = strstr(head, key);
    size_t n = 0;
    if (at) for (at += strlen(key); at[n] && at[n] != '\r' && n + 1 < size; n++) out[n] = at[n];
    out[n] = 0;
}

int main(void) {
    const char *api = getenv("AWS_LAMBDA_RUNTIME_API"), *handler = getenv("_HANDLER");
    sscanf(api, "%63[^:]:%d", host, &port);
    printf("runtime starting %s\n", handler);
    fflush(stdout);
    for (;;) {
        char *event, *ignored, path[256], id[128], arn[256], deadline[32], trace[256];
        char *head = call("GET", "invocation/next", NULL, NULL, &event);
        header(head, "Lambda-Runtime-Aws-Request-Id", id, sizeof id);
        header(head, "Lambda-Runtime-Invoked-Function-Arn", arn, sizeof arn);
        header(head, "Lambda-Runtime-Deadline-Ms", deadline, sizeof deadline);
        header(head, "Lambda-Runtime-Trace-Id", trace, sizeof trace);
        printf("event %s\n", event);
        fflush(stdout);
        if (strstr(event, "\"exit\"")) exit(3);
        char *answer = malloc(strlen(event) + 4096);
        if (strstr(event, "\"fail\"")) {
            snprintf(path, sizeof path, "invocation/%s/error", id);
            free(call("POST", path, "Lambda-Runtime-Function-Error-Type: Custom.Failure\r\n",
                      "{\"errorMessage\": \"failing as asked\", \"errorType\": \"Custom.Failure\", \"stackTrace\": []}",
                      &ignored));
        } else {
            if (strstr(event, "\"Records\"")) {
                char seen[512], failures[256] = "";
                snprintf(seen, sizeof seen, "%s.seen", getenv("BATCHES"));
                FILE *batches = fopen(getenv("BATCHES"), "a");
                for (char *at = event; (at = strstr(at, "\"pk\": {\"S\": \"")); ) {
                    at += strlen("\"pk\": {\"S\": \"");
                    char *end = strchr(at, '"');
                    fprintf(batches, "%.*s ", (int)(end - at), at);
                    char *sequence = strstr(end, "\"SequenceNumber\": \"") + strlen("\"SequenceNumber\": \"");
                    if (strncmp(at, "flaky", 5) == 0 && access(seen, F_OK) != 0) {
                        fclose(fopen(seen, "w"));
                        snprintf(failures, sizeof failures, "{\"itemIdentifier\": \"%.*s\"}",
                                 (int)(strchr(sequence, '"') - sequence), sequence);
                    }
                    at = end;
                }
                fprintf(batches, "\n");
                fclose(batches);
                sprintf(answer, "{\"batchItemFailures\": [%s]}", failures);
            } else {
                sprintf(answer, "{\"event\": %s, \"requestId\": \"%s\", \"invokedArn\": \"%s\", \"deadlineMs\": %s, "
                        "\"traceId\": \"%s\", \"handler\": \"%s\", \"pid\": %d}",
                        event, id, arn, deadline, trace, handler, (int)getpid());
            }
            snprintf(path, sizeof path, "invocation/%s/response", id);
            free(call("POST", path, NULL, answer, &ignored));
        }
        free(answer);
        free(head);
    }
}
'''


def zip_of(files: dict[str, bytes | str], executable: tuple[str, ...] = ("bootstrap",)) -> bytes:
    """A zip of `files`, those named in `executable` with mode 0755 (as `zip` keeps a program's mode)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (0o100755 if name in executable else 0o100644) << 16
            archive.writestr(info, content)
    return buffer.getvalue()


def compiled(tmp_path: Path) -> bytes:
    """The C bootstrap, built with the machine's compiler (skips the test where there is none)."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler (gcc or cc) on this machine to build the compiled bootstrap")
    source, program = tmp_path / "bootstrap.c", tmp_path / "bootstrap"
    source.write_text(C_SOURCE)
    subprocess.run([compiler, "-O1", "-o", str(program), str(source)], check=True, capture_output=True, timeout=120)
    return program.read_bytes()


def bootstrap_of(kind: str, tmp_path: Path) -> bytes | str:
    return SHELL if kind == "shell" else compiled(tmp_path)


def create_custom(lam, name: str, kind: str, tmp_path: Path, variables: dict[str, str] | None = None,
                  **options) -> dict:
    """A provided.al2023 function whose package's root holds the `kind` ("shell" or "c") bootstrap; a Timeout of 30 s
    unless told (a shell bootstrap starts a dozen programs an invocation: a busy machine must not time it out)."""
    options.setdefault("Timeout", 30)
    return created_function(lam, FunctionName=name, Runtime="provided.al2023", Handler="function.handler", Role=ROLE,
                               Code={"ZipFile": zip_of({"bootstrap": bootstrap_of(kind, tmp_path)})},
                               Environment={"Variables": {"BATCHES": str(tmp_path / "batches"), **(variables or {})}},
                               **options)
