"""The store's objects in git's own formats, read and written without dulwich.

A follow-up reads a handful of trees and writes two commits; importing
dulwich's object store (15 ms, with dataclasses, logging and its pack
machinery) cost more than all of that work. Loose objects are zlib over
``<type> <size>\\0<content>``; packed ones are found through their ``.idx``
(version 2, what git and dulwich write) and may be deltas of others.
Sync and the purge still go through dulwich (or the git CLI), which stays
the store's general-purpose git library.
"""

import mmap
import os
import stat
import zlib

try:
    from _sha1 import sha1  # CPython's own: loads in 0.1 ms, hashlib's (OpenSSL) in 3 ms
except ImportError:
    from hashlib import sha1

KINDS = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}  # a packed object's type number -> its type
KIND_NUMBERS = {kind: number for number, kind in KINDS.items()}
_OFS_DELTA, _REF_DELTA = 6, 7
DIR_MODE = stat.S_IFDIR

# A tree's entries: name -> (mode, hex id)
Entries = dict[bytes, tuple[int, str]]


def _framed(kind: bytes, content: bytes) -> bytes:
    """What git hashes and a loose object holds: ``<type> <size>\\0<content>``."""
    return b"%s %d\0%s" % (kind, len(content), content)


def object_id(kind: bytes, content: bytes) -> str:
    return sha1(_framed(kind, content)).hexdigest()


def loose_object(kind: bytes, content: bytes) -> bytes:
    """A loose object's file content."""
    return zlib.compress(_framed(kind, content))


def parse_tree(data: bytes) -> Entries:
    entries, at = {}, 0
    while at < len(data):
        space = data.index(b" ", at)
        nul = data.index(b"\0", space)
        entries[data[space + 1 : nul]] = (int(data[at:space], 8), data[nul + 1 : nul + 21].hex())
        at = nul + 21
    return entries


def tree_content(entries: Entries) -> bytes:
    """A tree object's content: entries in git's order (a directory sorts as if
    its name ended in "/")."""
    def order(name: bytes) -> bytes:
        return name + b"/" if stat.S_ISDIR(entries[name][0]) else name

    return b"".join(b"%o %s\0%s" % (entries[name][0], name, bytes.fromhex(entries[name][1]))
                    for name in sorted(entries, key=order))


def commit_tree(data: bytes) -> str:
    """The tree id a commit object's content names (its first line)."""
    if not data.startswith(b"tree "):
        raise ValueError("not a commit")
    return data[5:45].decode()


def parse_commit(data: bytes) -> tuple[list[str], int, bytes]:
    """(parents, committer time, message) of a commit object's content."""
    head, _, message = data.partition(b"\n\n")
    parents, when = [], 0
    for line in head.split(b"\n"):
        if line.startswith(b"parent "):
            parents.append(line[7:47].decode())
        elif line.startswith(b"committer "):
            when = int(line.rsplit(b" ", 2)[1])
    return parents, when, message


def commit_content(tree: str, parents: list[str], author: bytes, when: int, message: bytes) -> bytes:
    """A commit object's content, byte for byte as dulwich writes it (time zone
    UTC): stores made by either share their first commit's id."""
    lines = [b"tree " + tree.encode()] + [b"parent " + p.encode() for p in parents]
    lines += [b"author %s %d +0000" % (author, when), b"committer %s %d +0000" % (author, when)]
    return b"\n".join(lines) + b"\n\n" + message


class Objects:
    """Read access to one object directory (``objects/``): loose files first,
    then the packs, which are looked for again when an id is in none of them
    (a gc or a fetch may have added one)."""

    def __init__(self, directory: str):
        self.dir = directory
        self._packs: dict[str, _Pack] | None = None  # by index file name; None: not looked for yet

    def read(self, sha: str) -> tuple[bytes, bytes]:
        """(type, content) of an object; KeyError when the store has none."""
        try:
            with open(f"{self.dir}/{sha[:2]}/{sha[2:]}", "rb") as f:
                raw = zlib.decompress(f.read())
        except FileNotFoundError:
            return self._packed(sha)
        head, _, content = raw.partition(b"\0")
        return head.split(b" ", 1)[0], content

    def packed(self, sha: str) -> bool:
        """Whether a pack holds the object (packs added since the first look
        are not seen: a "no" only means it gets written again)."""
        key = bytes.fromhex(sha)
        return any(pack.offset(key) is not None for pack in self._known())

    def _packed(self, sha: str) -> tuple[bytes, bytes]:
        key = bytes.fromhex(sha)
        for packs in (self._known, self._new_packs):  # a new pack is looked for only when the known ones fail
            for pack in packs():
                at = pack.offset(key)
                if at is not None:
                    return pack.read(at, self)
        raise KeyError(sha)

    def _known(self) -> list["_Pack"]:
        return list(self._packs.values()) if self._packs is not None else self._new_packs()

    def _new_packs(self) -> list["_Pack"]:
        """Packs not opened yet, opened."""
        if self._packs is None:
            self._packs = {}
        try:
            names = os.listdir(f"{self.dir}/pack")
        except FileNotFoundError:
            return []
        new = []
        for name in sorted(names):
            if name.endswith(".idx") and name not in self._packs and name[:-4] + ".pack" in names:
                new.append(_Pack(f"{self.dir}/pack/{name[:-4]}"))
                self._packs[name] = new[-1]
        return new

    def close(self) -> None:
        for pack in (self._packs or {}).values():
            pack.close()
        self._packs = None


