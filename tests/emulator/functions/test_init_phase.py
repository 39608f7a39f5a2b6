"""Lambda's Init phase is not part of the function's timeout: a module that takes longer to import than the
timeout still answers (on a busy machine a runtime's start alone can take that long)."""

from __future__ import annotations

import json

from tests.emulator.functions.test_functions import create_function

SLOW_IMPORT = '''
import time
time.sleep(2.5)  # the module's own start-up work, longer than the 1-second timeout
def handler(event, context):
    return {"remaining": context.get_remaining_time_in_millis()}
'''


def test_a_slow_import_is_the_init_phase_not_a_timeout(door):
    lam = door.client("lambda")
    create_function(lam, "slow-start", SLOW_IMPORT, Timeout=1)
    answer = lam.invoke(FunctionName="slow-start", Payload=b"{}")
    assert "FunctionError" not in answer
    assert 0 < json.loads(answer["Payload"].read())["remaining"] <= 1000  # the handler had its whole second
    hot = lam.invoke(FunctionName="slow-start", Payload=b"{}")  # the same worker: no init this time
    assert "FunctionError" not in hot
