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

#endif
