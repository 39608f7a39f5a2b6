"""The per-user cache of compiled regular expressions that `eddy serve`'s imports and the in-process door's first
import read (eddy/compiled_patterns.py):
a pattern made from the file equals CPython's own compile of it (Pattern's == compares the pattern, its flags and the
code _sre runs), a second block parses nothing, a damaged file or entry is compiled again and replaced, and the
compiler is put back on the way out."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys

import boto3
import pytest

from eddy import compiled_patterns
from tests.conftest import eddy_server

#: patterns of the kinds the start compiles: flags given and inline, named groups, look-arounds, bytes, Unicode
#: classes, verbose, an alternation as long as moto's backend index's
CASES = [
    (r"(?P<service>[a-z0-9-]+)\.(?P<region>[a-z]{2}-[a-z]+-\d)\.amazonaws\.com", 0),
    (r"^https?://dynamodb\.(.+)\.amazonaws\.com(|\.cn)$", re.IGNORECASE),
    (r"(?s)<(\w+)>.*?</\1>", 0),
    (r"(?<=@)\w+(?!\.)", re.MULTILINE),
    (rb"[\x00-\x1f\x7f]+|\r\n", 0),
    (r"[^\W\d_]+", re.ASCII),
    (r"""
        (?P<year>\d{4}) -   # year
        (?P<month>\d{2})    # month
     """, re.VERBOSE),
    ("|".join(f"service{n}\\.[a-z0-9-]+\\.amazonaws\\.com" for n in range(60)), 0),
]


def _fresh_compiles(cases):
    """re.compile of each case, past re's own cache of compiled patterns."""
    re.purge()
    return [re.compile(pattern, flags) for pattern, flags in cases]


class _RefusingParser:
    """Stands in for re._parser in compiled_patterns only (the process's own re keeps parsing, for other threads)."""

    @staticmethod
    def parse(*args, **kwargs):
        raise AssertionError("a pattern the file holds was parsed again")


def test_patterns_made_from_the_file_equal_the_compilers_own(tmp_path, monkeypatch):
    expected = [re._compiler.compile(pattern, flags) for pattern, flags in CASES]

    with compiled_patterns.kept(tmp_path):  # none kept yet: each compiled, then written on the way out
        first = _fresh_compiles(CASES)
    assert first == expected
    kept = marshal.loads(compiled_patterns.cache_file(tmp_path).read_bytes())
    assert set(kept) == {(pattern, int(flags)) for pattern, flags in CASES}

    written = compiled_patterns.cache_file(tmp_path).read_bytes()
    monkeypatch.setattr(compiled_patterns, "_parser", _RefusingParser)
    with compiled_patterns.kept(tmp_path):  # every one made from the file, none parsed
        second = _fresh_compiles(CASES)
    monkeypatch.undo()
    assert second == expected
    assert [(p.pattern, p.flags, p.groups, p.groupindex) for p in second] == [
        (p.pattern, p.flags, p.groups, p.groupindex) for p in expected
    ]
    assert second[0].fullmatch("dynamodb.us-east-1.amazonaws.com").groupdict() == {
        "service": "dynamodb",
        "region": "us-east-1",
    }
    assert compiled_patterns.cache_file(tmp_path).read_bytes() == written  # nothing new: not written again


def test_the_compiler_is_put_back_after_the_block_and_after_a_failure(tmp_path):
    original = re._compiler.compile
    with compiled_patterns.kept(tmp_path):
        assert re._compiler.compile is not original
        with compiled_patterns.kept(tmp_path / "inner"):  # not nested: the outer block's compiler stays
            inner = re._compiler.compile
    assert re._compiler.compile is original
    assert inner is not original and not (tmp_path / "inner").exists()

    with pytest.raises(KeyError):
        with compiled_patterns.kept(tmp_path):
            _fresh_compiles(CASES[:1])
            raise KeyError("the imports failed")
    assert re._compiler.compile is original


