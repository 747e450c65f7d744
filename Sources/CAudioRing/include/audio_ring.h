// Helpers for AudioRing (BackgrounderProtocol): atomics on memory that another process maps,
// which Swift's Synchronization module cannot express, and memfd sealing, which Swift's Glibc
// module does not expose (it is behind _GNU_SOURCE).
#ifndef CAUDIORING_H
#define CAUDIORING_H

#include <stdint.h>

// Seal bits, equal to the kernel's F_SEAL_* (checked with static asserts in audio_ring.c).
#define AUDIO_RING_SEAL_SEAL 0x0001
#define AUDIO_RING_SEAL_SHRINK 0x0002
#define AUDIO_RING_SEAL_GROW 0x0004

// The pointers are untyped so Swift can pass an offset into a mapping without binding memory.

static inline uint64_t audio_ring_load_acquire_u64(const void *p) {
    return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
}

static inline void audio_ring_store_release_u64(void *p, uint64_t value) {
    __atomic_store_n((uint64_t *)p, value, __ATOMIC_RELEASE);
}

static inline uint32_t audio_ring_load_acquire_u32(const void *p) {
    return __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
}

static inline void audio_ring_store_release_u32(void *p, uint32_t value) {
    __atomic_store_n((uint32_t *)p, value, __ATOMIC_RELEASE);
}

// A full fence: the waiting-flag handshake needs store-load ordering (set flag, then re-check
// the index; publish the index, then check the flag), which acquire/release alone does not give.
static inline void audio_ring_fence(void) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/// memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING). Returns the descriptor, or -1 and errno.
int audio_ring_memfd_create(const char *name);

/// accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK) for the audio socket, which
/// Swift's Glibc module does not export. Returns the connection, or -1 and errno.
int audio_socket_accept(int listener);

/// fcntl(fd, F_ADD_SEALS, seals). Returns 0, or -1 and errno.
int audio_ring_add_seals(int fd, int seals);

/// fcntl(fd, F_GET_SEALS). Returns the seal bits, or -1 and errno (EINVAL: not a sealable file).
int audio_ring_get_seals(int fd);

#endif
