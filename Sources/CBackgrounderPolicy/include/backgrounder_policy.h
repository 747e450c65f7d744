// The C ABI of Backgrounder policy plug-ins.
//
// A policy bundle holds a shared library and an Info.plist with
//   CFBundlePackageType = BNDL
//   CFBundleExecutable  = the library's file name
//   BackgrounderPolicyEntryPoint = the name of a function of type backgrounder_policy_entry_v1
// The daemon (`backgrounderd --policy ID`) loads it with dlopen at start and calls the entry
// point once with the standard policy's numbers; the plug-in fills in its own and returns 0.
// Any other return value, or numbers that are not finite and non-negative, and the daemon
// keeps the standard policy and says why.
#ifndef BACKGROUNDER_POLICY_H
#define BACKGROUNDER_POLICY_H

#include <stdint.h>

#define BACKGROUNDER_POLICY_ABI_V1 1u

typedef struct backgrounder_policy_v1 {
    /// Set by the daemon to BACKGROUNDER_POLICY_ABI_V1; a plug-in that does not know it returns -1.
    uint32_t abi;
    /// Seconds an app with no assertion runs in the background before it is suspended.
    double suspend_grace;
    /// Seconds of background time for finite-length tasks.
    double task_budget;
    /// Seconds before the budget ends that expiration handlers run.
    double expiration_warning;
    /// Launches within crash_loop_window that make a crash loop.
    int32_t crash_loop_limit;
    /// Seconds over which launches are counted.
    double crash_loop_window;
    /// Regions one app may monitor at once (iOS: 20). Added in release 0.2 at the end of the
    /// struct, so a plug-in built before it simply leaves the standard value.
    int32_t maximum_regions_per_app;
} backgrounder_policy_v1;

/// Fills `policy` (which arrives holding the standard numbers). Returns 0 on success.
typedef int32_t (*backgrounder_policy_entry_v1)(backgrounder_policy_v1 *policy);

// ---------------------------------------------------------------------------------------------
// Scheduling numbers, per app and per power state (a later, optional addition).
//
// A policy bundle may also name, with the Info.plist key
//   BackgrounderPolicySchedulingEntryPoint = the name of a function of type
//                                            backgrounder_scheduling_entry_v1
// a second entry point. A plug-in without the key (every plug-in built before it) keeps the
// standard scheduling numbers and works as before.
//
// The daemon calls it the first time it needs an app's numbers in a power state, with the
// app's bundle identifier, on_external_power 1 (on power) or 0 (on battery), and `numbers`
// pre-filled with the standard policy's. The plug-in changes what it wants and returns 0. The
// answer is cached for that (app, power state) for the daemon's life: the function must be pure.
// It is called from the daemon's threads, one call at a time.
//
// A non-zero return keeps every standard number; a duration that is not finite, negative or
// over 100 years, a count below 0, or a push burst below 1 keeps the standard one for that
// field. Either way the daemon logs the field and why. A key that names a symbol the library
// does not have refuses the whole plug-in at start, as for BackgrounderPolicyEntryPoint.
// ---------------------------------------------------------------------------------------------

#define BACKGROUNDER_SCHEDULING_ABI_V1 1u

/// The numbers of the scheduling rules. Durations are in seconds.
typedef struct backgrounder_scheduling_v1 {
    /// Set by the daemon to BACKGROUNDER_SCHEDULING_ABI_V1; a plug-in that does not know it returns -1.
    uint32_t abi;
    /// A background-fetch window (iOS: 30).
    double fetch_window;
    /// An app-refresh task's window (iOS: 30).
    double app_refresh_window;
    /// A silent push's window (iOS: 30).
    double push_window;
    /// A location or region event's window (iOS: about 10).
    double location_window;
    /// The longest a processing task runs (600).
    double processing_maximum;
    /// No app fetches more often than this, whatever it asked (iOS: about 900).
    double minimum_fetch_interval;
    /// Scheduled fetch and app-refresh launches per app in any 24 hours (48).
    int32_t daily_fetch_budget;
    /// The most the backoff after empty fetches (interval x 2^n) makes an app wait (28800).
    double fetch_backoff_cap;
    /// An app the person opened within this long fetches without backoff (3600).
    double favoured_within;
    /// How late a due deferred push or processing task may run so that several share one
    /// wake-up (300). The daemon also asks for it with the bundle identifier
    /// "org.backgrounder.system" for work that belongs to no one app.
    double coalescing_tolerance;
    /// How long the device must be idle before processing tasks run (300).
    double idle_before_processing;
    /// Silent pushes at once after a quiet spell: the token bucket's size, 1 or more (3).
    int32_t push_burst;
    /// One more silent push each time this passes (1200: 3 an hour).
    double push_refill;
    /// The furthest ahead a task request's earliestBeginDate may be (604800: 7 days).
    double maximum_earliest_begin_delay;
    /// How late a due background fetch or app-refresh task may run so that several share one
    /// wake-up (900). Read, like coalescing_tolerance, for each app's own jobs.
    double fetch_tolerance;
} backgrounder_scheduling_v1;

/// Adjusts `numbers` (which arrive holding the standard ones) for the app `bundle_identifier`
/// (NUL-terminated UTF-8, valid only during the call) on external power (1) or battery (0).
/// Returns 0 on success.
typedef int32_t (*backgrounder_scheduling_entry_v1)(
    const char *bundle_identifier, int32_t on_external_power, backgrounder_scheduling_v1 *numbers);

#endif