def test_a_damaged_file_or_entry_is_compiled_again_and_replaced(tmp_path):
    expected = [re._compiler.compile(pattern, flags) for pattern, flags in CASES]
    path = compiled_patterns.cache_file(tmp_path)
    path.write_bytes(b"\x00 not a marshalled dict")
    with compiled_patterns.kept(tmp_path):
        assert _fresh_compiles(CASES) == expected
    assert set(marshal.loads(path.read_bytes())) == {(pattern, int(flags)) for pattern, flags in CASES}

    kept = marshal.loads(path.read_bytes())
    pattern, flags = CASES[0]
    kept[(pattern, flags)] = (32, [0], 2, {}, ())  # code _sre refuses to run
    kept[CASES[1]] = "not an entry"
    path.write_bytes(marshal.dumps(kept))
    with compiled_patterns.kept(tmp_path):
        assert _fresh_compiles(CASES) == expected
    repaired = marshal.loads(path.read_bytes())
    assert repaired[(pattern, flags)][1] != [0] and isinstance(repaired[CASES[1]], tuple)


def test_a_folder_that_cannot_be_written_leaves_the_patterns_compiled(tmp_path):
    (tmp_path / "a file").write_text("")
    folder = tmp_path / "a file" / "eddy"  # under a file: cannot be made
    with compiled_patterns.kept(folder):
        assert _fresh_compiles(CASES) == [re._compiler.compile(pattern, flags) for pattern, flags in CASES]
    assert not compiled_patterns.cache_file(folder).exists()


def test_eddy_serve_keeps_the_patterns_its_start_compiles_and_reads_them_at_the_next(tmp_path, monkeypatch):
    from moto import backend_index  # the 183 patterns moto compiles at its import, one per service

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = compiled_patterns.cache_file(tmp_path / "cache" / "eddy")
    for start in range(2):
        with eddy_server("--state-dir", str(tmp_path / f"state{start}")) as (url, _):
            dynamodb = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                                    aws_access_key_id="testing", aws_secret_access_key="testing")
            with pytest.raises(dynamodb.exceptions.ResourceNotFoundException):  # answered by the loaded engine
                dynamodb.describe_table(TableName="never-made")
        if start == 0:
            written = path.read_bytes()
    kept = marshal.loads(written)
    assert {pattern.pattern for _, pattern in backend_index.backend_url_patterns} <= {p for p, _ in kept}
    assert path.read_bytes() == written  # the second start found every pattern its imports compiled


def test_a_pattern_of_a_str_subclass_is_left_to_the_compiler(tmp_path):
    class Text(str):
        pass

    with compiled_patterns.kept(tmp_path):
        made = _fresh_compiles([(Text(r"\d+(?P<unit>ms|s)"), re.IGNORECASE), (r"x+", re.MULTILINE)])
    assert made == [re._compiler.compile(r"\d+(?P<unit>ms|s)", re.IGNORECASE), re._compiler.compile(r"x+", re.M)]
    assert set(marshal.loads(compiled_patterns.cache_file(tmp_path).read_bytes())) == {("x+", int(re.MULTILINE))}


def test_the_in_process_doors_first_import_keeps_its_patterns_and_puts_the_compiler_back(tmp_path):
    # a process of its own: the first `eddy.emulate` imports the engine and moto, as a test's first block does
    code = (
        "import re, sys\n"
        "import boto3\n"
        "original = re._compiler.compile\n"
        "import eddy\n"
        "with eddy.emulate(housekeeping_interval=None):\n"
        "    client = boto3.client('dynamodb', region_name='us-east-1')\n"
        "    print(client.list_tables()['TableNames'], re._compiler.compile is original)\n"
    )
    environment = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env=environment).stdout.strip()
    assert shown == "[] True"
    from moto import backend_index

    kept = marshal.loads(compiled_patterns.cache_file(tmp_path / "eddy").read_bytes())
    assert {pattern.pattern for _, pattern in backend_index.backend_url_patterns} <= {p for p, _ in kept}
