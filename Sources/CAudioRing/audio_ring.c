#define _GNU_SOURCE
#include "audio_ring.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <stddef.h>
#include <sys/socket.h>

_Static_assert(AUDIO_RING_SEAL_SEAL == F_SEAL_SEAL, "F_SEAL_SEAL");
_Static_assert(AUDIO_RING_SEAL_SHRINK == F_SEAL_SHRINK, "F_SEAL_SHRINK");
_Static_assert(AUDIO_RING_SEAL_GROW == F_SEAL_GROW, "F_SEAL_GROW");

int audio_ring_memfd_create(const char *name) {
    return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

int audio_socket_accept(int listener) {
    return accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

int audio_ring_add_seals(int fd, int seals) {
    return fcntl(fd, F_ADD_SEALS, seals);
}

int audio_ring_get_seals(int fd) {
    return fcntl(fd, F_GET_SEALS);
}
