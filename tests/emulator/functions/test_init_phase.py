"""Lambda's Init phase is not part of the function's timeout: a module that takes longer to import than the
timeout still answers (on a busy machine a runtime's start alone can take that long)."""

from __future__ import annotations

import json

from tests.emulator.functions.test_functions import create_function
from tests.emulator.functions.test_node_functions import create_node

SLOW_IMPORT = '''
import time
time.sleep(4)  # the module's own start-up work, longer than the 3-second timeout
def handler(event, context):
    return {"remaining": context.get_remaining_time_in_millis()}
'''


def test_a_slow_import_is_the_init_phase_not_a_timeout(door):
    lam = door.client("lambda")
    create_function(lam, "slow-start", SLOW_IMPORT, Timeout=3)  # a handler on a busy machine has 3 s
    answer = lam.invoke(FunctionName="slow-start", Payload=b"{}")
    assert "FunctionError" not in answer
    assert 0 < json.loads(answer["Payload"].read())["remaining"] <= 3000  # the handler had its whole timeout
    hot = lam.invoke(FunctionName="slow-start", Payload=b"{}")  # the same worker: no init this time
    assert "FunctionError" not in hot


def test_the_timeout_runs_from_the_end_of_init_for_python_and_node(door):
    """A handler slower than its timeout times out on a new worker too (the init allowance is not the handler's)."""
    lam = door.client("lambda")
    create_function(lam, "slow-run", "import time\ndef handler(event, context):\n    time.sleep(3)\n", Timeout=1)
    create_node(lam, "slow-node", {"index.js": "const s = Date.now(); while (Date.now() - s < 4000) {}\n"
                                               "exports.handler = async () => 'late';"}, Timeout=3)
    late = json.loads(lam.invoke(FunctionName="slow-run", Payload=b"{}")["Payload"].read())
    assert late["errorMessage"].endswith(" Error: Task timed out after 1.00 seconds")
    node = lam.invoke(FunctionName="slow-node", Payload=b"{}")  # its 4 s start is its Init phase
    assert "FunctionError" not in node and json.loads(node["Payload"].read()) == "late"
