"""Reading a group's new entries, counting those the stream trimmed before the group read them.

A stream bounded by ``MAXLEN`` drops its oldest entries; a group that falls behind never sees
the ones dropped past its position, whole runs included (``seq`` gaps show only the entries
missing inside runs the consumer did read). Redis counts what it needs: ``entries-added``
(every entry the stream ever took) minus ``length`` is how many it removed, and the group's
``entries-read`` is how far the group has read, counted the same way. When the removed ones
reach past the group's position, the difference is what the group lost.

One script does the count and the read together, so no trim can slip in between: it reads
the counters, counts the lost entries, moves the group's ``entries-read`` past them
(``XGROUP SETID ... ENTRIESREAD``: Redis itself only adds what it delivers, so the next read
would count them again), then reads the new entries (``XREADGROUP ... >``). Each lost entry is
counted once, by the consumer whose read passed it; the consumers' counts add up to the
group's.

A group whose ``entries-read`` Redis cannot tell (``nil``: created on a stream that had already
removed entries, or after ``XDEL``) counts from where it starts: when it has read nothing yet,
every entry removed before it counts as lost to it.
"""

from __future__ import annotations

from typing import Any

READ = """
local stream, group = KEYS[1], ARGV[1]
local added, length = 0, 0
local info = redis.call('XINFO', 'STREAM', stream)
for i = 1, #info, 2 do
  if info[i] == 'entries-added' then added = info[i + 1]
  elseif info[i] == 'length' then length = info[i + 1] end
end
local read, last = false, '0-0'
for _, g in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
  local fields = {}
  for i = 1, #g, 2 do fields[g[i]] = g[i + 1] end
  if fields['name'] == group then
    read, last = fields['entries-read'], fields['last-delivered-id']
  end
end
if not read and last == '0-0' then read = 0 end
local lost = 0
local removed = added - length
if read and removed > read then
  lost = removed - read
  redis.call('XGROUP', 'SETID', stream, group, last, 'ENTRIESREAD', removed)
end
local entries = redis.call(
  'XREADGROUP', 'GROUP', group, ARGV[2], 'COUNT', ARGV[3], 'STREAMS', stream, '>')
return {lost, entries or false, last}
"""
"""KEYS: the stream. ARGV: group, consumer, count. Returns the entries lost to trimming, the
``XREADGROUP`` reply (false: nothing new) and the group's last delivered id before the read."""


class TrimmedReader:
    """The read of new entries for one consumer of a group, with the trimmed ones counted."""

    def __init__(self, client: Any, stream: str, group: str, consumer: str) -> None:
        self.client = client
        self.stream = stream
        self.group = group
        self.consumer = consumer
        self._read = client.register_script(READ)

    async def read(self, count: int) -> tuple[int, list[tuple[str, Any]], str]:
        """Up to ``count`` new entries (none: the group has read everything), the number of
        entries trimmed before the group read them that this read passed, and the group's
        last delivered id before it."""
        lost, reply, last = await self._read(
            keys=[self.stream], args=[self.group, self.consumer, count]
        )
        entries: list[tuple[str, Any]] = []
        for _stream, items in reply or []:
            entries.extend((entry_id, _fields(fields)) for entry_id, fields in items)
        return int(lost), entries, str(last)


def _fields(raw: Any) -> dict[str, Any]:
    """An entry's fields from a script reply (a flat list of names and values)."""
    if isinstance(raw, dict):
        return raw
    items = list(raw or [])
    return {str(items[i]): items[i + 1] for i in range(0, len(items) - 1, 2)}


__all__ = ["READ", "TrimmedReader"]
