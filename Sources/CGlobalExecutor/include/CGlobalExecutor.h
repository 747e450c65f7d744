#ifndef CGLOBALEXECUTOR_H
#define CGLOBALEXECUTOR_H

#include <stdbool.h>

/// Sends every job of Swift Concurrency's global executor to libdispatch's *overcommit*
/// global queue instead of its default one (docs/decisions/0020-idle-wakeups.md).
///
/// Why: the first worker of a default (non-overcommit) global queue starts libdispatch's
/// pool monitor, a 1 Hz timer that runs for the life of the process, so an idle daemon woke
/// every second. Overcommit workers share one queue as the default ones do, and a new one
/// starts when all are busy or blocked, so a job never waits behind a blocked thread; idle
/// ones exit after a few seconds, and nothing watches them.
///
/// Call before the first task starts. Returns false when the runtime offers no hook.
bool backgrounder_install_global_executor(void);

#endif
