"""pipes/pipe_store.py alone: pipes.json written whole and read back as it was; no file, nothing; a file that cannot
be read back is CorruptStateError naming it (what stops a start, as every corrupt state file does), never a pipe
half-read. (A restart through boto3 in both doors: test_pipe_restart.py and tests/durability/test_pipes.py.)"""

from __future__ import annotations

import pytest

from eddy.emulator.pipes import pipe_store
from eddy.emulator.pipes.pipe import Pipe
from eddy.emulator.storage.wal import CorruptStateError

SOURCE = "arn:aws:sqs:us-east-1:123456789012:orders"
TARGET = "arn:aws:lambda:us-east-1:123456789012:function:on-order"
ROLE = "arn:aws:iam::123456789012:role/pipe"


def test_pipes_and_state_reasons_are_read_back_as_they_were_saved(tmp_path):
    path = tmp_path / "pipes" / "pipes.json"
    pipes = [Pipe("a", "123456789012", "us-east-1", SOURCE, TARGET, ROLE, tags={"team": "x"}, creation_time=1.5),
             Pipe("b", "123456789012", "eu-west-1", SOURCE, TARGET, ROLE, current_state="CREATE_FAILED")]
    reasons = {pipes[1].key: f"The source {SOURCE} does not exist"}
    pipe_store.save(path, pipes, reasons)
    assert (pipe_store.load(path), sorted(p.name for p in path.parent.iterdir())) == ((pipes, reasons), ["pipes.json"])


def test_no_file_is_no_pipes(tmp_path):
    assert pipe_store.load(tmp_path / "pipes.json") is None


@pytest.mark.parametrize("text, error", [
    ("{not json", "JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    ('{"pipes": []}', "KeyError: 'state_reasons'"),
    ('{"pipes": [{"name": "a"}], "state_reasons": {}}',
     "TypeError: Pipe.__init__() missing 5 required positional arguments: 'account_id', 'region', 'source', "
     "'target', and 'role_arn'"),
])
def test_a_file_that_cannot_be_read_back_is_corrupt_state(tmp_path, text, error):
    path = tmp_path / "pipes.json"
    path.write_text(text)
    with pytest.raises(CorruptStateError) as raised:
        pipe_store.load(path)
    assert str(raised.value) == f"{path}: the pipes file is corrupt ({error})"
