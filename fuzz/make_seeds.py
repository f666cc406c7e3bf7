#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the seed corpora of the layout, duration_instant, config, state_record and lifecycle
fuzz targets into fuzz/corpus/<name>/ (id_codec's seeds are written by hand).

Run from anywhere: python3 fuzz/make_seeds.py. It only adds or overwrites its own files, so
regression inputs saved next to them (named regression-*) stay. Each input format is described
at the top of the target's source file."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


# --- layout: epoch(8) unit(1) bits(3 x int8) now(8) fields(8+4+4) text ---
def layout(epoch, unit, t, s, q, now=1700000000000, fields=(0, 0, 0), text=b""):
    return (struct.pack("<qBbbbq", epoch, unit, t, s, q, now) +
            struct.pack("<QII", *fields) + text)


EPOCH_MS = 1577203200000
for name, data in {
    "default": layout(EPOCH_MS, 0, 41, 10, 12, fields=(123456789, 5, 77), text=b"default"),
    "seconds": layout(EPOCH_MS // 1000, 1, 31, 10, 22, text=b"seconds"),
    "js_safe": layout(EPOCH_MS, 0, 41, 3, 9, fields=(2**41 - 1, 7, 511), text=b"js-safe"),
    "js_safe_seconds": layout(EPOCH_MS // 1000, 1, 31, 3, 19, text=b"js-safe-seconds"),
    "too_wide_64": layout(EPOCH_MS, 0, 42, 10, 12),
    "field_zero": layout(EPOCH_MS, 0, 51, 0, 12),
    "negative_bits": layout(EPOCH_MS, 0, -1, 10, 12),
    "slot_33_bits": layout(0, 0, 20, 33, 10),
    "epoch_negative": layout(-1, 0, 41, 10, 12),
    "epoch_future": layout(4102444800000, 0, 41, 10, 12, now=1700000000000),
    "epoch_end_overflow": layout(2**62, 1, 61, 1, 1),
    "max_timestamp_bits": layout(0, 0, 61, 1, 1, fields=(2**64 - 1, 1, 1)),
    "unknown_preset": layout(EPOCH_MS, 0, 41, 10, 12, text=b"Default"),
    # Regression: validate_at's message formatted a "now" of INT64_MIN (floor_div overflowed).
    "regression-validate-at-int64-min": layout(EPOCH_MS, 0, 41, 10, 12, now=-2**63),
}.items():
    write("layout", name, data)

# --- duration_instant: the text itself ---
for name, text in {
    "ms": "500ms", "s": "10s", "m": "1m", "h": "1h", "zero": "0ms", "fraction": "1.5s",
    "bare": "10", "space": "10 s", "negative": "-1s", "overflow_ms": "9223372036854775808ms",
    "overflow_h": "2562047788015216h", "epoch_ms": "1700000000000",
    "rfc3339_z": "2026-11-30T02:22:58Z", "rfc3339_ms": "2026-11-30T02:22:58.123Z",
    "rfc3339_offset": "2026-11-30T07:52:58+05:30", "rfc3339_neg_offset": "1970-01-01T00:00:00-00:01",
    "rfc3339_no_zone": "2026-11-30T02:22:58", "leap_second": "2016-12-31T23:59:60Z",
    "year_9999": "9999-12-31T23:59:59.999Z", "feb29": "2024-02-29T00:00:00Z",
    "feb29_nonleap": "2023-02-29T00:00:00Z", "lower_t": "2026-11-30t02:22:58z",
    "leading_zero": "010", "true": "true", "int64_max": "9223372036854775807",
}.items():
    write("duration_instant", name, text)

# --- config: text, then NUL-separated NAME=VALUE environment entries ---
def config(text, env=()):
    data = text.encode()
    if env:
        data += b"\0" + b"\0".join(e.encode() for e in env)
    return data


FULL = """cosid:
  namespace: order-service
  machine:
    static:
      slot: 3
      state-file: /var/lib/cosid/state
      ahead: 10s
      not-before: "2026-11-30T02:22:58.123Z"
      require-state-file: true
  layout:
    preset: default
"""
for name, data in {
    "empty": config(""),
    "minimal": config("cosid:\n  machine:\n    static:\n      slot: 3\n"),
    "full": config(FULL),
    "layout_fields": config("cosid:\n  machine:\n    static:\n      slot: 1\n  layout:\n"
                            "    epoch: 1577203200000\n    unit: s\n    timestamp-bits: 31\n"
                            "    slot-bits: 10\n    sequence-bits: 22\n"),
    "preset_js_safe": config("cosid:\n  layout:\n    preset: js-safe\n  machine:\n    static:\n"
                             "      slot: 7\n"),
    "interpolate": config("cosid:\n  namespace: ${NS:-ids}\n  machine:\n    static:\n"
                          "      slot: ${SLOT}\n      ahead: '${AHEAD:-500ms}'\n",
                          ["SLOT=4", "NS=billing"]),
    "unset_variable": config("cosid:\n  machine:\n    static:\n      slot: ${NOPE}\n"),
    "env_only": config("", ["COSID_SLOT=9", "COSID_AHEAD=1m", "COSID_NAMESPACE=x",
                            "COSID_NOT_BEFORE=1700000000000"]),
    "stateful_set": config("cosid:\n  machine:\n    static:\n      slot-source: stateful-set\n",
                           ["HOSTNAME=order-service-3"]),
    "stateful_set_bad_host": config(
        "cosid:\n  machine:\n    static:\n      slot-source: stateful-set\n",
        ["HOSTNAME=order-service-3-canary"]),
    "slot_too_big": config("cosid:\n  machine:\n    static:\n      slot: 1024\n"),
    "slot_bad_numbers": config("cosid:\n  machine:\n    static:\n      slot: 12abc\n"),
    "slot_env_space": config("", ["COSID_SLOT= 3"]),
    "ahead_zero": config("cosid:\n  machine:\n    static:\n      slot: 1\n      ahead: 0ms\n"),
    "ahead_seconds_layout": config("cosid:\n  layout:\n    preset: seconds\n  machine:\n"
                                   "    static:\n      slot: 1\n      ahead: 1s\n"),
    "not_before_before_epoch": config("cosid:\n  machine:\n    static:\n      slot: 1\n"
                                      "      not-before: 1000\n"),
    "uid_generator_52": config("cosid:\n  layout:\n    slot-bits: 18\n    timestamp-bits: 33\n"
                               "  machine:\n    static:\n      slot: 462146\n"),
    "quoted_crlf": config("cosid:\r\n  namespace: \"a\\\"b\"  # comment\r\n  machine:\r\n"
                          "    static:\r\n      slot: '2'\r\n"),
    "store_file": config("cosid:\n  machine:\n    distributor:\n      type: file\n"
                         "      ttl: 10s\n      tolerance: 500ms\n      preferred-slot: 3\n"
                         "      file:\n        directory: /var/lib/cosid/leases\n",
                         ["COSID_OWNER_KEY=orders-7"]),
    "store_with_slot": config("cosid:\n  machine:\n    static:\n      slot: 1\n"
                              "    distributor:\n      type: memory\n"),
    "duplicate_key": config("cosid:\n  machine:\n    static:\n      slot: 1\n      slot: 2\n"),
    "tab_indent": config("cosid:\n\tnamespace: x\n"),
    "flow_style": config("cosid: {namespace: x}\n"),
    "unknown_key": config("cosid:\n  machine:\n    static:\n      slots: 1\n"),
}.items():
    write("config", name, data)

# --- state_record: control byte, not-before byte, then the image (or two records) ---
def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def mask(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def fnv1a(data):
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def fingerprint(epoch=EPOCH_MS, unit=0, t=41, s=10, q=12):
    return fnv1a(struct.pack("<qBBBB", epoch, unit, t, s, q))


def record(generation=1, ceiling=1700000000000, slot=7, fp=None, ns=None, written=1700000000000,
           flags=0, magic=b"COSIDSTF", version=1, length=64, good_crc=True):
    fp = fingerprint() if fp is None else fp
    ns = fnv1a(b"cosid") if ns is None else ns
    body = (magic + struct.pack("<HHI", version, flags, length) +
            struct.pack("<QqIQQq", generation % 2**64, ceiling, slot, fp, ns, written))
    crc = mask(crc32c(body)) if good_crc else 0xDEADBEEF
    return body + struct.pack("<I", crc)


def image(a, b):
    return a + bytes(4096 - len(a)) + b + bytes(4096 - len(b))


RAW_FIX = 0x3F       # raw image, both CRCs recomputed
RAW_NOFIX = 0x00     # raw image, CRCs as given
COMPACT_FIX = 0x7F   # two records, both CRCs recomputed
COMPACT_NOFIX = 0x40

good = image(record(2, 1700000005000), record(1, 1700000000000))
states = {
    "raw_empty": bytes([RAW_FIX, 0]),
    "raw_len_1": bytes([RAW_FIX, 0, 0x43]),
    "raw_len_63": bytes([RAW_FIX, 0]) + record()[:63],
    "raw_len_64": bytes([RAW_FIX, 0]) + record(),
    "raw_len_4095": bytes([RAW_FIX, 0]) + good[:4095],
    "raw_len_4096": bytes([RAW_FIX, 0]) + good[:4096],
    "raw_len_8191": bytes([RAW_FIX, 0]) + good[:8191],
    "raw_len_8193": bytes([RAW_FIX, 0]) + good + b"\0",
    "raw_valid": bytes([RAW_FIX, 1]) + good,
    "raw_valid_unfixed": bytes([RAW_NOFIX, 0]) + good,
    "raw_all_ff": bytes([RAW_NOFIX, 0]) + b"\xff" * 8192,
    "raw_damaged_padding": bytes([RAW_FIX, 0]) + good[:100] + b"\x01" + good[101:],
    "compact_created": bytes([COMPACT_FIX, 0]) + record(1) + record(0),
    "compact_b_newer": bytes([COMPACT_FIX, 0]) + record(3, 1700000001000) + record(4, 1700000009000),
    "compact_a_only": bytes([COMPACT_FIX, 2]) + record(5) + b"\0" * 64,
    "compact_equal_gen_same": bytes([COMPACT_FIX, 0]) + record(9) + record(9),
    "compact_equal_gen_diff": bytes([COMPACT_FIX, 0]) + record(9, 1) + record(9, 2),
    "compact_wrong_magic": bytes([COMPACT_FIX, 0]) + record(magic=b"COSIDSTX") + record(magic=b"\0" * 8),
    "compact_future_version": bytes([COMPACT_FIX, 0]) + record(version=2) + record(1, flags=2),
    "compact_length_big": bytes([COMPACT_FIX, 0]) + record(length=4097) + record(length=0),
    "compact_generation_max": bytes([COMPACT_FIX, 0]) + record(2**64 - 1) + record(2**64 - 2),
    "compact_generation_zero": bytes([COMPACT_FIX, 0]) + record(0) + b"\0" * 64,
    "compact_ceiling_below_not_before": bytes([COMPACT_FIX, 3]) + record(1, 5) + b"",
    "compact_ceiling_10y_ahead": bytes([COMPACT_FIX, 0]) + record(1, 1700000000000 + 315576000000),
    "compact_ceiling_negative": bytes([COMPACT_FIX, 5]) + record(1, -1) + record(2, -2**63),
    "compact_ceiling_max": bytes([COMPACT_FIX, 0]) + record(1, 2**63 - 1),
    "compact_other_slot": bytes([COMPACT_FIX, 0]) + record(slot=8),
    "compact_other_layout": bytes([COMPACT_FIX, 0]) + record(fp=fingerprint(t=31, s=10, q=22)),
    "compact_other_namespace": bytes([COMPACT_FIX, 0]) + record(ns=fnv1a(b"orders")),
    "compact_clean_shutdown": bytes([COMPACT_FIX, 1]) + record(4, flags=1) + record(3),
    "compact_bad_crc": bytes([COMPACT_NOFIX, 0]) + record(2, good_crc=False) + record(1),
}
# Regressions (see fuzz/README.md): a record at the last generation must take no more writes.
states["regression-generation-wrap"] = bytes([COMPACT_FIX, 0]) + record(2**64 - 1) + b"\0" * 64
states["regression-generation-wrap-clean"] = (bytes([COMPACT_FIX, 1]) + record(2**64 - 3) +
                                              record(2**64 - 2, 1700000000500))
swapped = bytearray(record(1))
swapped[16:24] = swapped[16:24][::-1]
swapped[24:32] = swapped[24:32][::-1]
states["compact_byte_swapped"] = bytes([COMPACT_FIX, 0]) + bytes(swapped)
for name, data in states.items():
    write("state_record", name, data)

# --- lifecycle: opcode bytes (see lifecycle_fuzzer.cc) ---
NEXT, FWD, BACK, PASS, MAINTAIN, FAIL, CLEAR, CRASH, CLOSE, FREEZE = range(10)
OPEN, OPEN_, CREATE, READ, WRITE, SYNC, SYNCDATA, RENAME, UNLINK, STAT, LOCK = range(11)
ENOSPC = 0x10
PERSIST = 0x80
for name, ops in {
    "issue": [NEXT, 10],
    "issue_many": [NEXT, 255, NEXT, 255, PASS, 0, NEXT, 255],
    "crash_restart": [NEXT, 20, CRASH, NEXT, 20],
    "close_restart": [NEXT, 20, CLOSE, NEXT, 20, CLOSE, NEXT, 5],
    "clock_back_1h": [NEXT, 5, BACK, 3, NEXT, 5],
    "clock_back_then_crash": [NEXT, 5, BACK, 2, CRASH, NEXT, 5, PASS, 2, NEXT, 5],
    "clock_forward_day": [NEXT, 5, FWD, 4, NEXT, 5, CRASH, NEXT, 5],
    "time_passes": [NEXT, 3, PASS, 1, MAINTAIN, PASS, 2, MAINTAIN, NEXT, 3, PASS, 3, NEXT, 3],
    "write_fails_eio": [NEXT, 3, FAIL, WRITE, 1, PASS, 2, MAINTAIN, NEXT, 50, CLEAR, MAINTAIN, NEXT, 3],
    "sync_fails_enospc": [NEXT, 3, FAIL, SYNCDATA | ENOSPC, PERSIST, PASS, 2, NEXT, 200, CLEAR, NEXT, 3],
    "fail_then_crash": [NEXT, 3, FAIL, SYNCDATA, 1, PASS, 2, MAINTAIN, CRASH, CLEAR, NEXT, 5],
    "create_fails": [FAIL, CREATE, 1, NEXT, 1, NEXT, 1],
    "open_sync_fails": [FAIL, SYNC, 1, NEXT, 1, CLEAR, NEXT, 1],
    "close_write_fails": [NEXT, 5, FAIL, WRITE, 1, CLOSE, NEXT, 5],
    "lock_fails": [FAIL, LOCK, 1, NEXT, 1, NEXT, 1],
    "frozen_clock": [NEXT, 5, FREEZE, NEXT, 255, NEXT, 255, FREEZE, NEXT, 5],
    "ceiling_wait": [NEXT, 1, FWD, 2, NEXT, 1, FWD, 1, NEXT, 1],
    "back_ahead_steps": [NEXT, 2, BACK, 2, NEXT, 2, BACK, 1, NEXT, 2, PASS, 2, NEXT, 2],
    "many_restarts": [NEXT, 2, CRASH, NEXT, 2, CLOSE, NEXT, 2, CRASH, NEXT, 2, CLOSE, NEXT, 2],
    "maintain_only": [MAINTAIN, PASS, 1, MAINTAIN, PASS, 2, MAINTAIN, CRASH, MAINTAIN],
    # Regression: the directory sync of the creation fails (2nd kSync), the retry opens the file,
    # issues under a frozen clock, then a power loss.
    "regression-directory-sync-lost": [FAIL, 0xAA, 0x29, 0x6D, 0x64, 0xFE, 0x6D, 0x64, 0xFE, CRASH,
                                       NEXT, 0, NEXT, 0x79],
}.items():
    write("lifecycle", name, bytes(ops))
