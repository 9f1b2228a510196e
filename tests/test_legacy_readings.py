"""Old stores are read through one migration layer (`rundir.legacy`): the rest of the package reads
current records only."""

from __future__ import annotations

import pytest

from oversight_bench.protocol import Turn
from oversight_bench.rundir import legacy


def test_an_old_turn_is_read_by_the_migration_layer_not_by_protocol():
    """A turn stored before turns kept a round or a shown text: `protocol.Turn.from_dict` takes the
    current format only; `legacy.turn_fields` reads the old one (no round, its content shown)."""
    old = {"role": "debater", "speaker": "Alice", "content": "my argument", "defends": 1, "extra": None}
    with pytest.raises(TypeError):
        Turn.from_dict(old)
    t = Turn.from_dict(legacy.turn_fields(old))
    assert (t.round, t.shown, t.content, t.defends, t.extra) == (None, "my argument", "my argument", 1, {})
    t = Turn.from_dict(legacy.turn_fields({**old, "content": None}))
    assert (t.shown, t.content) == ("", "")
    current = {"round": 2, "role": "debater", "speaker": "Bob", "content": "<think>x</think>y", "shown": "y",
               "defends": 2, "extra": {"budget": {}}}
    assert Turn.from_dict(current) == Turn.from_dict(legacy.turn_fields(current)) == Turn(**current)
