#!/usr/bin/env python3
"""Writes the seeds of the fuzz targets that are generated rather than written by hand:
info-plist (the samples' real Info.plist files, a few more manifests, each as XML and as a
binary property list made by plistlib, and a few hostile shapes) and audio-ring (valid ring headers followed by
operations). The other targets' seeds are hand-written files in Fuzz/Corpus.

    python3 Fuzz/make-corpus.py          # rewrites Fuzz/Corpus/info-plist and Fuzz/Corpus/audio-ring

The output is deterministic, so running it again changes nothing.
"""

import datetime
import plistlib
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "Fuzz" / "Corpus"


def info_plists():
    """Manifests: each sample's own, then ones that use every key the parser reads."""
    for path in sorted((ROOT / "Samples").glob("*/Info.plist")):
        yield path.parent.name.lower(), path.read_bytes()
    more = {
        # An app with every key, as a developer of a navigation app might write it.
        "every-key": {
            "CFBundleIdentifier": "org.example.hike",
            "CFBundleName": "Hike",
            "CFBundleExecutable": "bin/Hike",
            "CFBundlePackageType": "APPL",
            "UIBackgroundModes": ["location", "audio", "fetch", "processing", "remote-notification",
                                  "voip", "bluetooth-central"],
            "UIApplicationExitsOnSuspend": False,
            "BGTaskSchedulerPermittedIdentifiers": ["org.example.hike.refresh", "org.example.hike.compact"],
            "NSLocationAlwaysAndWhenInUseUsageDescription": "Records your track while you hike.",
            "NSLocationWhenInUseUsageDescription": "Shows where you are on the map.",
            "NSMicrophoneUsageDescription": "Records voice notes.",
        },
        # A policy plug-in without its optional scheduling entry point.
        "policy-plugin": {
            "CFBundleIdentifier": "org.example.policy",
            "CFBundleName": "Policy",
            "CFBundlePackageType": "BNDL",
            "CFBundleExecutable": "libPolicy.so",
            "BackgrounderPolicyEntryPoint": "example_policy",
        },
        # Refused: a mistyped key, as the parser names it.
        "refused-mistyped": {
            "CFBundleIdentifier": "org.example.bad",
            "CFBundleName": "Bad",
            "CFBundleExecutable": "Bad",
            "UIBackgroundModes": "audio",
        },
        # Data, dates and numbers the manifest does not read, in a nested dictionary.
        "unread-types": {
            "CFBundleIdentifier": "org.example.types",
            "CFBundleName": "Types",
            "CFBundleExecutable": "Types",
            "Extra": {"data": b"\x00\x01\xff", "real": 1.5, "int": -7, "big": 2**63 - 1,
                      "list": [True, False, "x", [1, 2, {"deep": "yes"}]]},
        },
    }
    for name, manifest in more.items():
        yield name, plistlib.dumps(manifest, fmt=plistlib.FMT_XML, sort_keys=False)


def binary_plist(objects, top=0):
    """A binary property list by hand (one-byte references and offsets), for shapes plistlib
    cannot write: objects that refer to themselves or share children."""
    out = b"bplist00"
    offsets = []
    for encoded in objects:
        offsets.append(len(out))
        out += encoded
    table = len(out)
    out += bytes(offsets)
    return out + struct.pack(">6xBBQQQ", 1, 1, len(objects), top, table)


def ascii_string(text):
    return bytes([0x50 | len(text)]) + text.encode()


def hostile_plists():
    """Shapes an author could write to hurt the parser: cycles, shared children, too deep."""
    modes = ascii_string("UIBackgroundModes")
    identifier = ascii_string("CFBundleIdentifier")
    # An array that holds itself, as the background modes.
    yield "binary-cycle", binary_plist([bytes([0xD1, 1, 2]), modes, bytes([0xA1, 2])])
    # The top dictionary as the value of its own key.
    yield "binary-self-value", binary_plist([bytes([0xD1, 1, 0]), identifier])
    # Forty arrays, each holding the next one twice: 2^40 paths through 42 objects.
    chain = [bytes([0xD1, 1, 2]), modes]
    for index in range(40):
        following = 2 + index + 1
        chain.append(bytes([0xA2, following, following]) if index < 39 else bytes([0xA0]))
    yield "binary-shared-children", binary_plist(chain)
    # Every kind of object a binary property list holds (plistlib writes no sets), for the
    # fuzzer to mutate: UTF-16 strings, a 16-byte integer, a UID, a date.
    yield "binary-every-type", plistlib.dumps({
        "CFBundleIdentifier": "org.example.types",
        "CFBundleName": "Typ\u00e9 \u2603",
        "CFBundleExecutable": "T",
        "UIBackgroundModes": ["audio", "fetch\u00e9"],
        "Extra": [2**64 - 1, -1, 1.5, plistlib.UID(3), b"\x00\x01", datetime.datetime(2025, 6, 14, 7, 33),
                  True, {"k": "v"}],
    }, fmt=plistlib.FMT_BINARY, sort_keys=False)
    # XML nested one level deeper than PropertyListLimits allows.
    depth = 33
    yield "xml-too-deep", (b'<?xml version="1.0"?><plist version="1.0">' + b"<array>" * depth
                           + b"</array>" * depth + b"</plist>")


