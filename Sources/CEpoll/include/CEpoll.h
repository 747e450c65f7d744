#ifndef CEPOLL_H
#define CEPOLL_H

// epoll and eventfd, which Glibc's Swift module does not export (<sys/epoll.h>,
// <sys/eventfd.h>), for the daemon's one thread that watches every app process
// (ProcessWatch).

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

/// A close-on-exec epoll instance, or -1 with errno.
static inline int bg_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/// A close-on-exec, non-blocking eventfd (a doorbell for the watching thread), or -1.
static inline int bg_eventfd_create(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

/// Watches `fd` for input (and hang-up, which epoll always reports), reported as `token`.
static inline int bg_epoll_add(int epfd, int fd, uint64_t token) {
    struct epoll_event event = {0};
    event.events = EPOLLIN;
    event.data.u64 = token;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

/// Stops watching `fd`.
static inline int bg_epoll_remove(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

/// Waits up to `timeout_ms` (-1: for ever) and writes the tokens of at most `max` (≤ 64)
/// ready descriptors; returns how many, or -1 with errno.
static inline int bg_epoll_wait(int epfd, uint64_t *tokens, int max, int timeout_ms) {
    struct epoll_event events[64];
    if (max > 64) max = 64;
    int count = epoll_wait(epfd, events, max, timeout_ms);
    for (int index = 0; index < count; index++) tokens[index] = events[index].data.u64;
    return count;
}

#endif
