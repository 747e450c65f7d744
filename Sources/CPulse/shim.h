// libpulse (asynchronous API with the threaded main loop) and the simple API, prefixed cpulse_.
#ifndef CPULSE_SHIM_H
#define CPULSE_SHIM_H

#include <pulse/pulseaudio.h>
#include <pulse/simple.h>
#include <pulse/error.h>

/// PA_CONTEXT_IS_GOOD is a macro; Swift cannot call it.
static inline int cpulse_context_is_good(pa_context_state_t state) {
    return PA_CONTEXT_IS_GOOD(state);
}

#endif