class _Pack:
    """One pack and its version-2 index, mapped into memory."""

    def __init__(self, base: str):
        with open(base + ".idx", "rb") as f:
            self._idx = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        if self._idx[:8] != b"\377tOc\0\0\0\2":
            self._idx.close()
            raise ValueError(f"{base}.idx is not a version 2 pack index")
        with open(base + ".pack", "rb") as f:
            self._pack = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        self._count = int.from_bytes(self._idx[8 + 255 * 4 : 8 + 256 * 4], "big")
        self._ids = 8 + 256 * 4  # where the sorted ids start; then CRCs, offsets, large offsets
        self._bases: dict[int, tuple[int, bytes]] = {}  # delta bases read, by offset

    def offset(self, key: bytes) -> int | None:
        """Where the object ``key`` (20 bytes) starts in the pack, or None."""
        idx, first = self._idx, key[0]
        lo = int.from_bytes(idx[8 + (first - 1) * 4 : 8 + first * 4], "big") if first else 0
        hi = int.from_bytes(idx[8 + first * 4 : 12 + first * 4], "big")
        while lo < hi:
            mid = (lo + hi) // 2
            at = self._ids + mid * 20
            found = idx[at : at + 20]
            if found < key:
                lo = mid + 1
            elif found > key:
                hi = mid
            else:
                table = self._ids + self._count * 24  # past the ids and the CRCs
                value = int.from_bytes(idx[table + mid * 4 : table + mid * 4 + 4], "big")
                if value & 0x80000000:  # an index into the table of 8-byte offsets
                    large = table + self._count * 4 + (value & 0x7FFFFFFF) * 8
                    value = int.from_bytes(idx[large : large + 8], "big")
                return value
        return None

    def read(self, at: int, objects: Objects) -> tuple[bytes, bytes]:
        kind, content = self._object(at, objects)
        return KINDS[kind], content

    def _object(self, at: int, objects: Objects) -> tuple[int, bytes]:
        cached = self._bases.get(at)
        if cached is not None:
            return cached
        pack = self._pack
        byte = pack[at]
        kind, size, shift, at_data = (byte >> 4) & 7, byte & 15, 4, at + 1
        while byte & 0x80:
            byte = pack[at_data]
            size |= (byte & 0x7F) << shift
            shift += 7
            at_data += 1
        if kind == _OFS_DELTA:
            byte = pack[at_data]
            back, at_data = byte & 0x7F, at_data + 1
            while byte & 0x80:
                byte = pack[at_data]
                back, at_data = ((back + 1) << 7) | (byte & 0x7F), at_data + 1
            base_kind, base = self._object(at - back, objects)
        elif kind == _REF_DELTA:
            base_sha = pack[at_data : at_data + 20].hex()
            at_data += 20
            base_type, base = objects.read(base_sha)
            base_kind = KIND_NUMBERS[base_type]
        data = self._inflate(at_data, size)
        found = (base_kind, _apply_delta(base, data)) if kind in (_OFS_DELTA, _REF_DELTA) else (kind, data)
        if len(self._bases) > 256:
            self._bases.clear()
        self._bases[at] = found
        return found

    def _inflate(self, at: int, size: int) -> bytes:
        inflate, out, step = zlib.decompressobj(), [], max(size // 2, 4096)
        while not inflate.eof:
            chunk = self._pack[at : at + step]
            if not chunk:
                raise ValueError("a packed object ends early")
            out.append(inflate.decompress(chunk))
            at += step
        return b"".join(out)

    def close(self) -> None:
        self._idx.close()
        self._pack.close()


def _apply_delta(base: bytes, delta: bytes) -> bytes:
    """git's delta format: the two sizes, then copy-from-base and insert orders."""
    at = 0
    for _ in range(2):  # the base's size, then the result's
        while delta[at] & 0x80:
            at += 1
        at += 1
    out = []
    while at < len(delta):
        order = delta[at]
        at += 1
        if order & 0x80:  # copy: which offset and size bytes follow is in the order's bits
            offset = size = 0
            for bit in range(4):
                if order & (1 << bit):
                    offset |= delta[at] << (8 * bit)
                    at += 1
            for bit in range(3):
                if order & (1 << (4 + bit)):
                    size |= delta[at] << (8 * bit)
                    at += 1
            out.append(base[offset : offset + (size or 0x10000)])
        elif order:  # insert the next ORDER bytes
            out.append(delta[at : at + order])
            at += order
        else:
            raise ValueError("a delta holds the reserved order 0")
    return b"".join(out)
