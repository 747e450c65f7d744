import CAudioRing

/// The waiting flags, which let a side sleep instead of polling.
///
/// A side about to sleep sets its flag, then checks the ring again, and sleeps only if there is
/// still nothing to do. The other side, after moving data, checks that flag and, if set,
/// clears it and wakes the sleeper (a byte on a socket, outside this type). The setters and
/// getters carry full fences, so that of "set flag, re-check index" and "publish index, check
/// flag" at least one side sees the other's write and no wakeup is lost. A flag is only a
/// hint: a peer can set or clear it at will, so a sleeper must also wake on its own now and
/// then, and a waker must not trust it for anything but whether to send a byte.
extension AudioRing {
    /// Whether the producer is asleep waiting for space.
    public var producerWaiting: Bool {
        audio_ring_fence()
        return audio_ring_load_acquire_u32(base + AudioRingLayout.producerWaitingOffset) != 0
    }

    /// Sets (the producer, before sleeping) or clears (the consumer, when waking it) the
    /// producer's flag.
    /// - Parameter waiting: The new value.
    public func setProducerWaiting(_ waiting: Bool) {
        audio_ring_store_release_u32(base + AudioRingLayout.producerWaitingOffset, waiting ? 1 : 0)
        audio_ring_fence()
    }

    /// Whether the consumer is asleep waiting for data.
    public var consumerWaiting: Bool {
        audio_ring_fence()
        return audio_ring_load_acquire_u32(base + AudioRingLayout.consumerWaitingOffset) != 0
    }

    /// Sets (the consumer, before sleeping) or clears (the producer, when waking it) the
    /// consumer's flag.
    /// - Parameter waiting: The new value.
    public func setConsumerWaiting(_ waiting: Bool) {
        audio_ring_store_release_u32(base + AudioRingLayout.consumerWaitingOffset, waiting ? 1 : 0)
        audio_ring_fence()
    }
}