def write_info_plists():
    folder = CORPUS / "info-plist"
    folder.mkdir(parents=True, exist_ok=True)
    for name, xml in info_plists():
        (folder / f"{name}.xml.plist").write_bytes(xml)
        value = plistlib.loads(xml)
        (folder / f"{name}.binary.plist").write_bytes(plistlib.dumps(value, fmt=plistlib.FMT_BINARY))
    for name, data in hostile_plists():
        (folder / f"{name}.plist").write_bytes(data)


# The ring's header (Sources/BackgrounderProtocol/Audio/AudioRingLayout.swift).
MAGIC = 0x3130_474E_4952_4742  # "BGRING01" in memory order
VERSION = 1


def ring_header(frame, capacity, low_water, flags=0, adjustment=0):
    return struct.pack("<QIIQQBb", MAGIC, VERSION, frame, capacity, low_water, flags, adjustment)


def op_write(count):
    return struct.pack("<BH", 0, count)


def op_read(count):
    return struct.pack("<BH", 1, count)


def op_skip(count):
    return struct.pack("<Bh", 2, count)


def op_discard():
    return bytes([3])


def op_peer_write_index(value):
    return struct.pack("<BQ", 4, value)


def op_peer_read_index(value):
    return struct.pack("<BQ", 5, value)


def op_peer_shift(delta):
    return struct.pack("<BQ", 6, delta)


def op_peer_header(value):
    return struct.pack("<BQ", 7, value)


def op_flag(choice, value=0):
    return struct.pack("<BB", 8, choice) + (struct.pack("<I", value) if choice & 2 else b"")


def write_audio_rings():
    folder = CORPUS / "audio-ring"
    folder.mkdir(parents=True, exist_ok=True)
    seeds = {
        # What BackgroundKit asks for: half a second of stereo s16le at 44.1 kHz.
        "stereo-s16-playback": ring_header(4, 88200, 22050)
        + op_write(4096) + op_read(1024) + op_write(65535) + op_read(65535) + op_skip(400) + op_discard(),
        # Mono float32 recording at 48 kHz, a small ring that wraps.
        "mono-f32-wraps": ring_header(4, 4800, 1200)
        + op_write(4000) + op_read(3000) + op_write(4000) + op_read(4800) + op_flag(0b100) + op_flag(0b101),
        # One-byte frames, a ring of one frame.
        "one-byte-frames": ring_header(1, 1, 0) + op_write(1) + op_write(1) + op_read(1) + op_read(1),
        # The largest frame and capacity the ring accepts.
        "largest": ring_header(4096, 64 << 20, 64 << 20) + op_write(8192) + op_read(4096),
        # A peer that scribbles: indices out of order, wrapping near 2^64, a rewritten header.
        "hostile-peer": ring_header(8, 1600, 400)
        + op_peer_write_index(2**64 - 8) + op_peer_read_index(2**64 - 808) + op_write(1600) + op_read(1600)
        + op_peer_shift(2**64 - 16) + op_write(800) + op_peer_read_index(4) + op_read(8) + op_skip(8)
        + op_peer_header(0xFFFF_FFFF_FFFF) + op_write(64) + op_read(64) + op_flag(0b10, 7) + op_flag(0b11, 0),
        # Refused rings: unsealed, one byte short, a header that lies.
        "refused-unsealed": ring_header(4, 400, 100, flags=1),
        "refused-short": ring_header(4, 400, 100, flags=2, adjustment=-1),
        "refused-low-water": ring_header(4, 400, 404),
        "refused-capacity-not-frames": ring_header(6, 400, 0),
    }
    for name, seed in seeds.items():
        (folder / f"{name}.bin").write_bytes(seed)


if __name__ == "__main__":
    write_info_plists()
    write_audio_rings()
