"""Strings packed one a line (UTF-8) with each one's byte offset: the index's ids and
titles, read one at a time straight from the file and added to without splitting them all.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any


def unpack(data: Any, code: str = "I") -> array:
    """A growable array of ``code`` items from bytes, a memoryview or an array."""
    if isinstance(data, array):
        return array(code, data)
    column = array(code)
    if isinstance(data, memoryview) and data.format != "B":
        data = data.cast("B")  # a typed view of the file: frombytes wants plain bytes
    column.frombytes(data)
    return column


class Packed(Sequence[str]):
    """A list of strings kept as one UTF-8 text (``"\\n"`` between them) and the offset
    where each starts. Loaded, both are views into the index file; the first ``append``
    copies them into growable buffers (a copy, never a split)."""

    __slots__ = ("_list", "at", "text")

    def __init__(self, text: Any = b"", at: Any = None) -> None:
        self.text = text
        self.at = at if at is not None else array("I")
        self._list: list[str] | None = None

    @classmethod
    def of(cls, strings: list[str]) -> Packed:
        encoded = [s.encode("utf-8") for s in strings]
        at, pos = array("I"), 0
        for s in encoded:
            at.append(pos)
            pos += len(s) + 1
        packed = cls(bytearray(b"\n".join(encoded)), at)
        packed._list = list(strings)
        return packed

    def __len__(self) -> int:
        return len(self.at)

    def __getitem__(self, k: Any) -> Any:
        if self._list is not None:
            return self._list[k]
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self.at)))]
        if k < 0:
            k += len(self.at)
        start = self.at[k]
        end = self.at[k + 1] - 1 if k + 1 < len(self.at) else len(self.text)
        return bytes(self.text[start:end]).decode("utf-8")

    def __iter__(self) -> Any:
        return iter(self.strings())

    def __contains__(self, value: object) -> bool:
        return value in self.strings()

    def span(self, k: int) -> tuple[int, int]:
        """Where string ``k`` sits in ``text`` (start, end)."""
        end = self.at[k + 1] - 1 if k + 1 < len(self.at) else len(self.text)
        return self.at[k], end

    def append(self, value: str) -> None:
        if not isinstance(self.text, bytearray):
            self.text = bytearray(self.text)
        if not isinstance(self.at, array):
            self.at = unpack(self.at)
        if len(self.at):
            self.text += b"\n"
        self.at.append(len(self.text))
        self.text += value.encode("utf-8")
        if self._list is not None:
            self._list.append(value)

    def strings(self) -> list[str]:
        """All of them, split once (and kept)."""
        if self._list is None:
            text = bytes(self.text).decode("utf-8")
            self._list = text.split("\n") if len(self.at) else []
        return self._list

    def tobytes(self) -> tuple[bytes, bytes]:
        return bytes(self.text), bytes(self.at)


class Lazy:
    """An index attribute stored marshalled in the file and unmarshalled on first use
    (``obj._lazy[name]`` holds its bytes until then); an ordinary attribute once set."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        import marshal

        try:
            raw = obj._lazy.pop(self.name)
        except KeyError:
            raise AttributeError(self.name) from None
        value = marshal.loads(raw)
        obj.__dict__[self.name] = value
        return value
