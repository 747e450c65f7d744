#include "CGlobalExecutor.h"

#include <stddef.h>
#include <stdint.h>

// libdispatch's C entry points, declared here because its headers live inside the Swift
// toolchain, outside a C target's search path; the library itself is linked into every Swift
// program through Foundation.
typedef struct dispatch_queue_s *dispatch_queue_t;
extern dispatch_queue_t dispatch_get_global_queue(intptr_t identifier, uintptr_t flags);
extern void dispatch_async_f(dispatch_queue_t queue, void *context, void (*work)(void *));
enum { backgrounder_dispatch_priority_default = 0 };

// The runtime's entry points, as Swift's own headers declare them (swift/Runtime/Concurrency.h):
// both use the Swift calling convention. A job is opaque here; an executor reference is two
// words, {NULL, 0} for the generic executor.
typedef struct {
    void *identity;
    uintptr_t implementation;
} backgrounder_executor_ref;

typedef void (*__attribute__((swiftcall)) backgrounder_enqueue_original)(void *job);
typedef void (*__attribute__((swiftcall)) backgrounder_enqueue_hook)(
    void *job, backgrounder_enqueue_original original);

extern backgrounder_enqueue_hook swift_task_enqueueGlobal_hook;
extern void swift_job_run(void *job, backgrounder_executor_ref executor) __attribute__((swiftcall));

static dispatch_queue_t backgrounder_queue;

static void backgrounder_run_job(void *job) {
    backgrounder_executor_ref generic = {0, 0};
    swift_job_run(job, generic);
}

// libdispatch's flag for an overcommit root queue; public headers keep it private, but its
// value is part of the ABI (DISPATCH_QUEUE_OVERCOMMIT in queue_private.h).
enum { backgrounder_dispatch_queue_overcommit = 0x2ull };

__attribute__((swiftcall)) static void backgrounder_enqueue(void *job,
                                                            backgrounder_enqueue_original original) {
    (void)original;
    dispatch_async_f(backgrounder_queue, job, backgrounder_run_job);
}

bool backgrounder_install_global_executor(void) {
    backgrounder_queue = dispatch_get_global_queue(backgrounder_dispatch_priority_default,
                                                   backgrounder_dispatch_queue_overcommit);
    if (backgrounder_queue == NULL) return false;
    swift_task_enqueueGlobal_hook = backgrounder_enqueue;
    return true;
}
