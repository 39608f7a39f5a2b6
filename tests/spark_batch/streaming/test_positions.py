"""Offsets of the dynamodbstreams source: lineage order, which shards may be read, the ranges a batch reads."""

from eddy.spark_batch.streaming import positions
from eddy.spark_batch.streaming.positions import AT, END, TRIM_HORIZON, Shard, ShardRange


def shard(shard_id: str, *parents: str, starting: str = "1") -> Shard:
    return Shard(shard_id, parents, starting)


def test_parents_come_before_children_whatever_order_the_stream_lists_them() -> None:
    listed = [shard("grandchild", "child"), shard("child", "root"), shard("other"), shard("root")]
    order = [s.shard_id for s in positions.in_lineage_order(listed)]
    assert order.index("root") < order.index("child") < order.index("grandchild")
    assert sorted(order) == sorted(s.shard_id for s in listed)


def test_a_child_waits_until_every_parent_it_knows_is_read_to_its_end() -> None:
    shards = {"p": {"parents": [], "position": positions.after("5")},
              "q": {"parents": [], "position": END},
              "c": {"parents": ["p", "q"], "position": AT},
              "orphan": {"parents": ["trimmed-away"], "position": AT}}
    assert not positions.readable("c", shards)
    shards["p"]["position"] = END
    assert positions.readable("c", shards)
    assert positions.readable("orphan", shards)
    assert not positions.readable("q", shards)


def test_roots_start_at_the_horizon_and_known_children_at_their_first_record() -> None:
    start = positions.initial_positions([shard("root"), shard("child", "root", starting="9"), shard("lost", "gone")],
                                        TRIM_HORIZON)
    assert {shard_id: value["position"] for shard_id, value in start.items()} == {
        "root": TRIM_HORIZON, "child": AT, "lost": TRIM_HORIZON}
    assert start["child"] == {"starting": "9", "parents": ["root"], "position": AT}


def test_new_shards_join_and_ended_shards_the_stream_dropped_leave() -> None:
    known = {"old": {"starting": "1", "parents": [], "position": END},
             "open": {"starting": "2", "parents": [], "position": positions.after("7")}}
    merged = positions.with_new_shards(known, [shard("open", starting="2"), shard("new", "open", starting="8")])
    assert merged == {"open": known["open"], "new": {"starting": "8", "parents": ["open"], "position": AT}}
    assert positions.vanished(known, ["new"]) == ["open"]


def test_a_batch_reads_each_shard_that_moved_from_where_it_stood() -> None:
    start = {"shards": {"a": {"starting": "1", "parents": [], "position": positions.after("3")},
                        "b": {"starting": "1", "parents": [], "position": END},
                        "c": {"starting": "4", "parents": [], "position": positions.after("4")}}}
    end = {"shards": {"a": {"starting": "1", "parents": [], "position": END},
                      "b": {"starting": "1", "parents": [], "position": END},
                      "c": {"starting": "4", "parents": [], "position": positions.after("4")},
                      "d": {"starting": "6", "parents": ["a"], "position": positions.after("9")}}}
    assert positions.ranges(start, end) == [ShardRange("a", "1", "AFTER 3", END),
                                            ShardRange("d", "6", AT, "AFTER 9")]
