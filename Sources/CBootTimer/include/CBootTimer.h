#ifndef CBOOTTIMER_H
#define CBOOTTIMER_H

// A timerfd on CLOCK_BOOTTIME, which Glibc's Swift module does not export (<sys/timerfd.h>).
// CLOCK_BOOTTIME is the clock Swift's ContinuousClock reads on Linux: it counts time suspended.

#include <sys/timerfd.h>
#include <time.h>

/// A non-blocking, close-on-exec timerfd on CLOCK_BOOTTIME, or -1 with errno.
static inline int boot_timer_create(void) {
    return timerfd_create(CLOCK_BOOTTIME, TFD_CLOEXEC | TFD_NONBLOCK);
}

/// Arms `fd` to fire once after `seconds` + `nanoseconds`, or disarms it when both are 0.
static inline int boot_timer_arm(int fd, long long seconds, long nanoseconds) {
    struct itimerspec setting = {0};
    setting.it_value.tv_sec = (time_t)seconds;
    setting.it_value.tv_nsec = nanoseconds;
    return timerfd_settime(fd, 0, &setting, NULL);
}

#endif
