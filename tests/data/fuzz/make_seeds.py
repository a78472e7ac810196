#!/usr/bin/env python3
"""Writes the seed corpora in tests/data/fuzz/<fuzz target>/ that scripts/test.sh gives each
libFuzzer target (read only; new inputs go to the build directory).

Every seed is made here from our own data: hand-built protocol messages, and binlog events of a
throwaway MariaDB (tests/servers/testservers.sh) running the SQL of tests/data/binlog_cases/.
Run it again after changing a fuzz target's input format:

    python3 tests/data/fuzz/make_seeds.py            # all targets (needs mariadbd)
    python3 tests/data/fuzz/make_seeds.py --no-server  # all but binlog_event_fuzzer
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
OUT = os.path.join(ROOT, "tests", "data", "fuzz")
MAX_SEED = 16 * 1024  # libFuzzer's default -max_len is derived from the seeds; keep them small


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def reset(target):
    shutil.rmtree(os.path.join(OUT, target), ignore_errors=True)


def lenenc(n):
    if n < 251:
        return bytes([n])
    if n < 1 << 16:
        return b"\xfc" + struct.pack("<H", n)
    if n < 1 << 24:
        return b"\xfd" + struct.pack("<I", n)[:3]
    return b"\xfe" + struct.pack("<Q", n)


def lenenc_str(s):
    return lenenc(len(s)) + s


# ---- MySQL binary JSON (sql-common/json_binary.cc layout) ------------------------------------

def j_scalar(type_byte, payload):
    return bytes([type_byte]), payload


def j_int16(v):
    return 0x05, struct.pack("<h", v)


def j_int64(v):
    return 0x09, struct.pack("<q", v)


def j_double(v):
    return 0x0B, struct.pack("<d", v)


def j_string(s):
    return 0x0C, lenenc(len(s)) + s  # JSON uses the same 1..5 byte varlen for small lengths


def j_literal(v):
    return 0x04, bytes([{None: 0, True: 1, False: 2}[v]])


def j_opaque(mysql_type, data):
    return 0x0F, bytes([mysql_type]) + lenenc(len(data)) + data


INLINE_SMALL = {0x04, 0x05, 0x06}


def j_container(items, is_object):
    """A small object (keys and values) or small array, as (type, bytes after the type byte)."""
    count = len(items)
    header = 4
    key_entries = 4 * count if is_object else 0
    value_entries = 3 * count
    keys = b""
    key_offsets = []
    pos = header + key_entries + value_entries
    if is_object:
        for key, _ in items:
            key_offsets.append((pos, len(key)))
            keys += key
            pos += len(key)
    values = b""
    entries = b""
    for item in items:
        t, payload = item[1] if is_object else item
        if t in INLINE_SMALL:
            entries += bytes([t]) + payload.ljust(2, b"\0")
        else:
            entries += bytes([t]) + struct.pack("<H", pos + len(values))
            values += payload
    body = b""
    for off, length in key_offsets:
        body += struct.pack("<HH", off, length)
    body += entries + keys + values
    size = header + len(body)
    return (0x00 if is_object else 0x02), struct.pack("<HH", count, size) + body


def j_doc(value):
    t, payload = value
    return bytes([t]) + payload


def json_seeds():
    target = "json_binary_fuzzer"
    reset(target)
    nested = j_container(
        [(b"a", j_int16(1)), (b"b", j_container([j_literal(True), j_literal(None)], False)),
         (b"name", j_string(b"caf\xc3\xa9 \"q\"\n")), (b"big", j_int64(-(1 << 40))),
         (b"pi", j_double(3.25))], True)
    seeds = {
        "null_literal": j_doc(j_literal(None)),
        "int16": j_doc(j_int16(-7)),
        "string": j_doc(j_string(b"hello\tworld")),
        "double": j_doc(j_double(1e100)),
        "opaque_date": j_doc(j_opaque(10, struct.pack("<q", (2024 * 13 + 2) << 46 | 29 << 41))),
        "array": j_doc(j_container([j_int16(1), j_string(b"x"), j_double(-0.5)], False)),
        "object_nested": j_doc(nested),
        "empty_object": j_doc(j_container([], True)),
    }
    for name, data in seeds.items():
        write(target, name, data)
    # A JSON diff list: REPLACE $.a with 2, INSERT $.c[0] "x", REMOVE $.b.
    diff = (b"\x00" + lenenc_str(b"$.a") + lenenc_str(j_doc(j_int16(2))) +
            b"\x01" + lenenc_str(b"$.c[0]") + lenenc_str(j_doc(j_string(b"x"))) +
            b"\x02" + lenenc_str(b"$.b"))
    write(target, "diff_list", diff)


def value_seeds():
    """binlog_value_fuzzer: type index, meta, precision, scale, flags, then the cell bytes."""
    target = "binlog_value_fuzzer"
    reset(target)
    # Indexes into kTypes in tests/fuzz/binlog_value_fuzzer.cpp.
    tiny, short, long_, float_, double_, null, timestamp, longlong = range(8)
    int24, date, time, datetime, year, newdate, varchar, bit = range(8, 16)
    timestamp2, datetime2, time2, vector, json, newdecimal, enum, set_ = range(16, 24)
    blob, varstring, string, geometry = range(24, 28)
    seeds = {
        "tiny_neg": (tiny, 0, 0, 0, 0, b"\xff"),
        "long": (long_, 0, 0, 0, 2, struct.pack("<i", -123456)),
        "longlong": (longlong, 0, 0, 0, 0, struct.pack("<q", 1 << 62)),
        "float": (float_, 4, 0, 0, 0, struct.pack("<f", 1.5)),
        "double": (double_, 8, 0, 0, 0, struct.pack("<d", -2.25e-300)),
        "int24": (int24, 0, 0, 0, 0, b"\x01\x00\x80"),
        "date": (date, 0, 0, 0, 0, struct.pack("<I", (2024 << 9) | (2 << 5) | 29)[:3]),
        "year": (year, 0, 0, 0, 0, b"\x7c"),
        "bit": (bit, 0x0205 & 0x3F, 0, 0, 0, b"\x01\x55"),
        "timestamp2_fsp3": (timestamp2, 3, 0, 0, 0, struct.pack(">I", 1700000000) + b"\x01\xf4"),
        "datetime2_fsp6": (datetime2, 6, 0, 0, 0, bytes.fromhex("99b2a6b2f2") + b"\x0f\x42\x3f"),
        "time2_fsp0": (time2, 0, 0, 0, 0, bytes.fromhex("80b00a")),
        "newdecimal": (newdecimal, 0, 10, 4, 0, bytes.fromhex("800001e240d4")),
        "enum": (enum, 1, 0, 0, 4, b"\x02"),
        "set": (set_, 1, 0, 0, 8, b"\x05"),
        "varchar_utf8": (varchar, 0, 0, 0, 0, "zürich 中".encode()),
        "blob_binary": (blob, 2, 0, 0, 1, bytes(range(0, 256, 7))),
        "json_doc": (json, 4, 0, 0, 0, j_doc(j_container([(b"k", j_string(b"v"))], True))),
        "vector": (vector, 0, 0, 0, 0, struct.pack("<3f", 1.0, -2.5, 0.125)),
        "null_cell": (long_, 0, 0, 0, 16, b""),
    }
    for name, (type_index, meta, precision, scale, flags, cell) in seeds.items():
        write(target, name, bytes([type_index, meta, precision, scale, flags]) + cell)


def mysql_packet_seeds():
    target = "mysql_packet_fuzzer"
    reset(target)
    greeting = (b"\x0a" + b"10.11.6-MariaDB-log\0" + struct.pack("<I", 42) + b"abcdefgh\0" +
                struct.pack("<H", 0xF7FE) + b"\x2d" + struct.pack("<H", 2) +
                struct.pack("<H", 0x81BF) + b"\x15" + b"\0" * 6 + struct.pack("<I", 0x1D) +
                b"ijklmnopqrst\0" + b"mysql_native_password\0")
    column = (lenenc_str(b"def") + lenenc_str(b"db") + lenenc_str(b"t") + lenenc_str(b"t") +
              lenenc_str(b"id") + lenenc_str(b"id") + b"\x0c" + struct.pack("<HIBHB", 63, 11, 3,
                                                                              0x4203, 0) + b"\0\0")
    seeds = {
        "greeting": b"\x00" + greeting,
        "auth_switch": b"\x01" + b"\xfe" + b"client_ed25519\0" + b"x" * 32,
        "ok": b"\x02" + b"\x00\x05\x00\x02\x00\x00\x00" + b"Rows matched: 5",
        "err": b"\x03" + b"\xff" + struct.pack("<H", 1045) + b"#28000" + b"Access denied",
        "column_definition": b"\x04" + column,
        "text_row": b"\x05" + b"\x03" + lenenc_str(b"1") + b"\xfb" + lenenc_str(b"x" * 300),
        "eof": b"\x06" + b"\xfe\x00\x00\x02\x00",
    }
    for name, data in seeds.items():
        write(target, name, data)


def varuint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def ch_string(s):
    return varuint(len(s)) + s


def ch_block(with_info):
    info = (varuint(1) + b"\0" + varuint(2) + struct.pack("<i", -1) + varuint(0)) if with_info else b""
    return (info + varuint(2) + varuint(2) + ch_string(b"id") + ch_string(b"UInt32") +
            struct.pack("<II", 1, 2) + ch_string(b"s") + ch_string(b"Nullable(String)") +
            b"\x00\x01" + ch_string(b"ab") + ch_string(b""))


def clickhouse_packet_seeds():
    """clickhouse_packet_fuzzer: selector (low bits: mode, bits 4-5: revision index), payload."""
    target = "clickhouse_packet_fuzzer"
    reset(target)
    rev54412 = 0 << 4
    hello = (ch_string(b"ClickHouse") + varuint(18) + varuint(16) + varuint(54412) +
             ch_string(b"UTC") + ch_string(b"localhost") + varuint(1))
    exception = (varuint(2) + struct.pack("<i", 60) + ch_string(b"DB::Exception") +
                 ch_string(b"Table default.x doesn't exist.") + ch_string(b"stack") + b"\x01" +
                 struct.pack("<i", 1) + ch_string(b"DB::Cause") + ch_string(b"inner") +
                 ch_string(b"") + b"\x00")
    packets = (varuint(11) + ch_string(b"t") + ch_string(b"columns format version: 1") +
               varuint(3) + varuint(10) + varuint(200) + varuint(10) +
               varuint(1) + ch_string(b"") + ch_block(True) +
               varuint(6) + varuint(2) + varuint(1) + varuint(64) + b"\x00" + varuint(0) + b"\x00" +
               varuint(4) + varuint(5))
    seeds = {
        "hello_54412": bytes([0 | rev54412]) + hello,
        "exception_chain": bytes([1 | rev54412]) + exception,
        "query_packets": bytes([1 | rev54412]) + packets,
    }
    for name, data in seeds.items():
        write(target, name, data)
    # Compressed frames our tests already keep (LZ4 and ZSTD), checksums intact and to be fixed.
    for name in ("sample.lz4.chc", "sample.zstd.chc"):
        with open(os.path.join(ROOT, "tests", "data", "clickhouse", name), "rb") as f:
            frames = f.read()
        first = frames[:min(len(frames), MAX_SEED)]
        write(target, "frames_" + name.split(".")[1], bytes([3]) + first)
        write(target, "frames_fixed_" + name.split(".")[1], bytes([4]) + first)


def clickhouse_block_seeds():
    """clickhouse_block_fuzzer: revision selector (0: none, 1: 54429, 2: 54454), Native block."""
    target = "clickhouse_block_fuzzer"
    # seed0..seed4 were written by hand with the target (first kept in tests/fuzz/corpus/).
    write(target, "nullable_with_block_info", b"\x01" + ch_block(True))


# ---- binlog events from a throwaway MariaDB ------------------------------------------------------

def binlog_event_seeds():
    """binlog_event_fuzzer: a run of events without the 4-byte magic; the first is an FDE."""
    target = "binlog_event_fuzzer"
    script = os.path.join(ROOT, "tests", "servers", "testservers.sh")
    cases_dir = os.path.join(ROOT, "tests", "data", "binlog_cases")
    tmp = tempfile.mkdtemp(prefix="rowbridge-seeds.")
    try:
        subprocess.run(["bash", script, "start", "--no-clickhouse", "--mariadb-opt=--binlog-row-metadata=FULL",
                        "--mariadb-opt=--binlog-annotate-row-events=ON", tmp], check=True)
        client = ["bash", script, "mariadb", tmp]
        reset(target)
        for case in sorted(os.listdir(cases_dir)):
            if not case.endswith(".sql"):
                continue
            name = case[:-4]
            with open(os.path.join(cases_dir, case), "rb") as f:
                sql = f.read()
            db = "bc_" + name
            subprocess.run(client, input=b"FLUSH BINARY LOGS; CREATE DATABASE %s; USE %s;\n%s" % (
                db.encode(), db.encode(), sql), check=True)
            current = subprocess.run(client + ["-N", "-e", "SHOW MASTER STATUS"], check=True,
                                     capture_output=True).stdout.split()[0].decode()
            with open(os.path.join(tmp, "mariadb", "data", current), "rb") as f:
                data = f.read()
            write(target, name, first_events(data[4:]))
    finally:
        subprocess.run(["bash", script, "stop", "--remove", tmp])


def first_events(events):
    """The FDE and as many whole events after it as fit in MAX_SEED (at least the FDE)."""
    pos = 0
    while pos + 19 <= len(events):
        size = struct.unpack_from("<I", events, pos + 9)[0]
        if pos > 0 and pos + size > MAX_SEED:
            break
        pos += size
    return events[:pos]


def main():
    json_seeds()
    value_seeds()
    mysql_packet_seeds()
    clickhouse_packet_seeds()
    clickhouse_block_seeds()
    if "--no-server" not in sys.argv[1:]:
        binlog_event_seeds()


if __name__ == "__main__":
    main()
