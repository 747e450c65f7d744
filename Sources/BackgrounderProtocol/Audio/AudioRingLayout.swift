/// Where each field of an ``AudioRing``'s shared header sits. Version 1:
///
/// | offset | size | field                         | written by            |
/// |-------:|-----:|-------------------------------|-----------------------|
/// |      0 |    8 | magic "BGRING01"              | creator, before use   |
/// |      8 |    4 | version (1)                   | creator               |
/// |     12 |    4 | frame bytes                   | creator               |
/// |     16 |    8 | capacity (data bytes)         | creator               |
/// |     24 |    8 | low-water mark (bytes)        | creator               |
/// |     64 |    8 | write index                   | producer              |
/// |     72 |    4 | producer waiting              | producer sets, consumer clears |
/// |    128 |    8 | read index                    | consumer              |
/// |    136 |    4 | consumer waiting              | consumer sets, producer clears |
/// |    256 |    … | data, `capacity` bytes        | producer              |
///
/// The write and read indices sit on cache lines of their own so the two sides, each
/// hammering its own index, do not bounce one line between cores. All integers are native
/// (little-endian) order: both ends are on the same machine.
enum AudioRingLayout {
    /// "BGRING01" in memory order.
    static let magic: UInt64 = 0x3130_474E_4952_4742
    static let version: UInt32 = 1

    static let magicOffset = 0
    static let versionOffset = 8
    static let frameBytesOffset = 12
    static let capacityOffset = 16
    static let lowWaterOffset = 24
    static let writeIndexOffset = 64
    static let producerWaitingOffset = 72
    static let readIndexOffset = 128
    static let consumerWaitingOffset = 136

    /// Bytes before the data; a multiple of the cache line so the data starts on one.
    static let headerBytes = 256
}
